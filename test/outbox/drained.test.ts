// OutboxWorker.drained(), which tests await instead of sleeping "long enough for nothing more to
// arrive": it waits for a delivery in flight to be settled and for entries due that the worker has
// not looked at yet, and not for a retry scheduled later.
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxWorker, type WorkerOptions } from '../../server/outbox/worker.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { enqueue, listOutbox, type OutboxEntry } from '../../server/store/outbox.js';
import { useMigratedDatabase } from '../support/store.js';
import { waitFor } from '../support/wait.js';

const store = useMigratedDatabase('drained');
let businessId: number;
beforeAll(async () => {
  businessId = (await findOrCreateBusiness(store.db, 'Drained')).id;
});

// A poll interval no test lasts: after its first pass the worker looks again only when nudged, so an
// entry enqueued behind its back is found by drained() or not at all.
const options: WorkerOptions = {
  pollMs: 600_000,
  leaseMs: 30_000,
  concurrency: 4,
  perBusinessConcurrency: 4,
  retry: { baseMs: 600_000, capMs: 600_000, maxAttempts: 3 },
};

async function withWorker(deliver: (entry: OutboxEntry) => Promise<unknown>, work: (worker: OutboxWorker) => Promise<void>): Promise<void> {
  const worker = new OutboxWorker(store.db, { email: deliver, webhook: deliver }, options);
  worker.start();
  try {
    await work(worker);
  } finally {
    await worker.stop();
  }
}

const statusOf = async (topic: string) => (await listOutbox(store.db, { topic })).map((entry) => entry.status);

describe('OutboxWorker.drained()', () => {
  it('waits for a delivery in flight until it is recorded', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await enqueue(store.db, { business_id: businessId, channel: 'webhook', topic: 'held', payload: {} });
    await withWorker(
      async () => held,
      async (worker) => {
        await waitFor('the delivery to start', () => worker.inFlightCount() === 1);
        let settled = false;
        const drained = worker.drained().then(() => (settled = true));
        // Round trips to the database: time for a drained() that looked only at the outbox's rows.
        for (let i = 0; i < 3; i += 1) expect(await statusOf('held')).toEqual(['pending']);
        expect(settled).toBe(false);
        release();
        await drained;
        expect(await statusOf('held')).toEqual(['delivered']);
      },
    );
  });

  it('finds entries due that the worker has not looked at yet, and delivers them first', async () => {
    await withWorker(
      async () => undefined,
      async (worker) => {
        await worker.drained();
        // Enqueued without a nudge (as another process's commit would be): the next poll is far off.
        await enqueue(store.db, { business_id: businessId, channel: 'email', topic: 'unseen', payload: {} });
        await worker.drained();
        expect(await statusOf('unseen')).toEqual(['delivered']);
      },
    );
  });

  it('does not wait for a retry scheduled later: nothing is due now', async () => {
    await enqueue(store.db, { business_id: businessId, channel: 'email', topic: 'refused', payload: {} });
    const attempts: number[] = [];
    await withWorker(
      async (entry) => {
        attempts.push(entry.attempts);
        throw new Error('refused');
      },
      async (worker) => {
        await worker.drained();
        const [entry] = await listOutbox(store.db, { topic: 'refused' });
        expect(attempts).toEqual([1]);
        expect(entry).toMatchObject({ status: 'pending', attempts: 1 });
        expect(Date.parse(entry!.next_attempt_at)).toBeGreaterThan(Date.now() + 60_000);
      },
    );
  });

  it('rejects once the worker is stopped', async () => {
    const worker = new OutboxWorker(store.db, { email: async () => undefined, webhook: async () => undefined }, options);
    await expect(worker.drained()).rejects.toThrow(/stopped/);
  });
});
