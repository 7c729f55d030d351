// Two statements update several outbox rows at once: a worker's claim and a queue put off by the
// circuit breaker. On PostgreSQL, two such statements taking rows in opposite orders deadlock (the
// edge suite met "deadlock detected" from a deferral); so each takes only the rows it can lock at
// once, in id order, and leaves a row another transaction holds to it (store/outbox.ts,
// lockedInOrder). A statement that never waits for a lock cannot be part of a deadlock. SQLite has one
// writer: nothing to hold a row against it, so the test runs on PostgreSQL.
import { describe, expect, it } from 'vitest';
import { claimEntries, deferQueue, enqueue } from '../../server/store/outbox.js';
import { useMigratedDatabase } from '../support/store.js';

const store = useMigratedDatabase('outbox-locks');
const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);

/** Resolves with what `work` answered, or 'waited' when it had not answered after `ms`. */
async function withinMs<T>(work: Promise<T>, ms: number): Promise<T | 'waited'> {
  let timer: NodeJS.Timeout | undefined;
  // eslint-disable-next-line no-restricted-syntax -- a deadline raced against the work, cleared when the work answers first
  const late = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('statements over several outbox rows', () => {
  it.skipIf(!onPostgres)('never wait for a row another transaction holds: a claim and a deferral go on without it', async () => {
    const [business] = await store.sql('businesses').insert({ name: 'Busy', created_at: new Date().toISOString() }).returning('id');
    const businessId = Number((business as { id: number }).id);
    const ids: number[] = [];
    for (let n = 0; n < 6; n += 1)
      ids.push(await enqueue(store.db, { business_id: businessId, channel: 'webhook', topic: 'payment.created', payload: { id: `evt_${n}` } }));
    const held = ids[2]!;
    const holder = await store.sql.transaction();
    try {
      await holder('outbox').where({ id: held }).forUpdate().select('id');
      const later = new Date(Date.now() + 60_000);
      expect(await withinMs(deferQueue(store.db, { business_id: businessId, channel: 'webhook' }, later), 2_000)).toBe(ids.length - 1);
      const claimed = await withinMs(claimEntries(store.db, 'worker', ids, 30_000, new Date(later.getTime() + 1_000)), 2_000);
      expect(claimed === 'waited' ? claimed : claimed.map((entry) => entry.id)).toEqual(ids.filter((id) => id !== held));
    } finally {
      await holder.rollback();
    }
  });
});
