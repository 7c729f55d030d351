// The reconciliation export's reads: every matching payment of a business, a batch at a time.
import type { Executor } from './executor.js';
import { paymentsMatching, type PaymentFilters } from './payment-lists.js';
import { toPayment, type PaymentRecord } from './payments.js';

/**
 * Every matching payment, oldest first, in batches of `batchSize` rows, each read from where the
 * last one ended (created_at, _id) through the same indexes as a page: an export of any length
 * holds at most two batches in memory and each batch costs the same however far into the list it is.
 * The next batch is asked for as soon as one arrives, before the reader works through it: its read
 * (in SQLite's reader thread, or on a PostgreSQL connection) overlaps the rendering of the lines.
 */
export async function* eachPaymentBatch(db: Executor, businessId: number, filters: PaymentFilters, batchSize = 500): AsyncGenerator<PaymentRecord[]> {
  const read = (after?: { created_at: string; _id: string }) => {
    const query = paymentsMatching(db, businessId, filters);
    if (after)
      // A row value, not `a > x or (a = x and b > y)`: both databases seek the index to it, where
      // SQLite read the OR form from the start of the business's payments for every batch.
      query.andWhere(db.sql.raw('(created_at, _id) > (?, ?)', [after.created_at, after._id]));
    const rows = db.all<PaymentRecord>(
      query
        .orderBy([
          { column: 'created_at', order: 'asc' },
          { column: '_id', order: 'asc' },
        ])
        .limit(batchSize),
    );
    // A reader that stops early leaves the read ahead unawaited: its failure is nobody's to report.
    rows.catch(() => {});
    return rows;
  };
  let next: Promise<PaymentRecord[]> | undefined = read();
  while (next) {
    const rows: PaymentRecord[] = await next;
    const last = rows[rows.length - 1];
    next = rows.length === batchSize && last ? read({ created_at: last.created_at, _id: last._id }) : undefined;
    if (rows.length > 0) yield rows.map(toPayment);
  }
}
