// A payment's record and its lifecycle: the attempt recorded before the acquirer is asked, the
// lookups that find it again, and the guarded writes that settle it or reserve its refunds. The
// sweeps' queries are in payment-sweeps.ts, the business's lists in payment-lists.ts, the export's
// batches in payment-export.ts, an open link's collections in collections.ts.
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING, REFUND_FULL, REFUND_NONE, REFUND_PARTIAL } from '../domain/statuses.js';
import { localDay } from '../domain/local-days.js';
import { findBusinessTimeZone } from './business-profile.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';

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
  /** The acquirer's fee, what the business keeps, and its ledger entry: null until the payment's charge entry is written. */
  fee: number | null;
  net: number | null;
  balance_transaction_id: string | null;
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

export function toPayment(row: PaymentRecord): PaymentRecord {
  return {
    ...row,
    business_id: Number(row.business_id),
    amount: Number(row.amount),
    status_id: Number(row.status_id),
    checkout_slot: row.checkout_slot === null || row.checkout_slot === undefined ? null : Number(row.checkout_slot),
    amount_refunded: Number(row.amount_refunded),
    refund_state: Number(row.refund_state),
    fee: row.fee === null || row.fee === undefined ? null : Number(row.fee),
    net: row.net === null || row.net === undefined ? null : Number(row.net),
    balance_transaction_id: row.balance_transaction_id ?? null,
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

/**
 * Records an attempt before the acquirer is called, so nothing charged can go unrecorded, with the
 * day it is made on in the business's time zone as it is now (`local_day`), the day the collections
 * report counts it on (counters/declaration.ts, COLLECTION_COUNTS).
 */
export async function insertPendingPayment(db: Executor, payment: NewPayment): Promise<PaymentRecord> {
  const timeZone = await findBusinessTimeZone(db, payment.business_id);
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
    fee: null,
    net: null,
    balance_transaction_id: null,
    created_at: now,
    updated_at: now,
  };
  await db.run(db.sql('payments').insert({ ...row, local_day: localDay(now, timeZone) }));
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

/** A business's payment by id. */
export async function findBusinessPayment(db: Executor, businessId: number, id: string): Promise<PaymentRecord | undefined> {
  const row = await db.first<PaymentRecord>(db.sql('payments').where({ business_id: businessId, _id: id }));
  return row ? toPayment(row) : undefined;
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
/** Whether a charge on the token's saved card is still waiting for the acquirer's answer. */
export async function hasPendingCharge(db: Executor, businessId: number, tokenId: string): Promise<boolean> {
  const row = await db.first(
    db.sql('payments').select('_id').where({ business_id: businessId, tokenization_id: tokenId, status_id: PAYMENT_PENDING }).limit(1),
  );
  return row !== undefined;
}

/** Keeps a payment's fee and net beside it, from the charge entry just written in the same transaction. */
export async function recordPaymentBalance(
  db: Executor,
  paymentId: string,
  balance: { fee: number; net: number; balance_transaction_id: string },
): Promise<void> {
  await db.run(db.sql('payments').where({ _id: paymentId }).update(balance));
}
