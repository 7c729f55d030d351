// How many payer e-mails each business's API calls had the service send, per UTC day (`migrations/0025_payer_email_counts.ts`; counted through daily-counts.ts).
import { countOneMore, deleteDailyCountsBefore } from './daily-counts.js';
import type { Executor } from './executor.js';

/** Payer e-mails a business's API calls may have the service send per UTC day, unless PAYER_EMAILS_PER_DAY says otherwise. */
export const DEFAULT_PAYER_EMAILS_PER_DAY = 1_000;

/** Counts one more e-mail for the business on `day` unless it has sent `limit` already: true when counted. */
export async function countPayerEmail(db: Executor, businessId: number, day: string, limit: number): Promise<boolean> {
  return countOneMore(db, 'payer_email_counts', businessId, day, limit);
}

/** Days before `day` are of no use any more. */
export async function deletePayerEmailCountsBefore(db: Executor, day: string): Promise<number> {
  return deleteDailyCountsBefore(db, 'payer_email_counts', day);
}
