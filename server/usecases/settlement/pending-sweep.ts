// What a stopped process (a crash, a deploy mid-request) or a failing acquirer call leaves pending is
// settled by a sweep, once the grace period has passed:
//  - a payment still pending that never heard from the acquirer was never captured (capture happens
//    in the transaction that records it as paid), so no money was taken: it is failed as `abandoned`
//    and announced with `payment.failed`, once;
//  - a charge on a saved card is the exception: the acquirer captures it as it answers, so one never
//    answered may have taken the money. It is never abandoned: the acquirer is asked again with the
//    same request (our payment id is its idempotency reference, so the first outcome comes back and
//    nothing is charged twice), and the answer settles it as a fresh charge's would. While the
//    acquirer does not answer, looks back off (each waits as long as the charge had waited at the
//    last, the grace at least). Past CHARGE_RETRY_WINDOW_MS the acquirer may have forgotten the
//    reference (Stripe keeps idempotency keys for 24 hours), so asking again could charge twice: the
//    charge is left pending, and reported for someone to reconcile with the acquirer by hand.
//  - a refund still pending that the acquirer never answered keeps its amount set aside: the acquirer
//    is asked again under the refund's own id (its idempotency reference), and the answer settles it
//    as a fresh request's would.
//  - a payment or refund an acquirer with hosted pages has in hand (a Checkout Session the payer never
//    came back from, online banking still confirming, a refund it answered `pending`) is read back
//    from the acquirer and settled, in case its notification never came: a session that expired
//    unpaid fails the payment as `expired`, announced once.
// Several instances may sweep at once: each row is taken by one guarded UPDATE.
import { ABANDONED } from '../../domain/failures.js';
import { PAYMENT_PENDING } from '../../domain/statuses.js';
import { isoMicros } from '../../domain/time.js';
import {
  abandonStalePayment,
  claimChargeRetry,
  listStaleAwaitingAcquirer,
  listStalePendingPayments,
  listUnansweredCharges,
  touchStalePayment,
} from '../../store/payment-sweeps.js';
import { findPayment } from '../../store/payments.js';
import { claimStaleRefund, listStaleAcquirerRefunds, listStaleRefunds, touchRefund } from '../../store/refunds.js';
import { askAgainAboutCharge } from '../merchant/charges.js';
import { hostedAcquirerOf, settleFromAcquirer } from './hosted-checkout-state.js';
import { reconcileRefunds } from './refund-reconciliation.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyPaymentFailed } from '../platform/notify.js';
import { askAcquirer } from '../merchant/refunds.js';

const BATCH = 100;

/** How long after it was made a charge the acquirer never answered is asked about again: within Stripe's 24 hours. */
export const CHARGE_RETRY_WINDOW_MS = 20 * 60 * 60_000;

export interface SweepResult {
  abandonedPayments: number;
  settledRefunds: number;
  /** Payments read back from an acquirer with hosted pages, or charges asked about again, that came out of pending. */
  settledPayments: number;
  /** Charges whose last look within CHARGE_RETRY_WINDOW_MS went unanswered: pending until reconciled by hand. */
  chargesLeftUnanswered: string[];
}

/** Settles what has been pending longer than `graceMs`; answers how much it settled. */
export async function settleStalePending(ctx: UseCaseContext, graceMs: number, now = new Date()): Promise<SweepResult> {
  const before = isoMicros(new Date(now.getTime() - graceMs));
  const result: SweepResult = { abandonedPayments: 0, settledRefunds: 0, settledPayments: 0, chargesLeftUnanswered: [] };

  for (const stale of await listStalePendingPayments(ctx.db, before, BATCH)) {
    const target = stale.payment_link_id
      ? { kind: 'payment_link' as const, _id: stale.payment_link_id }
      : stale.open_payment_link_id
        ? { kind: 'open_payment_link' as const, _id: stale.open_payment_link_id }
        : { kind: 'tokenization' as const, _id: stale.tokenization_id! };
    const abandoned = await ctx.db.transaction(async (tx) => {
      const payment = await abandonStalePayment(tx, stale._id, before, ABANDONED);
      if (payment) await notifyPaymentFailed(tx, payment, { ...target, reference: stale.link_reference, reference_2: stale.link_reference_2 });
      return payment;
    });
    if (abandoned) {
      result.abandonedPayments += 1;
      ctx.outcomes?.payment(abandoned, 'failed');
    }
  }

  for (const refund of await listStaleRefunds(ctx.db, before, BATCH)) {
    if (!(await claimStaleRefund(ctx.db, refund, isoMicros(now)))) continue;
    const payment = (await findPayment(ctx.db, refund.payment_id))!;
    try {
      const { refund: settled } = await askAcquirer(ctx, refund, payment);
      if (settled.status !== 'pending') result.settledRefunds += 1;
    } catch {
      // Still unanswered: it stays pending, its amount set aside, and the next sweep asks again.
    }
  }
  const at = isoMicros(now);
  const since = isoMicros(new Date(now.getTime() - CHARGE_RETRY_WINDOW_MS));
  for (const charge of await listUnansweredCharges(ctx.db, { since, before, now: at }, BATCH)) {
    const createdMs = Date.parse(charge.created_at);
    const nextMs = now.getTime() + Math.max(graceMs, now.getTime() - createdMs);
    if (!(await claimChargeRetry(ctx.db, charge, at, isoMicros(new Date(nextMs))))) continue;
    try {
      const settled = await askAgainAboutCharge(ctx, charge);
      if (settled.result !== 'pending') result.settledPayments += 1;
    } catch {
      // Still unanswered (or settled meanwhile by another look): it stays pending for the next look.
      const last = nextMs - createdMs >= CHARGE_RETRY_WINDOW_MS;
      if (last && (await findPayment(ctx.db, charge._id))?.status_id === PAYMENT_PENDING) result.chargesLeftUnanswered.push(charge._id);
    }
  }
  for (const payment of await listStaleAwaitingAcquirer(ctx.db, before, BATCH)) {
    if (!(await touchStalePayment(ctx.db, payment, at))) continue;
    try {
      const settled = await settleFromAcquirer(ctx, payment);
      if (settled.changed && settled.payment.status_id !== PAYMENT_PENDING) result.settledPayments += 1;
    } catch {
      // The acquirer did not answer: the next sweep asks again.
    }
  }

  for (const refund of await listStaleAcquirerRefunds(ctx.db, before, BATCH)) {
    if (!(await touchRefund(ctx.db, refund, at))) continue;
    const payment = (await findPayment(ctx.db, refund.payment_id))!;
    try {
      const acquirer = await hostedAcquirerOf(ctx, payment);
      if (acquirer && payment.provider_reference)
        result.settledRefunds += await reconcileRefunds(ctx, payment, await acquirer.refunds(payment.provider_reference));
    } catch {
      // The acquirer did not answer: the next sweep asks again.
    }
  }
  if (result.abandonedPayments > 0) ctx.outbox.nudge();
  return result;
}
