// A payout's itemized report: each entry it took, with the payment it comes from (a refund's
// through its refund), read in batches in the order of the ledger.
import type { Executor } from './executor.js';
import { toIsoMicros } from './timestamps.js';

export interface PayoutReportRow {
  _id: string;
  type: string;
  created_at: string;
  available_on: string;
  source_type: string;
  source_id: string;
  currency: string;
  amount: number;
  fee: number;
  net: number;
  payment_id: string | null;
  reference: string | null;
  payer_name: string | null;
  payer_email: string | null;
  method: string | null;
}

/** The next `limit` entries of the payout after `after` (oldest first). */
export async function payoutReportRows(
  db: Executor,
  payoutId: string,
  after: { created_at: string; _id: string } | null,
  limit: number,
): Promise<PayoutReportRow[]> {
  const query = db
    .sql('balance_transactions as bt')
    .leftJoin('refunds as r', function joinRefund() {
      this.on('r._id', '=', 'bt.source_id').andOn('bt.source_type', '=', db.sql.raw('?', ['refund']));
    })
    .leftJoin('payments as p', function joinPayment() {
      this.on('p._id', '=', db.sql.raw('coalesce(??, ??)', ['r.payment_id', 'bt.source_id'])).andOn('bt.source_type', '<>', db.sql.raw('?', ['payout']));
    })
    .where('bt.payout_id', payoutId)
    .select(
      'bt._id',
      'bt.type',
      'bt.created_at',
      'bt.available_on',
      'bt.source_type',
      'bt.source_id',
      'bt.currency',
      'bt.amount',
      'bt.fee',
      'bt.net',
      'p._id as payment_id',
      'p.reference',
      'p.payer_name',
      'p.payer_email',
      'p.method',
    );
  if (after)
    query.andWhere((q) =>
      q.where('bt.created_at', '>', after.created_at).orWhere((same) => same.where('bt.created_at', after.created_at).andWhere('bt._id', '>', after._id)),
    );
  const rows = await db.all<PayoutReportRow>(query.orderBy([{ column: 'bt.created_at' }, { column: 'bt._id' }]).limit(limit));
  return rows.map((row) => ({ ...row, amount: Number(row.amount), fee: Number(row.fee), net: Number(row.net), created_at: toIsoMicros(row.created_at) }));
}
