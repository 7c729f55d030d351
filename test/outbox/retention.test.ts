// Delivered and dead outbox entries, and their attempts, are deleted once past the retention, in
// small batches, by the worker; pending entries and newer ones stay.
import { beforeEach, describe, expect, it } from 'vitest';
import { OutboxWorker } from '../../server/outbox/worker.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { enqueue, listOutbox, pruneSettled, type OutboxStatus } from '../../server/store/outbox.js';
import { isoMicros } from '../../server/domain/time.js';
import { useMigratedDatabase } from '../support/store.js';
import { waitFor } from '../support/wait.js';

const store = useMigratedDatabase('retention');
const DAY = 86_400_000;

beforeEach(async () => {
  await store.sql('outbox_attempts').delete();
  await store.sql('outbox').delete();
});

/** An entry as it would be `daysAgo` days after it settled (or, pending, was last tried), with `attempts` attempts recorded. */
async function entry(label: string, status: OutboxStatus, daysAgo: number, attempts: number): Promise<number> {
  const business = await findOrCreateBusiness(store.db, 'Retention');
  const id = await enqueue(store.db, { business_id: business.id, channel: 'email', topic: label, payload: {} });
  const at = isoMicros(new Date(Date.now() - daysAgo * DAY));
  await store
    .sql('outbox')
    .where({ id })
    .update({ status, attempts, created_at: at, next_attempt_at: at, updated_at: at, delivered_at: status === 'delivered' ? at : null });
  for (let n = 1; n <= attempts; n += 1) {
    await store.sql('outbox_attempts').insert({
      outbox_id: id,
      attempt: n,
      worker: 'w',
      started_at: at,
      finished_at: at,
      outcome: n === attempts && status === 'delivered' ? 'delivered' : 'failed',
      error: null,
    });
  }
  return id;
}

async function seed() {
  const old = [
    await entry('delivered 400 days ago', 'delivered', 400, 1),
    await entry('delivered 31 days ago', 'delivered', 31, 3),
    await entry('delivered 30 days and a bit ago', 'delivered', 30.01, 1),
    await entry('dead 60 days ago', 'dead', 60, 12),
    await entry('dead 45 days ago', 'dead', 45, 2),
  ];
  const kept = [
    await entry('delivered 29 days ago', 'delivered', 29, 2),
    await entry('delivered today', 'delivered', 0, 1),
    await entry('dead 10 days ago', 'dead', 10, 12),
    // Still to be delivered, however long ago it was enqueued or last tried.
    await entry('pending for 90 days', 'pending', 90, 4),
    await entry('pending, never tried', 'pending', 40, 0),
  ];
  return { old, kept };
}

const attemptCounts = async () =>
  Object.fromEntries(
    ((await store.sql('outbox_attempts').select('outbox_id').count({ n: '*' }).groupBy('outbox_id')) as { outbox_id: number; n: number | string }[]).map(
      (row) => [Number(row.outbox_id), Number(row.n)],
    ),
  );

describe('outbox retention', () => {
  it('deletes delivered and dead entries past the retention with their attempts, in batches, keeping newer and pending ones', async () => {
    const { old, kept } = await seed();
    const attemptsBefore = await attemptCounts();

    const result = await pruneSettled(store.db, { before: new Date(Date.now() - 30 * DAY), batchSize: 2 });

    // Three old delivered entries in batches of two and two old dead ones in one.
    expect(result).toEqual({ deleted: 5, batches: 3 });
    expect((await listOutbox(store.db)).map((e) => e.id)).toEqual(kept);
    const attemptsAfter = await attemptCounts();
    for (const id of old) expect(attemptsAfter[id], `attempts of ${id}`).toBeUndefined();
    for (const id of kept) expect(attemptsAfter[id], `attempts of ${id}`).toBe(attemptsBefore[id]);

    // Nothing more to do on a second run.
    expect(await pruneSettled(store.db, { before: new Date(Date.now() - 30 * DAY), batchSize: 2 })).toEqual({ deleted: 0, batches: 0 });
  });

  it('is run by the worker with the configured number of days', async () => {
    const { kept } = await seed();
    const idle = async () => undefined;
    const worker = new OutboxWorker(
      store.db,
      { email: idle, webhook: idle },
      {
        pollMs: 1_000,
        leaseMs: 30_000,
        concurrency: 1,
        perBusinessConcurrency: 1,
        retry: { baseMs: 1_000, capMs: 1_000, maxAttempts: 1 },
        retention: { days: 30, intervalMs: 3_600_000, batchSize: 2 },
      },
    );
    // Only settled entries may go: the pending ones are left to the worker to deliver, so they are not due yet.
    await store
      .sql('outbox')
      .where({ status: 'pending' })
      .update({ next_attempt_at: isoMicros(new Date(Date.now() + DAY)) });
    worker.start();
    try {
      await waitFor('the old entries to be deleted', async () => (await listOutbox(store.db)).length === kept.length);
      expect((await listOutbox(store.db)).map((e) => e.id)).toEqual(kept);
    } finally {
      await worker.stop();
    }
  });
});
