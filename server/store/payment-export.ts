// The reconciliation export's reads: every matching payment of a business, a batch at a time.
import type { Executor } from './executor.js';
import { paymentsMatching, type PaymentFilters } from './payment-lists.js';
import { toPayment, type PaymentRecord } from './payments.js';

/**
 * Every matching payment, oldest first, in batches of `batchSize` rows, each read from where the
 * last one ended (created_at, _id) through the same indexes as a page: an export of any length
 * holds one batch in memory and each batch costs the same however far into the list it is.
 */
export async function* eachPaymentBatch(db: Executor, businessId: number, filters: PaymentFilters, batchSize = 500): AsyncGenerator<PaymentRecord[]> {
  let after: { created_at: string; _id: string } | undefined;
  for (;;) {
    const query = paymentsMatching(db, businessId, filters);
    if (after) {
      const { created_at, _id } = after;
      // A row value, not `a > x or (a = x and b > y)`: both databases seek the index to it, where
      // SQLite read the OR form from the start of the business's payments for every batch.
      query.andWhere(db.sql.raw('(created_at, _id) > (?, ?)', [created_at, _id]));
    }
    const rows = await db.all<PaymentRecord>(
      query
        .orderBy([
          { column: 'created_at', order: 'asc' },
          { column: '_id', order: 'asc' },
        ])
        .limit(batchSize),
    );
    if (rows.length > 0) yield rows.map(toPayment);
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1]!;
    after = { created_at: last.created_at, _id: last._id };
  }
}
