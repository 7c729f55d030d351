import type { DateRange } from '../domain/time.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../domain/statuses.js';
import type { Executor } from './executor.js';
import { fetchPage, whereCreatedBetween, type Page, type PageRequest } from './pagination.js';
import { nowIso, toIsoMicros } from './timestamps.js';

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
  const row = await db.first<{ total: string; count: number | string }>(
    collections(db, openPaymentLinkId, range).select(db.sql.raw('cast(coalesce(sum(amount), 0) as text) as total'), db.sql.raw('count(*) as count')),
  );
  return { total: BigInt(row?.total ?? 0), count: Number(row?.count ?? 0) };
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

export interface PaymentRecord {
  _id: string;
  business_id: number;
  payment_link_id: string | null;
  open_payment_link_id: string | null;
  attempt_id: string;
  /** Cents. */
  amount: number;
  currency: string;
  status_id: number;
  payer_name: string | null;
  payer_email: string | null;
  method: string;
  provider: string;
  provider_reference: string | null;
  card_brand: string | null;
  card_last4: string | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

export type NewPayment = Pick<
  PaymentRecord,
  | '_id'
  | 'business_id'
  | 'payment_link_id'
  | 'open_payment_link_id'
  | 'attempt_id'
  | 'amount'
  | 'currency'
  | 'payer_name'
  | 'payer_email'
  | 'method'
  | 'provider'
>;

function toPayment(row: PaymentRecord): PaymentRecord {
  return {
    ...row,
    business_id: Number(row.business_id),
    amount: Number(row.amount),
    status_id: Number(row.status_id),
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

/** Records an attempt before the acquirer is called, so nothing charged can go unrecorded. */
export async function insertPendingPayment(db: Executor, payment: NewPayment): Promise<PaymentRecord> {
  const now = nowIso();
  const row = {
    ...payment,
    status_id: PAYMENT_PENDING,
    provider_reference: null,
    card_brand: null,
    card_last4: null,
    failure_code: null,
    failure_message: null,
    created_at: now,
    updated_at: now,
  };
  await db.run(db.sql('payments').insert(row));
  return toPayment(row);
}

export async function findPayment(db: Executor, id: string): Promise<PaymentRecord | undefined> {
  const row = await db.first<PaymentRecord>(db.sql('payments').where({ _id: id }));
  return row ? toPayment(row) : undefined;
}

export async function findPaymentByAttempt(db: Executor, attemptId: string): Promise<PaymentRecord | undefined> {
  const row = await db.first<PaymentRecord>(db.sql('payments').where({ attempt_id: attemptId }));
  return row ? toPayment(row) : undefined;
}

export interface CardSummary {
  card_brand: string;
  card_last4: string;
}

export async function markPaymentPaid(db: Executor, id: string, providerReference: string, card: CardSummary): Promise<PaymentRecord> {
  const [row] = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where({ _id: id, status_id: PAYMENT_PENDING })
      .update({ status_id: PAYMENT_PAID, provider_reference: providerReference, ...card, updated_at: nowIso() })
      .returning('*'),
  );
  if (!row) throw new Error(`payment ${id} was not pending`);
  return toPayment(row);
}

export async function markPaymentFailed(db: Executor, id: string, failure: { code: string; message: string }, card?: CardSummary): Promise<PaymentRecord> {
  const [row] = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where({ _id: id, status_id: PAYMENT_PENDING })
      .update({ status_id: PAYMENT_FAILED, failure_code: failure.code, failure_message: failure.message.slice(0, 200), ...card, updated_at: nowIso() })
      .returning('*'),
  );
  if (!row) throw new Error(`payment ${id} was not pending`);
  return toPayment(row);
}

/** Every attempt to pay one link (payment link or open link), oldest first. */
export async function listPaymentsForLink(db: Executor, linkId: string): Promise<PaymentRecord[]> {
  const rows = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where((q) => q.where({ payment_link_id: linkId }).orWhere({ open_payment_link_id: linkId }))
      .orderBy([{ column: 'created_at' }, { column: '_id' }]),
  );
  return rows.map(toPayment);
}

/** `GET /api/payments` filters; each an exact match, all combined. */
export interface PaymentFilters {
  statusId?: number;
  paymentLinkId?: string;
  openPaymentLinkId?: string;
  method?: string;
  payerEmail?: string;
  createdBetween?: DateRange;
}

/** A business's payment by id. */
export async function findBusinessPayment(db: Executor, businessId: number, id: string): Promise<PaymentRecord | undefined> {
  const row = await db.first<PaymentRecord>(db.sql('payments').where({ business_id: businessId, _id: id }));
  return row ? toPayment(row) : undefined;
}

/** A page of a business's payments; every filter is served by an index that starts with business_id (migration 0011). */
export async function listPayments(db: Executor, businessId: number, filters: PaymentFilters, page: PageRequest): Promise<Page<PaymentRecord>> {
  const query = db.sql('payments').where({ business_id: businessId });
  if (filters.statusId !== undefined) query.where('status_id', filters.statusId);
  if (filters.paymentLinkId !== undefined) query.where('payment_link_id', filters.paymentLinkId);
  if (filters.openPaymentLinkId !== undefined) query.where('open_payment_link_id', filters.openPaymentLinkId);
  if (filters.method !== undefined) query.where('method', filters.method);
  if (filters.payerEmail !== undefined) query.where('payer_email', filters.payerEmail);
  whereCreatedBetween(query, filters.createdBetween);
  return fetchPage(db, query, page, toPayment);
}
