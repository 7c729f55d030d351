// How many payer e-mails each business's API calls had the service send, per UTC day (migration 0024).
import type { Executor } from './executor.js';

/** Payer e-mails a business's API calls may have the service send per UTC day, unless PAYER_EMAILS_PER_DAY says otherwise. */
export const DEFAULT_PAYER_EMAILS_PER_DAY = 1_000;

/**
 * Counts one more e-mail for the business on `day` unless it has sent `limit` already: true when
 * counted. One statement, whose conflict clause re-reads the row it updates, so two requests at
 * once (on either database) never both take the last one; the caller's transaction undoes the
 * count if what it was for does not commit.
 */
export async function countPayerEmail(db: Executor, businessId: number, day: string, limit: number): Promise<boolean> {
  if (limit < 1) return false;
  const rows = await db.all<{ sent: number | string }>(
    db
      .sql('payer_email_counts')
      .insert({ business_id: businessId, day, sent: 1 })
      .onConflict(['business_id', 'day'])
      .merge({ sent: db.sql.raw('?? + 1', ['payer_email_counts.sent']) })
      .where('payer_email_counts.sent', '<', limit)
      .returning('sent'),
  );
  return rows.length === 1;
}

/** Days before `day` are of no use any more. */
export async function deletePayerEmailCountsBefore(db: Executor, day: string): Promise<number> {
  return db.run(db.sql('payer_email_counts').where('day', '<', day).delete());
}
