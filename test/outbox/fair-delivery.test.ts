// One business's receiver cannot hold up another's notifications: deliveries run in a bounded pool,
// at most a few per business, and an endpoint that keeps failing is backed off by a circuit breaker
// instead of holding delivery slots. Asserted by order and counts, never by elapsed time.
import { afterEach, describe, expect, it } from 'vitest';
import { CircuitBreakers } from '../../server/outbox/circuit-breaker.js';
import { createDeliverers } from '../../server/outbox/deliverers.js';
import { pickFairly } from '../../server/outbox/fair-share.js';
import type { Mailer } from '../../server/outbox/mailer.js';
import { ANY_PORT } from '../../server/outbox/webhook-target.js';
import { OutboxWorker, type WorkerOptions } from '../../server/outbox/worker.js';
import { findOrCreateBusiness, setWebhook } from '../../server/store/businesses.js';
import { enqueue, listAttempts, listOutbox, type OutboxEntry } from '../../server/store/outbox.js';
import { compile, type Executor } from '../../server/store/executor.js';
import { toIsoMicros } from '../../server/store/timestamps.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { useMigratedDatabase } from '../support/store.js';
import { waitFor } from '../support/wait.js';
import { MasterKey, parseMasterKey } from '../../server/secrets/master-key.js';
import { TEST_SECRETS_KEY } from '../support/secrets.js';

/** Seals the webhook keys these tests store, and opens them at delivery. */
const KEY = new MasterKey(parseMasterKey(TEST_SECRETS_KEY));

const store = useMigratedDatabase('fair');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const mailer: Mailer = { describe: 'nowhere', send: async () => {}, close: () => {} };
const offline = async (hostname: string) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

const receivers: Receiver[] = [];
const workers: OutboxWorker[] = [];
afterEach(async () => {
  // Receivers first: a hanging one would keep a stopping worker waiting for its timeout.
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  // What a test left undelivered is not the next test's business.
  await store.sql('outbox').where({ status: 'pending' }).update({ status: 'dead' });
});

let businesses = 0;
async function businessWith(receiver: Receiver): Promise<number> {
  businesses += 1;
  const business = await findOrCreateBusiness(store.db, `Fair ${businesses}`);
  await setWebhook(store.db, business.id, { url: receiver.url, secret: SECRET }, KEY);
  return business.id;
}

async function enqueueEvents(businessId: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const payload = { id: `evt_${businessId}_${i}`, body: { trigger_at: new Date().toISOString(), event: 'payment.created', data: { n: i } } };
    ids.push(await enqueue(store.db, { business_id: businessId, channel: 'webhook', topic: 'payment.created', payload }));
  }
  return ids;
}

const entriesOf = async (businessId: number): Promise<OutboxEntry[]> => await listOutbox(store.db, { business_id: businessId });

function startWorker(
  options: Partial<WorkerOptions> & { breaker?: { threshold: number; coolDownMs: number }; warnings?: string[]; db?: Executor } = {},
): OutboxWorker {
  const db = options.db ?? store.db;
  const deliverers = createDeliverers(db, mailer, {
    webhookTimeoutMs: 20_000,
    webhookPolicy: { allowPrivate: true, allowedPorts: ANY_PORT, serviceUrls: ['http://127.0.0.1:1'], resolve: offline },
    breaker: options.breaker ?? { threshold: 1_000, coolDownMs: 60_000 },
    secretsKey: KEY,
    logger: { warn: (fields: { business_id: number }, message?: string) => void options.warnings?.push(`${fields.business_id}: ${message}`) } as never,
  });
  const worker = new OutboxWorker(db, deliverers, {
    pollMs: 10,
    leaseMs: 30_000,
    concurrency: 4,
    perBusinessConcurrency: 2,
    retry: { baseMs: 1, capMs: 5, maxAttempts: 1_000 },
    ...options,
  });
  workers.push(worker);
  worker.start();
  return worker;
}

describe('a business whose receiver never answers', () => {
  it("holds at most its share of the pool: another business's events are delivered while its own still hang", async () => {
    const hanging = await startReceiver(() => 'hang');
    const healthy = await startReceiver();
    receivers.push(hanging, healthy);
    const a = await businessWith(hanging);
    const b = await businessWith(healthy);
    // A's events are older, so a worker that took the oldest first would fill every slot with them.
    await enqueueEvents(a, 12);
    await enqueueEvents(b, 5);
    const worker = startWorker();

    await waitFor("B's five events", async () => (await entriesOf(b)).every((entry) => entry.status === 'delivered'));
    expect(healthy.requests).toHaveLength(5);
    // Meanwhile A has exactly its two slots, both still waiting for an answer: nothing of A's settled.
    expect(hanging.requests).toHaveLength(2);
    expect(worker.inFlightCount(a, 'webhook')).toBe(2);
    const aEntries = await entriesOf(a);
    expect(aEntries.map((entry) => entry.status)).toEqual(Array(12).fill('pending'));
    expect(aEntries.map((entry) => entry.attempts).sort()).toEqual([...Array(10).fill(0), 1, 1]);
    for (const entry of aEntries) expect(await listAttempts(store.db, entry.id)).toHaveLength(0);
  });
});

describe('a business with a backlog', () => {
  it('is drained without looking past its backlog for other work after every delivery', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const c = await businessWith(receiver);
    await enqueueEvents(c, 40);
    // A look for other businesses' work while this one is full has to skip its whole due backlog.
    let looksPastFullQueues = 0;
    const counting: Executor = {
      dialect: store.db.dialect,
      sql: store.db.sql,
      all: (query) => {
        const { sql } = compile(query);
        if (/from [`"]outbox[`"]/.test(sql) && /not \(/.test(sql)) looksPastFullQueues += 1;
        return store.db.all(query);
      },
      first: (query) => store.db.first(query),
      run: (query) => store.db.run(query),
      transaction: (work) => store.db.transaction(work),
    };
    // Polls an hour apart: every look below is prompted by a delivery finishing.
    startWorker({ pollMs: 3_600_000, db: counting });
    await waitFor('all 40 delivered', async () => (await entriesOf(c)).every((entry) => entry.status === 'delivered'));
    expect(receiver.requests).toHaveLength(40);
    expect(looksPastFullQueues).toBeLessThanOrEqual(2);
  });
});

describe('the circuit breaker', () => {
  it("after N failures in a row, puts the endpoint's events back without a request or an attempt; after the cool-down one probe, then the rest", async () => {
    // The first two requests are answered 500 together, once both are in flight; the third (the probe) when the test says.
    let secondArrived!: () => void;
    const bothInFlight = new Promise<number>((resolve) => (secondArrived = () => resolve(500)));
    let releaseProbe!: () => void;
    const probeAnswered = new Promise<number>((resolve) => (releaseProbe = () => resolve(204)));
    const failing = await startReceiver((n) => {
      if (n === 1) return bothInFlight;
      if (n === 2) return (secondArrived(), 500);
      return n === 3 ? probeAnswered : 204;
    });
    receivers.push(failing);
    const a = await businessWith(failing);
    const ids = await enqueueEvents(a, 6);
    const COOL_DOWN = 2_000;
    const warnings: string[] = [];
    startWorker({ perBusinessConcurrency: 2, breaker: { threshold: 2, coolDownMs: COOL_DOWN }, warnings });
    const nextAttempts = async () => (await entriesOf(a)).map((entry) => Date.parse(entry.next_attempt_at));

    // Two failed requests open the circuit: every event is put back until the cool-down ends (which
    // starts after the second request was sent), and none is requested meanwhile.
    await waitFor('the circuit to open and every event to wait for the cool-down', async () => {
      const failed = (await Promise.all(ids.map((id) => listAttempts(store.db, id)))).flat();
      if (failed.length < 2) return false;
      const opened = Math.max(...failed.map((attempt) => Date.parse(toIsoMicros(attempt.started_at))));
      return (await nextAttempts()).every((at) => at >= opened + COOL_DOWN);
    });
    expect(failing.requests).toHaveLength(2);
    // Entries the test before left pending may be failing too: only this business's warnings count here.
    expect(warnings.filter((w) => w.startsWith(`${a}: `))).toEqual([`${a}: webhook endpoint paused after 2 failed deliveries in a row`]);
    const attempts = (await Promise.all(ids.map((id) => listAttempts(store.db, id)))).flat();
    expect(attempts.map((a) => [a.outcome, a.error])).toEqual(Array(2).fill(['failed', 'webhook answered HTTP 500']));
    // Putting an event back costs no attempt: only the two failed requests were counted.
    const entries = await entriesOf(a);
    expect(entries.reduce((sum, entry) => sum + entry.attempts, 0)).toBe(2);
    expect(entries.every((entry) => entry.status === 'pending')).toBe(true);
    const waitingUntil = await nextAttempts();

    // Cool-down over: one probe goes out and hangs; the other five are put back again, not sent.
    await waitFor('the probe', () => failing.requests.length === 3, 15_000);
    const probe = ids[Number(String(failing.requests[2]!.headers['webhook-id']).split('_').pop())]!;
    await waitFor('the others put back again while the probe is out', async () =>
      (await entriesOf(a)).every((entry, i) => entry.id === probe || Date.parse(entry.next_attempt_at) > waitingUntil[i]!),
    );
    expect(failing.requests).toHaveLength(3);

    // The probe succeeds: the circuit closes and the rest are delivered, each once.
    releaseProbe();
    await waitFor('all six delivered', async () => (await entriesOf(a)).every((entry) => entry.status === 'delivered'), 15_000);
    expect(failing.requests).toHaveLength(8);
    expect(new Set(failing.requests.slice(2).map((r) => r.headers['webhook-id'])).size).toBe(6);
  });

  it('opens after the threshold, admits one probe after the cool-down, and closes on success (unit, with a clock)', () => {
    let now = 0;
    const breakers = new CircuitBreakers({ threshold: 3, coolDownMs: 1_000 }, () => now);
    const fail = () => {
      const admission = breakers.admit('e');
      expect(admission.allowed).toBe(true);
      breakers.settle('e', admission as { probe: boolean }, 'failure');
    };
    fail();
    fail();
    // A success in between starts the count again.
    breakers.settle('e', breakers.admit('e') as { probe: boolean }, 'success');
    fail();
    fail();
    expect(breakers.isOpen('e')).toBe(false);
    fail();
    expect(breakers.isOpen('e')).toBe(true);
    expect(breakers.admit('e')).toEqual({ allowed: false, retryAt: new Date(1_000) });
    expect(breakers.admit('other')).toEqual({ allowed: true, probe: false });

    now = 1_000;
    const probe = breakers.admit('e');
    expect(probe).toEqual({ allowed: true, probe: true });
    expect(breakers.admit('e')).toEqual({ allowed: false, retryAt: new Date(2_000) });
    // A failed probe opens the circuit for another cool-down.
    breakers.settle('e', probe as { probe: boolean }, 'failure');
    now = 1_500;
    expect(breakers.admit('e')).toEqual({ allowed: false, retryAt: new Date(2_000) });
    // A probe that ends saying nothing (a URL refused before any request) lets another probe go.
    now = 2_000;
    const refused = breakers.admit('e');
    breakers.settle('e', refused as { probe: boolean }, 'neither');
    const second = breakers.admit('e');
    expect(second).toEqual({ allowed: true, probe: true });
    breakers.settle('e', second as { probe: boolean }, 'success');
    expect(breakers.isOpen('e')).toBe(false);
    expect(breakers.admit('e')).toEqual({ allowed: true, probe: false });
  });
});

describe('pickFairly', () => {
  const entry = (id: number, business_id: number, channel: 'email' | 'webhook' = 'webhook') => ({ id, business_id, channel });

  it('takes the oldest of each business in turn, at most its room, up to the limit', () => {
    const candidates = [entry(1, 1), entry(2, 1), entry(3, 1), entry(4, 1), entry(5, 2), entry(6, 3), entry(7, 2)];
    expect(pickFairly(candidates, 5, () => 2)).toEqual([1, 5, 6, 2, 7]);
    expect(pickFairly(candidates, 10, () => 2)).toEqual([1, 5, 6, 2, 7]);
    expect(pickFairly(candidates, 2, () => 2)).toEqual([1, 5]);
  });

  it('counts a business on each channel as its own queue, and skips queues that are full', () => {
    const candidates = [entry(1, 1), entry(2, 1, 'email'), entry(3, 1), entry(4, 2)];
    expect(pickFairly(candidates, 10, (key) => (key === '1:webhook' ? 1 : key === '2:webhook' ? 0 : 3))).toEqual([1, 2]);
  });
});
