// Giving money back: part or all of a paid payment, as often as the merchant asks, never more in
// all than was paid. The amount is set aside on the payment (one guarded UPDATE, so concurrent
// refunds cannot together pass the amount paid) with the refund recorded as pending, before the
// acquirer is asked; its answer settles the refund and, if it failed, gives the amount back.
//
// Under an Idempotency-Key the refund runs in atomic phases (usecases/platform/idempotency.ts): the pending
// refund commits with the key's provisional answer (the refund, pending), and its settlement with the
// final one, so a retry never sets the amount aside or asks the acquirer a second time.
import { LINK_UNAVAILABLE_REFUND_REASON } from '../../domain/failures.js';
import { isId, newId } from '../../domain/ids.js';
import { PAYMENT_PAID } from '../../domain/statuses.js';
import { findBusinessPayment, releaseRefund, reserveRefund, type PaymentRecord } from '../../store/payments.js';
import type { Executor } from '../../store/executor.js';
import { findRefund, insertPendingRefund, listRefunds as storedRefunds, settleRefund, type RefundRecord, type RefundSettlement } from '../../store/refunds.js';
import type { UseCaseContext } from '../platform/context.js';
import { phase, type KeepAnswer } from '../platform/idempotency.js';
import { notifyRefundSettled } from '../platform/notify.js';
import { recordRefund, recordRefundFailure } from '../settlement/ledger.js';

export type { RefundRecord };

export interface RefundRequest {
  /** Cents; what is left to refund when absent. */
  amount?: number;
  reason?: string | null;
}

export type RefundOutcome =
  | { result: 'created'; refund: RefundRecord; payment: PaymentRecord }
  | { result: 'not_found' }
  /** 409: the payment is not paid, or nothing is left to refund. */
  | { result: 'conflict'; message: string }
  /** 422: more than is left to refund. */
  | { result: 'too_much'; remaining: number };

/** How often a refund looks again after losing its reservation to concurrent refunds of the payment. */
const RESERVATION_ATTEMPTS = 10;

const STATUS_WORDS: Record<number, string> = { 2: 'pending', 3: 'failed' };

function refusal(payment: PaymentRecord, amount: number | undefined): RefundOutcome | undefined {
  if (payment.status_id !== PAYMENT_PAID) {
    return { result: 'conflict', message: `Only a paid payment can be refunded; this payment is ${STATUS_WORDS[payment.status_id] ?? 'not paid'}.` };
  }
  const remaining = payment.amount - payment.amount_refunded;
  if (remaining === 0) return { result: 'conflict', message: 'This payment is already fully refunded.' };
  if (amount !== undefined && amount > remaining) return { result: 'too_much', remaining };
  return undefined;
}

/** `keep` keeps the answer to the request's Idempotency-Key in each phase's transaction. */
export async function refundPayment(
  ctx: UseCaseContext,
  businessId: number,
  paymentId: string,
  request: RefundRequest,
  keep?: KeepAnswer<RefundOutcome>,
): Promise<RefundOutcome> {
  const { db } = ctx;
  let payment = isId(paymentId) ? await findBusinessPayment(db, businessId, paymentId) : undefined;
  if (!payment) return { result: 'not_found' };
  // A lost race keeps nothing here: its refusal is answered (and kept) as one before any phase is.
  const keepReserved: KeepAnswer<{ refund: RefundRecord; payment: PaymentRecord } | undefined> | undefined =
    keep && ((tx, reserved) => (reserved ? keep(tx, { result: 'created', ...reserved }) : Promise.resolve()));
  let reserved: { refund: RefundRecord; payment: PaymentRecord } | undefined;
  for (let attempt = 1; !reserved; attempt += 1) {
    const refused = refusal(payment, request.amount);
    if (refused) return refused;
    if (attempt > RESERVATION_ATTEMPTS) return { result: 'conflict', message: 'This payment changed while it was being refunded. Try again.' };
    const current: PaymentRecord = payment;
    const amount = request.amount ?? current.amount - current.amount_refunded;
    reserved = await phase(ctx, keepReserved, async (tx) => {
      const updated = await reserveRefund(tx, current._id, amount);
      if (!updated) return undefined;
      const refund = await insertPendingRefund(tx, {
        _id: newId(),
        business_id: businessId,
        payment_id: current._id,
        amount,
        currency: current.currency,
        reason: request.reason ?? null,
      });
      await recordRefund(tx, refund);
      return { refund, payment: updated };
    });
    // Another refund of this payment changed what is left between the read and the write; it may
    // since have failed and given its amount back, so look again rather than refuse on a stale read.
    if (!reserved) payment = (await findBusinessPayment(db, businessId, current._id))!;
  }

  // An acquirer call that throws leaves the refund pending, its amount set aside: whether the acquirer
  // acted is unknown, and money is never given back twice on a guess (the pending sweep asks again).
  const settled = await askAcquirer(ctx, reserved.refund, reserved.payment, keep && ((tx, after) => keep(tx, { result: 'created', ...after })));
  return { result: 'created', ...settled };
}

/** The reason recorded on the refund of a payment taken after its link could no longer be paid (hosted checkouts). */

/**
 * Asks the acquirer for a refund recorded as pending (again, for the sweep: the refund's own id is the
 * idempotency reference, and every parameter is derived from the stored refund, so a refund the
 * acquirer already made is not made twice) and settles it with the answer: succeeded, or failed with
 * its amount given back, announced with its webhook in the same transaction; or still pending when
 * the acquirer settles later. A refund the acquirer's notification settled meanwhile is left as it is.
 * `keep` keeps the refund's answer to an Idempotency-Key in the settling transaction.
 */
export async function askAcquirer(
  ctx: UseCaseContext,
  refund: RefundRecord,
  payment: PaymentRecord,
  keep?: KeepAnswer<{ refund: RefundRecord; payment: PaymentRecord }>,
): Promise<{ refund: RefundRecord; payment: PaymentRecord }> {
  const acquirer = await ctx.acquirers.named(payment.business_id, payment.provider);
  const answer = await acquirer.refund({
    reference: refund._id,
    paymentReference: payment.provider_reference ?? '',
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    ...(refund.reason === LINK_UNAVAILABLE_REFUND_REASON ? { acquirerReason: 'duplicate' as const } : {}),
  });
  const settled = await phase(ctx, keep, async (tx) => {
    if (answer.outcome === 'pending') {
      return { refund: (await settleRefund(tx, refund._id, { status: 'pending', acquirerReference: answer.refundId })) ?? refund, payment };
    }
    const settlement: RefundSettlement =
      answer.outcome === 'succeeded'
        ? { status: 'succeeded', acquirerReference: answer.refundId }
        : { status: 'failed', acquirerReference: answer.refundId, code: answer.code, message: answer.message };
    return (await settleRefundAndAnnounce(tx, refund, payment, settlement)) ?? { refund: (await findRefund(tx, refund._id)) ?? refund, payment };
  });
  if (answer.outcome !== 'pending' && settled.refund.status === answer.outcome) ctx.outcomes?.refund(payment.provider, answer.outcome);
  ctx.outbox.nudge();
  return settled;
}

/**
 * Settles a pending refund with its final state in the caller's transaction: a failed refund gives
 * its amount back to the payment, and either is announced (`refund.succeeded` / `refund.failed`).
 * Undefined when the refund was no longer pending.
 */
export async function settleRefundAndAnnounce(
  tx: Executor,
  refund: RefundRecord,
  payment: PaymentRecord,
  settlement: RefundSettlement,
): Promise<{ refund: RefundRecord; payment: PaymentRecord } | undefined> {
  const done = await settleRefund(tx, refund._id, settlement);
  if (!done || done.status === 'pending') return undefined;
  const after = done.status === 'succeeded' ? payment : await releaseRefund(tx, payment._id, refund.amount);
  if (done.status === 'failed') await recordRefundFailure(tx, done);
  await notifyRefundSettled(tx, refund.business_id, done, after);
  return { refund: done, payment: after };
}

export async function listPaymentRefunds(ctx: UseCaseContext, businessId: number, paymentId: string): Promise<RefundRecord[] | undefined> {
  const payment = isId(paymentId) ? await findBusinessPayment(ctx.db, businessId, paymentId) : undefined;
  return payment ? storedRefunds(ctx.db, payment._id) : undefined;
}
