import type { DateRange } from '../domain/time.js';
import type { Executor } from './db.js';
import { toIsoMicros } from './timestamps.js';

export const PAYMENT_PAID = 1;
export const PAYMENT_PENDING = 2;
export const PAYMENT_FAILED = 3;

/** A successful payment made through an open payment link. */
export interface CollectionRecord {
  _id: string;
  /** Cents. */
  amount: bigint;
  payer_name: string | null;
  payer_email: string | null;
  created_at: string;
}

export interface CollectionTotals {
  /** Cents; a bigint because a popular link can outgrow 2^53 cents over its life. */
  total: bigint;
  count: number;
}

function collections(db: Executor, openPaymentLinkId: string, range: DateRange | undefined) {
  const query = db('payments').where({ open_payment_link_id: openPaymentLinkId, status_id: PAYMENT_PAID });
  if (range) query.where('created_at', '>=', range.start).andWhere('created_at', '<', range.end);
  return query;
}

function toCollection(row: { _id: string; amount: string | number; payer_name: string | null; payer_email: string | null; created_at: string }): CollectionRecord {
  return { _id: row._id, amount: BigInt(row.amount), payer_name: row.payer_name, payer_email: row.payer_email, created_at: toIsoMicros(row.created_at) };
}

const COLLECTION_COLUMNS = ['_id', 'amount', 'payer_name', 'payer_email', 'created_at'];

export async function collectionTotals(db: Executor, openPaymentLinkId: string, range?: DateRange): Promise<CollectionTotals> {
  // SUM is cast to text so neither driver rounds it through a double (PostgreSQL gives numeric for
  // SUM(bigint), SQLite an integer that node-sqlite3 would read as a JS number).
  const row = await collections(db, openPaymentLinkId, range)
    .select(db.raw('cast(coalesce(sum(amount), 0) as text) as total'), db.raw('count(*) as count'))
    .first();
  return { total: BigInt(row?.total ?? 0), count: Number(row?.count ?? 0) };
}

export async function recentCollections(db: Executor, openPaymentLinkId: string, limit: number, range?: DateRange): Promise<CollectionRecord[]> {
  const rows = await collections(db, openPaymentLinkId, range)
    .select(COLLECTION_COLUMNS)
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: '_id', order: 'desc' }])
    .limit(limit);
  return rows.map(toCollection);
}

export async function topCollections(db: Executor, openPaymentLinkId: string, limit: number, range?: DateRange): Promise<CollectionRecord[]> {
  const rows = await collections(db, openPaymentLinkId, range)
    .select(COLLECTION_COLUMNS)
    .orderBy([{ column: 'amount', order: 'desc' }, { column: 'created_at', order: 'desc' }, { column: '_id', order: 'desc' }])
    .limit(limit);
  return rows.map(toCollection);
}
