// Per-business daily quotas (payer e-mails, invitations): one row per business and UTC day in a table
// of its own, bumped in the transaction that does what it counts, by one statement that refuses to
// pass the day's cap, so concurrent requests on either database cannot pass it either.
import type { Executor } from './executor.js';

export type DailyCountTable = 'payer_email_counts' | 'invitation_counts';

/**
 * Counts one more for the business on `day` unless it has `limit` already: true when counted. The
 * conflict clause re-reads the row it updates, so two requests at once never both take the last one;
 * the caller's transaction undoes the count if what it was for does not commit.
 */
export async function countOneMore(db: Executor, table: DailyCountTable, businessId: number, day: string, limit: number): Promise<boolean> {
  if (limit < 1) return false;
  const rows = await db.all<{ sent: number | string }>(
    db
      .sql(table)
      .insert({ business_id: businessId, day, sent: 1 })
      .onConflict(['business_id', 'day'])
      .merge({ sent: db.sql.raw('?? + 1', [`${table}.sent`]) })
      .where(`${table}.sent`, '<', limit)
      .returning('sent'),
  );
  return rows.length === 1;
}

/** Days before `day` are of no use any more. */
export async function deleteDailyCountsBefore(db: Executor, table: DailyCountTable, day: string): Promise<number> {
  return db.run(db.sql(table).where('day', '<', day).delete());
}
