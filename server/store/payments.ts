import type { DateRange } from '../domain/time.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING, REFUND_FULL, REFUND_NONE, REFUND_PARTIAL } from '../domain/statuses.js';
import { OPEN_LINK_PAYMENT_COUNTS, PAYMENT_COUNTS } from './counters/declaration.js';
import { countOf } from './record-counts.js';
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
  /** The acquirer's page (Stripe: its Checkout Session) a hosted payment was taken on. */
  provider_session: string | null;
  card_brand: string | null;
  card_last4: string | null;
  failure_code: string | null;
  failure_message: string | null;
  /** Cents given back so far, refunds still at the acquirer included. */
  amount_refunded: number;
  /** 0 nothing refunded, 1 partly, 2 fully. */
  refund_state: number;
  /** The token a charge was made on (then both link ids are null). */
  tokenization_id: string | null;
  reference: string | null;
  description: string | null;
  /** While pending on a hosted acquirer's page: which of its link's checkout slots it holds. */
  checkout_slot: number | null;
  /** The payer's browser that opened that checkout (an HMAC of its form cookie). */
  checkout_payer: string | null;
  created_at: string;
  updated_at: string;
}

export type NewPayment = Partial<Pick<PaymentRecord, 'checkout_slot' | 'checkout_payer'>> &
  Pick<
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
    | 'tokenization_id'
    | 'reference'
    | 'description'
  >;

function toPayment(row: PaymentRecord): PaymentRecord {
  return {
    ...row,
    business_id: Number(row.business_id),
    amount: Number(row.amount),
    status_id: Number(row.status_id),
    checkout_slot: row.checkout_slot === null || row.checkout_slot === undefined ? null : Number(row.checkout_slot),
    amount_refunded: Number(row.amount_refunded),
    refund_state: Number(row.refund_state),
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

/** Records an attempt before the acquirer is called, so nothing charged can go unrecorded. */
export async function insertPendingPayment(db: Executor, payment: NewPayment): Promise<PaymentRecord> {
  const now = nowIso();
  const row = {
    checkout_slot: null,
    checkout_payer: null,
    ...payment,
    status_id: PAYMENT_PENDING,
    provider_reference: null,
    provider_session: null,
    card_brand: null,
    card_last4: null,
    failure_code: null,
    failure_message: null,
    amount_refunded: 0,
    refund_state: REFUND_NONE,
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

/** What settling a pending payment writes beside its new state. */
export interface PendingChanges {
  status_id?: number;
  provider_reference?: string;
  method?: string;
  card_brand?: string | null;
  card_last4?: string | null;
  failure_code?: string;
  failure_message?: string;
  updated_at: string;
}

/** Moves a payment still pending; undefined when it is no longer pending (settled meanwhile by another path). */
export async function updatePendingPayment(db: Executor, id: string, changes: PendingChanges): Promise<PaymentRecord | undefined> {
  const [row] = await db.all<PaymentRecord>(db.sql('payments').where({ _id: id, status_id: PAYMENT_PENDING }).update(changes).returning('*'));
  return row ? toPayment(row) : undefined;
}

async function updateStillPending(db: Executor, id: string, changes: PendingChanges): Promise<PaymentRecord> {
  const payment = await updatePendingPayment(db, id, changes);
  if (!payment) throw new Error(`payment ${id} was not pending`);
  return payment;
}

/** `at`: when the payment is recorded, the same instant its link's claim was decided at. */
export async function markPaymentPaid(db: Executor, id: string, providerReference: string, card: CardSummary, at: string = nowIso()): Promise<PaymentRecord> {
  return updateStillPending(db, id, { status_id: PAYMENT_PAID, provider_reference: providerReference, ...card, updated_at: at });
}

/** The acquirer took the attempt but settles it later: it stays pending, with the acquirer's reference. */
export async function markPaymentAwaitingProvider(db: Executor, id: string, providerReference: string, card?: CardSummary): Promise<PaymentRecord> {
  return updateStillPending(db, id, { provider_reference: providerReference, ...card, updated_at: nowIso() });
}

/** The acquirer's page (a hosted checkout session) this pending payment is being paid on. */
export async function setPaymentSession(db: Executor, id: string, sessionId: string): Promise<void> {
  await db.run(db.sql('payments').where({ _id: id, status_id: PAYMENT_PENDING }).update({ provider_session: sessionId, updated_at: nowIso() }));
}

export async function findPaymentBySession(db: Executor, provider: string, sessionId: string): Promise<PaymentRecord | undefined> {
  const row = await db.first<PaymentRecord>(db.sql('payments').where({ provider_session: sessionId, provider }));
  return row ? toPayment(row) : undefined;
}

/** A business's payment by the acquirer's reference (Stripe: its PaymentIntent). */
export async function findPaymentByProviderReference(
  db: Executor,
  businessId: number,
  provider: string,
  reference: string,
): Promise<PaymentRecord | undefined> {
  const row = await db.first<PaymentRecord>(db.sql('payments').where({ provider, provider_reference: reference, business_id: businessId }));
  return row ? toPayment(row) : undefined;
}

/** Other attempts still open on a hosted page for the same payment link: they must not take a second payment. */
export async function listOpenSessionsOfLink(db: Executor, paymentLinkId: string, except: string): Promise<PaymentRecord[]> {
  const rows = await db.all<PaymentRecord>(
    db.sql('payments').where({ payment_link_id: paymentLinkId, status_id: PAYMENT_PENDING }).whereNotNull('provider_session').andWhereNot('_id', except),
  );
  return rows.map(toPayment);
}

/** The payments holding checkout slots of a link: those pending on a hosted acquirer's page. */
export async function listOpenCheckouts(db: Executor, link: { kind: 'payment_link' | 'open_payment_link'; id: string }): Promise<PaymentRecord[]> {
  const rows = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where({ [`${link.kind}_id`]: link.id, status_id: PAYMENT_PENDING })
      .whereNotNull('checkout_slot'),
  );
  return rows.map(toPayment);
}

/**
 * Sets `amount` aside from what is left to refund of a paid payment, in one guarded statement: of
 * concurrent refunds, those that would take the total past the amount paid change no row.
 */
export async function reserveRefund(db: Executor, id: string, amount: number): Promise<PaymentRecord | undefined> {
  const after = db.sql.raw('amount_refunded + ?', [amount]);
  const [row] = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where({ _id: id, status_id: PAYMENT_PAID })
      .andWhere(after, '<=', db.sql.ref('amount'))
      .update({
        amount_refunded: after,
        refund_state: db.sql.raw(`case when amount_refunded + ? = amount then ${REFUND_FULL} else ${REFUND_PARTIAL} end`, [amount]),
        updated_at: nowIso(),
      })
      .returning('*'),
  );
  return row ? toPayment(row) : undefined;
}

/** Gives back a reservation whose refund failed. */
export async function releaseRefund(db: Executor, id: string, amount: number): Promise<PaymentRecord> {
  const [row] = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where({ _id: id })
      .andWhere('amount_refunded', '>=', amount)
      .update({
        amount_refunded: db.sql.raw('amount_refunded - ?', [amount]),
        refund_state: db.sql.raw(`case when amount_refunded - ? = 0 then ${REFUND_NONE} else ${REFUND_PARTIAL} end`, [amount]),
        updated_at: nowIso(),
      })
      .returning('*'),
  );
  if (!row) throw new Error(`payment ${id} has less than ${amount} reserved for refunds`);
  return toPayment(row);
}

export async function markPaymentFailed(db: Executor, id: string, failure: { code: string; message: string }, card?: CardSummary): Promise<PaymentRecord> {
  return updateStillPending(db, id, {
    status_id: PAYMENT_FAILED,
    failure_code: failure.code,
    failure_message: failure.message.slice(0, 200),
    ...card,
    updated_at: nowIso(),
  });
}

/** A payment left pending, with the references of what it was for (for its `payment.failed`). */
export interface StalePayment extends PaymentRecord {
  link_reference: string | null;
  link_reference_2: string | null;
}

/**
 * Payments still pending that were recorded before `before` and never heard from the acquirer (no
 * `provider_reference`, no hosted session): the process that asked stopped before the answer was
 * recorded. Charges on saved cards are not among them: the acquirer captures those as it answers, so
 * one never answered may have taken the money (see listUnansweredCharges). Oldest first.
 */
export async function listStalePendingPayments(db: Executor, before: string, limit: number): Promise<StalePayment[]> {
  const rows = await db.all<StalePayment>(
    db
      .sql('payments as p')
      .leftJoin('payment_links as pl', 'pl._id', 'p.payment_link_id')
      .leftJoin('open_payment_links as ol', 'ol._id', 'p.open_payment_link_id')
      .where('p.status_id', PAYMENT_PENDING)
      .andWhere('p.created_at', '<', before)
      .whereNull('p.provider_reference')
      .whereNull('p.provider_session')
      .whereNull('p.tokenization_id')
      .select('p.*')
      .select(db.sql.raw('coalesce(pl.reference, ol.reference, p.reference) as link_reference'))
      .select(db.sql.raw('coalesce(pl.reference_2, ol.reference_2) as link_reference_2'))
      .orderBy('p.created_at')
      .limit(limit),
  );
  return rows.map((row) => ({ ...toPayment(row), link_reference: row.link_reference, link_reference_2: row.link_reference_2 }));
}

/** Fails a payment the sweep found stale, if it still is: undefined when another sweep or the checkout itself settled it. */
export async function abandonStalePayment(
  db: Executor,
  id: string,
  before: string,
  failure: { code: string; message: string },
): Promise<PaymentRecord | undefined> {
  const [row] = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where({ _id: id, status_id: PAYMENT_PENDING })
      .whereNull('provider_reference')
      .whereNull('provider_session')
      .whereNull('tokenization_id')
      .andWhere('created_at', '<', before)
      .update({ status_id: PAYMENT_FAILED, failure_code: failure.code, failure_message: failure.message, updated_at: nowIso() })
      .returning('*'),
  );
  return row && toPayment(row);
}

/** A charge on a saved card still pending without the acquirer's answer, and when the sweep looks at it next. */
export interface UnansweredCharge extends PaymentRecord {
  tokenization_id: string;
  /** Null until the first look, which is due once the sweep's grace has passed since `created_at`. */
  retry_at: string | null;
}

/**
 * Charges on saved cards still pending with no answer from the acquirer (its call threw, or the
 * process stopped mid-call), recorded after `since` and due for a look at `now`: never looked at and
 * recorded before `before`, or whose `retry_at` has come. Oldest first.
 */
export async function listUnansweredCharges(db: Executor, window: { since: string; before: string; now: string }, limit: number): Promise<UnansweredCharge[]> {
  const rows = await db.all<UnansweredCharge>(
    db
      .sql('payments')
      .where('status_id', PAYMENT_PENDING)
      .whereNotNull('tokenization_id')
      .whereNull('provider_reference')
      .whereNull('provider_session')
      .andWhere('created_at', '>', window.since)
      .andWhere((q) => q.where((first) => first.whereNull('retry_at').andWhere('created_at', '<', window.before)).orWhere('retry_at', '<=', window.now))
      .orderBy('created_at')
      .limit(limit),
  );
  return rows.map((row) => ({ ...toPayment(row), tokenization_id: row.tokenization_id, retry_at: row.retry_at === null ? null : toIsoMicros(row.retry_at) }));
}

/**
 * Takes an unanswered charge for one look by the sweep and sets when the next is due: of several
 * instances, the one whose guarded UPDATE changes the row asks the acquirer.
 */
export async function claimChargeRetry(db: Executor, charge: UnansweredCharge, at: string, nextAt: string): Promise<boolean> {
  const query = db.sql('payments').where({ _id: charge._id, status_id: PAYMENT_PENDING }).whereNull('provider_reference');
  if (charge.retry_at === null) query.whereNull('retry_at');
  else query.andWhere('retry_at', charge.retry_at);
  return (await db.run(query.update({ retry_at: nextAt, updated_at: at }))) === 1;
}

/**
 * Payments still pending since before `before` that the acquirer has in hand (a hosted session, or
 * its reference for an answer it gives later): the sweep asks the acquirer how they stand. Oldest
 * first; `updated_at` moves on each look, so one that stays open waits its turn behind the others.
 */
export async function listStaleAwaitingAcquirer(db: Executor, before: string, limit: number): Promise<PaymentRecord[]> {
  const rows = await db.all<PaymentRecord>(
    db
      .sql('payments')
      .where('status_id', PAYMENT_PENDING)
      .andWhere('updated_at', '<', before)
      .andWhere((q) => q.whereNotNull('provider_session').orWhereNotNull('provider_reference'))
      .orderBy('updated_at')
      .limit(limit),
  );
  return rows.map(toPayment);
}

/** Takes a stale pending payment for one sweep's look (as claimStaleRefund does for refunds). */
export async function touchStalePayment(db: Executor, payment: PaymentRecord, at: string): Promise<boolean> {
  return (
    (await db.run(db.sql('payments').where({ _id: payment._id, status_id: PAYMENT_PENDING, updated_at: payment.updated_at }).update({ updated_at: at }))) === 1
  );
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
  status?: { statusId: number; refundState: number };
  paymentLinkId?: string;
  tokenizationId?: string;
  reference?: string;
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

function paymentsMatching(db: Executor, businessId: number, filters: PaymentFilters) {
  const query = db.sql('payments').where({ business_id: businessId });
  if (filters.status !== undefined) query.where({ status_id: filters.status.statusId, refund_state: filters.status.refundState });
  if (filters.tokenizationId !== undefined) query.where('tokenization_id', filters.tokenizationId);
  if (filters.reference !== undefined) query.where('reference', filters.reference);
  if (filters.paymentLinkId !== undefined) query.where('payment_link_id', filters.paymentLinkId);
  if (filters.openPaymentLinkId !== undefined) query.where('open_payment_link_id', filters.openPaymentLinkId);
  if (filters.method !== undefined) query.where('method', filters.method);
  if (filters.payerEmail !== undefined) query.where('payer_email', filters.payerEmail);
  return whereCreatedBetween(query, filters.createdBetween);
}

/** A page of a business's payments; every filter is served by an index that starts with business_id (migrations 0011, 0012). */
export async function listPayments(db: Executor, businessId: number, filters: PaymentFilters, page: PageRequest): Promise<Page<PaymentRecord>> {
  return fetchPage(db, paymentsMatching(db, businessId, filters), page, toPayment, await knownTotal(db, businessId, filters));
}

/**
 * The total of a list that the counters already know (counters/declaration.ts): unfiltered, or
 * filtered by status, method and dates only, filters that can match most of a business's payments,
 * and the same for one open link's payments, all of which a busy link's filter matches. The others
 * are selective: their matches are counted through their own indexes.
 */
async function knownTotal(db: Executor, businessId: number, filters: PaymentFilters): Promise<number | undefined> {
  const { status, method, createdBetween, openPaymentLinkId, ...selective } = filters;
  if (Object.values(selective).some((value) => value !== undefined)) return undefined;
  const match = { status_id: status?.statusId, refund_state: status?.refundState, method };
  if (openPaymentLinkId === undefined) return countOf(db, PAYMENT_COUNTS, businessId, match, createdBetween);
  return countOf(db, OPEN_LINK_PAYMENT_COUNTS, businessId, { ...match, open_payment_link_id: openPaymentLinkId }, createdBetween);
}

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

/** Whether a charge on the token's saved card is still waiting for the acquirer's answer. */
export async function hasPendingCharge(db: Executor, businessId: number, tokenId: string): Promise<boolean> {
  const row = await db.first(
    db.sql('payments').select('_id').where({ business_id: businessId, tokenization_id: tokenId, status_id: PAYMENT_PENDING }).limit(1),
  );
  return row !== undefined;
}
