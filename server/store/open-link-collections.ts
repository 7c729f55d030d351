// An open payment link's collections: its successful payments, their totals, the latest and the largest.
import type { DateRange } from '../domain/time.js';
import { PAYMENT_PAID } from '../domain/statuses.js';
import type { Executor } from './executor.js';
import { toIsoMicros } from './timestamps.js';

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
  /** Cents refunded of those collections. */
  refunded: bigint;
}

function collections(db: Executor, openPaymentLinkId: string, range: DateRange | undefined) {
  const query = db.sql('payments').where({ open_payment_link_id: openPaymentLinkId, status_id: PAYMENT_PAID });
  if (range) query.where('created_at', '>=', range.start).andWhere('created_at', '<=', range.end);
  return query;
}

interface CollectionRow {
  _id: string;
  amount: string | number;
  payer_name: string | null;
  payer_email: string | null;
  created_at: string;
}

function toCollection(row: CollectionRow): CollectionRecord {
  return { _id: row._id, amount: BigInt(row.amount), payer_name: row.payer_name, payer_email: row.payer_email, created_at: toIsoMicros(row.created_at) };
}

const COLLECTION_COLUMNS = ['_id', 'amount', 'payer_name', 'payer_email', 'created_at'];

export async function collectionTotals(db: Executor, openPaymentLinkId: string, range?: DateRange): Promise<CollectionTotals> {
  // SUM is cast to text so neither driver rounds it through a double (PostgreSQL gives numeric for
  // SUM(bigint), SQLite an integer that the SQLite driver would read as a JS number).
  const row = await db.first<{ total: string; count: number | string; refunded: string }>(
    collections(db, openPaymentLinkId, range).select(
      db.sql.raw('cast(coalesce(sum(amount), 0) as text) as total'),
      db.sql.raw('count(*) as count'),
      db.sql.raw('cast(coalesce(sum(amount_refunded), 0) as text) as refunded'),
    ),
  );
  return { total: BigInt(row?.total ?? 0), count: Number(row?.count ?? 0), refunded: BigInt(row?.refunded ?? 0) };
}

export async function recentCollections(db: Executor, openPaymentLinkId: string, limit: number, range?: DateRange): Promise<CollectionRecord[]> {
  const rows = await db.all<CollectionRow>(
    collections(db, openPaymentLinkId, range)
      .select(COLLECTION_COLUMNS)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: '_id', order: 'desc' },
      ])
      .limit(limit),
  );
  return rows.map(toCollection);
}

export async function topCollections(db: Executor, openPaymentLinkId: string, limit: number, range?: DateRange): Promise<CollectionRecord[]> {
  const rows = await db.all<CollectionRow>(
    collections(db, openPaymentLinkId, range)
      .select(COLLECTION_COLUMNS)
      .orderBy([
        { column: 'amount', order: 'desc' },
        { column: 'created_at', order: 'desc' },
        { column: '_id', order: 'desc' },
      ])
      .limit(limit),
  );
  return rows.map(toCollection);
}
