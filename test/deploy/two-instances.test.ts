// Two server processes on one PostgreSQL database, started together and hammered together: one
// success per payment link, each notification delivered once, limits and idempotency keys shared,
// and no request failing because of the other instance.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPaymentsClient, type PaymentsClient } from '../../client/index.js';
import { verifyWebhook } from '../../client/webhooks.js';
import { findBusinessByName, setWebhook } from '../../server/store/businesses.js';
import type { Knex } from 'knex';
import { knexFor, openDatabase, type Database } from '../../server/store/database.js';
import { listOutbox } from '../../server/store/outbox.js';
import { freePort, startChild, type ChildService } from '../support/child.js';
import { TEST_POSTGRES_URL, createTestDatabase, type TestDatabase } from '../support/database.js';
import { DECLINED_CARD, GOOD_CARD, Payer } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { secretsKeyFor } from '../support/secrets.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { sleep, waitFor } from '../support/wait.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const LIMIT = 60;
const PAGE_LIMIT = 8;

if (!TEST_POSTGRES_URL) console.warn('!! two-instance test SKIPPED on SQLite: it runs in the PostgreSQL pass (TEST_POSTGRES_URL)');

describe.skipIf(!TEST_POSTGRES_URL)('two instances on one PostgreSQL database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-two-'));
  const instances: ChildService[] = [];
  let database: TestDatabase;
  let db: Database;
  let sql: Knex;
  let smtp: TestSmtp;
  let receiver: Receiver;
  afterAll(async () => {
    // Stopped as a process manager stops them, so each closes its connections to the test's SMTP server,
    // receiver and database itself: one CI run saw an ECONNRESET of a SIGKILLed instance's socket escape as an
    // uncaught error of the test process after every assertion had passed.
    await Promise.all(instances.map((instance) => instance.stop()));
    await sql?.destroy();
    await db?.close();
    await database?.drop();
    await smtp?.close();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('share the work without double charges, lost or doubled notifications, or failed requests', async () => {
    database = await createTestDatabase(dir);
    smtp = await startSmtp();
    receiver = await startReceiver();
    const env = {
      DATABASE_URL: database.url,
      SMTP_URL: smtp.url,
      OUTBOX_POLL_MS: '100',
      RATE_LIMIT_PER_SECOND: String(LIMIT),
      SANDBOX_LATENCY_MS: '20',
      // Every payer below posts from 127.0.0.1 with the same card; a link takes exactly PAGE_LIMIT declines.
      PAGE_RATE_LIMIT_PER_ADDRESS: '1000000',
      PAGE_RATE_LIMIT_PER_CARD: '1000000',
      PAGE_RATE_LIMIT_PER_LINK: String(PAGE_LIMIT),
      PAGE_SIGNING_SECRET: 'one-secret-for-both-instances-0123456789',
    };
    // Started together: migrations and the demo business must not trip over each other.
    instances.push(...(await Promise.all([startChild(env, await freePort()), startChild(env, await freePort())])));
    const [a, b] = instances as [ChildService, ChildService];
    // Whichever instance found the database empty created the demo business and printed its key.
    const key = /sk_[A-Za-z0-9_-]{43}/.exec(a.output() + b.output())![0];
    db = openDatabase(database.url);
    sql = knexFor(database.url);
    await setWebhook(db, (await findBusinessByName(db, 'Demo Business'))!.id, { url: receiver.url, secret: SECRET }, secretsKeyFor(database.url));
    const clients: PaymentsClient[] = instances.map((instance) => createPaymentsClient({ baseUrl: `${instance.url}/api`, apiKey: key }));
    const statuses: number[] = [];
    const note = <T extends { response: Response }>(answer: T) => {
      statuses.push(answer.response.status);
      return answer;
    };

    // Six payment links, created through both instances at once.
    const links = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        clients[i % 2]!.POST('/payment-links', { body: { email: `payer${i}@example.com`, currency: 'MYR', amount: 1000 + i, title: `Invoice ${i}` } }).then(
          note,
        ),
      ),
    );
    const ids = links.map((link) => link.data!.data._id);

    // Eight payers per link, half on each instance, all at once, while both serve reads.
    const payerResults = Promise.all(
      ids.flatMap((id, l) =>
        Array.from({ length: 8 }, async (_, p) => {
          const instance = instances[p % 2]!;
          const payer = new Payer(instance.url);
          const form = await payer.open(`/payment/pay?id=${id}`);
          const answer = await payer.submit(form, { name: `Payer ${l}.${p}`, ...GOOD_CARD });
          return { id, status: form.status === 200 ? answer.status : form.status };
        }),
      ),
    );
    const reads = Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? clients[i % 2]!.GET('/payment-links', { params: { query: { per_page: 5 } } }).then(note)
          : clients[i % 2]!.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: ids[i % 6]! } } }).then(note),
      ),
    );
    const [paid] = await Promise.all([payerResults, reads]);
    for (const id of ids) {
      const outcomes = paid.filter((p) => p.id === id).map((p) => p.status);
      expect(
        outcomes.filter((s) => s === 303),
        `link ${id}: ${outcomes}`,
      ).toHaveLength(1);
      expect(outcomes.filter((s) => s === 409)).toHaveLength(7);
    }
    const successes = Number((await sql('payments').where({ status_id: 1 }).count({ n: '*' }).first())!.n);
    expect(successes).toBe(6);

    // Each notification once, whichever instance delivered it: six receipts, six payment.created, and
    // one payment.failed for each payer whose card was authorized after another payer had won the link.
    const failed = Number((await sql('payments').where({ status_id: 3 }).count({ n: '*' }).first())!.n);
    await waitFor('every receipt and webhook', () => smtp.messages.length >= 6 && receiver.requests.length >= 6 + failed, 30_000);
    await sleep(1_000);
    expect(smtp.messages).toHaveLength(6);
    expect(receiver.requests).toHaveLength(6 + failed);
    const events = receiver.requests.map((r) => verifyWebhook(r.raw, r.headers as Record<string, string>, SECRET));
    const created = events.filter((e) => e.event === 'payment.created');
    expect(created).toHaveLength(6);
    expect(new Set(created.map((e) => (e.data as { payment_link_id: string }).payment_link_id))).toEqual(new Set(ids));
    expect(events.filter((e) => e.event === 'payment.failed').every((e) => (e.data as { failure_code: string }).failure_code === 'link_unavailable')).toBe(
      true,
    );
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(6 + failed);
    const deliveredBy = new Set((await sql('outbox_attempts').select('worker')).map((row: { worker: string }) => String(row.worker).split(':')[1]));
    expect(deliveredBy.size).toBeGreaterThanOrEqual(1);
    expect((await listOutbox(db)).every((entry) => entry.status === 'delivered' && entry.attempts === 1)).toBe(true);

    // One Idempotency-Key sent to both instances at once runs once.
    const body = { email: 'same@example.com', currency: 'MYR', amount: 5000, title: 'Once' };
    const keyed = await Promise.all(
      clients.flatMap((client) => [1, 2].map(() => client.POST('/payment-links', { body, headers: { 'Idempotency-Key': 'both-instances' } }).then(note))),
    );
    expect(keyed.filter((k) => k.response.status === 200 && !k.response.headers.get('idempotent-replayed'))).toHaveLength(1);
    expect(Number((await sql('payment_links').where({ email: 'same@example.com' }).count({ n: '*' }).first())!.n)).toBe(1);

    // The limit is shared: a burst split across both instances is cut at LIMIT in all.
    // The burst must fit in one one-second window; on a busy machine it may not, and is sent again in a fresh one.
    let burst: { response: Response }[] = [];
    for (let tries = 0; tries < 5; tries += 1) {
      await sleep(1_000 - (Date.now() % 1_000) + 5);
      const window = Math.floor(Date.now() / 1_000);
      burst = await Promise.all(Array.from({ length: LIMIT + 30 }, (_, i) => clients[i % 2]!.GET('/payment-links', { params: { query: { per_page: 1 } } })));
      if (Math.floor(Date.now() / 1_000) === window) break;
    }
    expect(burst.filter((r) => r.response.status === 200)).toHaveLength(LIMIT);
    expect(burst.filter((r) => r.response.status === 429)).toHaveLength(30);

    // The payer pages share their limits too: declines on one open link split across both instances
    // are cut at PAGE_LIMIT in all (a payment does not count); and the thank-you page one instance
    // signed reads on the other.
    await sleep(1_000 - (Date.now() % 1_000) + 5);
    const open = note(await clients[0]!.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: '10.00', title: 'Shared limit' } })).data!.data;
    const pageStatuses: number[] = [];
    const locations: string[] = [];
    for (let i = 0; i < PAGE_LIMIT + 3; i += 1) {
      const payer = new Payer(instances[i % 2]!.url);
      const answer = await payer.submit(await payer.open(`/payment/open-link/pay?id=${open._id}`), {
        amount: '10.00',
        name: `Donor ${i}`,
        email: `donor${i}@example.com`,
        ...(i === 0 ? GOOD_CARD : DECLINED_CARD),
      });
      pageStatuses.push(answer.status);
      if (answer.location) locations.push(answer.location);
    }
    expect(pageStatuses).toEqual([303, ...Array<number>(PAGE_LIMIT).fill(402), 429, 429]);
    expect(Number((await sql('payments').where({ open_payment_link_id: open._id }).count({ n: '*' }).first())!.n)).toBe(PAGE_LIMIT + 1);
    const thanks = new URL(locations[0]!);
    const elsewhere = await new Payer(instances[1]!.url).get(thanks.pathname + thanks.search);
    expect(elsewhere.html).toContain('Payment received: RM 10.00');

    // Nothing failed: every API answer was a success or an expected conflict.
    expect(statuses.filter((s) => s !== 200 && s !== 409)).toEqual([]);
    for (const instance of instances) expect(instance.output()).not.toMatch(/failed:|Error/);
  }, 120_000);
});
