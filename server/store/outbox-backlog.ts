// What the outbox has not delivered yet, for the metrics: how many entries (counted up to a cap, so a
// large backlog costs a bounded read on SQLite's one thread) and when the oldest of those was made.
import type { Executor } from './executor.js';

export const BACKLOG_COUNT_CAP = 10_000;

export async function outboxBacklog(db: Executor, now = new Date()): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const pending = db.sql('outbox').select('created_at').where('status', 'pending').limit(BACKLOG_COUNT_CAP);
  const row = await db.first<{ pending: number | string; oldest: string | Date | null }>(
    db.sql.from(pending.as('pending')).select(db.sql.raw('count(*) as pending'), db.sql.raw('min(created_at) as oldest')),
  );
  const oldest = row?.oldest ? new Date(row.oldest) : undefined;
  return {
    pending: Number(row?.pending ?? 0),
    oldestAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
