// What the pending sweep asks of payments: those a stopped process left pending, charges on saved
// cards whose acquirer call never answered, and those an acquirer has in hand; each taken by a guarded UPDATE.
import { PAYMENT_FAILED, PAYMENT_PENDING } from '../domain/statuses.js';
import type { Executor } from './executor.js';
import { toPayment, type PaymentRecord } from './payments.js';
import { nowIso, toIsoMicros } from './timestamps.js';

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
