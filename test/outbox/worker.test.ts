// Several workers on one database (as several server processes would run them) never deliver the
// same entry twice, and an entry whose worker died is picked up once its lease runs out.
import { beforeAll, describe, expect, it } from 'vitest';
import { nextAttemptAt, retryDelayMs } from '../../server/outbox/schedule.js';
import { OutboxWorker } from '../../server/outbox/worker.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { claimDue, enqueue, listOutbox, type OutboxEntry } from '../../server/store/outbox.js';
import { useMigratedDatabase } from '../support/store.js';
import { waitFor } from '../support/wait.js';

const store = useMigratedDatabase('worker');
let businessId: number;
beforeAll(async () => {
  businessId = (await findOrCreateBusiness(store.db, 'Workers')).id;
});

const retry = { baseMs: 20, capMs: 100, maxAttempts: 3 };

describe('outbox workers', () => {
  it('four workers draining 200 entries deliver each exactly once', async () => {
    for (let i = 0; i < 200; i += 1) await enqueue(store.db, { business_id: businessId, channel: 'webhook', topic: 'test', payload: { n: i } });
    const deliveries = new Map<number, number>();
    const slow = async (entry: OutboxEntry) => {
      deliveries.set(entry.id, (deliveries.get(entry.id) ?? 0) + 1);
      // eslint-disable-next-line no-restricted-syntax -- a receiver answering late, at random, is the scenario; the test waits on the deliveries, not on this
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    };
    const workers = Array.from(
      { length: 4 },
      () => new OutboxWorker(store.db, { email: slow, webhook: slow }, { pollMs: 5, leaseMs: 30_000, concurrency: 7, perBusinessConcurrency: 7, retry }),
    );
    workers.forEach((worker) => worker.start());
    await waitFor('all deliveries', async () => (await listOutbox(store.db, { topic: 'test', status: 'delivered' })).length === 200, 30_000);
    await Promise.all(workers.map((worker) => worker.stop()));
    expect(deliveries.size).toBe(200);
    expect([...deliveries.values()].every((count) => count === 1)).toBe(true);
  });

  it('does not hand a leased entry to another worker until the lease expires', async () => {
    await enqueue(store.db, { business_id: businessId, channel: 'email', topic: 'lease', payload: {} });
    const now = new Date();
    const [claimed] = await claimDue(store.db, 'worker-that-dies', 1_000, 10, now);
    expect(claimed?.topic).toBe('lease');
    expect(await claimDue(store.db, 'other', 1_000, 10, new Date(now.getTime() + 999))).toHaveLength(0);
    const [reclaimed] = await claimDue(store.db, 'other', 1_000, 10, new Date(now.getTime() + 1_001));
    expect(reclaimed).toMatchObject({ id: claimed!.id, attempts: 2 });
  });
});

describe('retry schedule', () => {
  const policy = { baseMs: 30_000, capMs: 6 * 3_600_000, maxAttempts: 12 };
  it('triples the backoff after each failure, up to the cap, with jitter between half and all of it', () => {
    expect(retryDelayMs(1, policy, () => 1)).toBe(30_000);
    expect(retryDelayMs(2, policy, () => 1)).toBe(90_000);
    expect(retryDelayMs(3, policy, () => 0)).toBe(135_000);
    expect(retryDelayMs(11, policy, () => 1)).toBe(policy.capMs);
  });

  it('stops after the last attempt', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(nextAttemptAt(11, policy, now, () => 1)?.getTime()).toBe(now.getTime() + policy.capMs);
    expect(nextAttemptAt(12, policy, now)).toBeNull();
  });
});
