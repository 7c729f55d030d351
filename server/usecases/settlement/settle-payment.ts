// Settling what an acquirer with hosted pages (Stripe) reports of a payment: one taken on its page, a
// charge it answers later. Whoever reports first (the payer's return, the acquirer's notification, the
// pending sweep) settles; each change is one guarded UPDATE on a row still pending, committed with its
// webhook, so the others find it settled and announce nothing. Refunds that change at the acquirer's
// end are brought in line by refund-reconciliation.ts.
//
// A payment the acquirer took for a link that can no longer take it (paid through another checkout
// meanwhile, paused, expired, out of payments) is not recorded as the link's payment: it is refunded
// in full, recorded and announced (`refund.succeeded`), never a second `payment.created`.
import { newId } from '../../domain/ids.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../../domain/statuses.js';
import type { HostedPaymentState, HostedAcquirer } from '../../acquirers/acquirer.js';
import type { Executor } from '../../store/executor.js';
import { claimOpenPaymentLink, findOpenPaymentLinkForPayer } from '../../store/open-payment-links.js';
import { claimPaymentLinkAsPaid, findPaymentLinkForPayer } from '../../store/payment-links.js';
import { findPayment, listOpenSessionsOfLink, reserveRefund, updatePendingPayment, type PaymentRecord } from '../../store/payments.js';
import { insertPendingRefund } from '../../store/refunds.js';
import { findToken } from '../../store/tokens.js';
import { nowIso } from '../../store/timestamps.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyPaymentFailed, notifyPaymentSucceeded } from '../platform/notify.js';
import { CHECKOUT_EXPIRED, LINK_UNAVAILABLE, LINK_UNAVAILABLE_REFUND_REASON } from '../../domain/failures.js';
import { askAcquirer } from '../merchant/refunds.js';
import { recordCharge, recordRefund } from './ledger.js';

/** What a payment's webhooks say it was for: its link (or token), with the link's references and title. */
export async function targetOfPayment(db: Executor, payment: PaymentRecord) {
  if (payment.payment_link_id) {
    const link = await findPaymentLinkForPayer(db, payment.payment_link_id);
    return {
      kind: 'payment_link' as const,
      _id: payment.payment_link_id,
      reference: link?.reference ?? null,
      reference_2: link?.reference_2 ?? null,
      title: link?.title ?? '',
    };
  }
  if (payment.open_payment_link_id) {
    const link = await findOpenPaymentLinkForPayer(db, payment.open_payment_link_id);
    return {
      kind: 'open_payment_link' as const,
      _id: payment.open_payment_link_id,
      reference: link?.reference ?? null,
      reference_2: link?.reference_2 ?? null,
      title: link?.title ?? '',
    };
  }
  const token = await findToken(db, payment.business_id, payment.tokenization_id!);
  return {
    kind: 'tokenization' as const,
    _id: payment.tokenization_id!,
    reference: payment.reference,
    reference_2: null,
    title: payment.description ?? token?.title ?? '',
  };
}

/** Claims the payment's link for it, at `at`; a charge on a saved card has no link to claim. */
async function claimTarget(tx: Executor, payment: PaymentRecord, at: string): Promise<boolean> {
  if (payment.payment_link_id) return claimPaymentLinkAsPaid(tx, payment.payment_link_id, at);
  if (payment.open_payment_link_id) return claimOpenPaymentLink(tx, payment.open_payment_link_id, at);
  return true;
}

/** A payment as it stands after a settlement, and whether this settlement is what moved it. */
export interface Settlement {
  payment: PaymentRecord;
  changed: boolean;
}

/** Work that asks the acquirer, handed to whoever can run it once the caller's transaction has committed. */
export type AfterCommit = (work: (ctx: UseCaseContext) => Promise<unknown>) => void;

/**
 * Brings a pending payment to where the acquirer says it stands, and answers the payment as it is
 * afterwards (as another path left it, when that one settled it first: then `changed` is false).
 * A caller that runs this inside a transaction of its own passes `afterCommit`: what follows at the
 * acquirer (refunding a payment the link could not take, closing the link's other checkouts) is then
 * handed to it rather than asked while that transaction holds its locks.
 */
export async function settleHostedPayment(
  ctx: UseCaseContext,
  payment: PaymentRecord,
  state: HostedPaymentState,
  afterCommit?: AfterCommit,
): Promise<Settlement> {
  if (payment.status_id !== PAYMENT_PENDING || state.state === 'open') return { payment, changed: false };
  const unchanged = async (): Promise<Settlement> => ({ payment: (await findPayment(ctx.db, payment._id))!, changed: false });
  const target = await targetOfPayment(ctx.db, payment);
  const card = state.state === 'paid' || state.state === 'processing' ? { card_brand: state.card?.brand ?? null, card_last4: state.card?.last4 ?? null } : {};

  if (state.state === 'processing') {
    // Taken, not yet confirmed by the bank: still pending (payment_status 2), nothing announced yet.
    const moved = await updatePendingPayment(ctx.db, payment._id, {
      provider_reference: state.paymentReference,
      method: state.method,
      ...card,
      updated_at: nowIso(),
    });
    return moved ? { payment: moved, changed: true } : unchanged();
  }

  if (state.state === 'failed' || state.state === 'expired') {
    const failure = state.state === 'failed' ? { code: state.code, message: state.message } : CHECKOUT_EXPIRED;
    const failed = await ctx.db.transaction(async (tx) => {
      const moved = await updatePendingPayment(tx, payment._id, {
        status_id: PAYMENT_FAILED,
        failure_code: failure.code,
        failure_message: failure.message.slice(0, 200),
        ...(state.state === 'failed' && state.paymentReference ? { provider_reference: state.paymentReference } : {}),
        ...(state.state === 'failed' && state.method ? { method: state.method } : {}),
        updated_at: nowIso(),
      });
      if (moved) await notifyPaymentFailed(tx, moved, target);
      return moved;
    });
    if (!failed) return unchanged();
    ctx.outcomes?.payment(failed, 'failed');
    ctx.outbox.nudge();
    return { payment: failed, changed: true };
  }

  // Paid at the acquirer. One instant decides the link's claim and stamps the payment; the claim comes
  // first, so a payment the link cannot take is recorded as such in the same UPDATE that records it paid.
  let settled;
  try {
    settled = await ctx.db.transaction(async (tx) => {
      const at = nowIso();
      const claimed = await claimTarget(tx, payment, at);
      const moved = await updatePendingPayment(tx, payment._id, {
        status_id: PAYMENT_PAID,
        provider_reference: state.paymentReference,
        method: state.method,
        ...card,
        ...(claimed ? {} : { failure_code: LINK_UNAVAILABLE.code, failure_message: LINK_UNAVAILABLE.message }),
        updated_at: at,
      });
      // Settled meanwhile by another path: nothing of this one may stand, the claim included.
      if (!moved) throw new SettledElsewhere();
      // The acquirer took the money either way: a payment its link could not take is refunded below.
      const paid = await recordCharge(tx, ctx.settlement, moved, state.balance);
      if (claimed) {
        await notifyPaymentSucceeded(tx, paid, target, ctx.publicUrl);
        return { payment: paid, refund: undefined };
      }
      // The link could not take it: the money goes back, in full, recorded before the acquirer is asked.
      const reserved = (await reserveRefund(tx, paid._id, paid.amount))!;
      const refund = await insertPendingRefund(tx, {
        _id: newId(),
        business_id: paid.business_id,
        payment_id: paid._id,
        amount: paid.amount,
        currency: paid.currency,
        reason: LINK_UNAVAILABLE_REFUND_REASON,
      });
      await recordRefund(tx, refund);
      return { payment: reserved, refund };
    });
  } catch (error) {
    if (!(error instanceof SettledElsewhere)) throw error;
    settled = undefined;
  }
  if (!settled) return unchanged();
  ctx.outcomes?.payment(settled.payment, settled.refund ? 'failed' : 'succeeded');
  ctx.outbox.nudge();
  const { refund } = settled;
  if (refund) {
    const giveBack = async (outer: UseCaseContext) => {
      try {
        return (await askAcquirer(outer, refund, settled.payment)).payment;
      } catch {
        // Unanswered: the refund stays pending, its amount set aside, and the pending sweep asks again.
        return settled.payment;
      }
    };
    if (afterCommit) afterCommit(giveBack);
    else return { payment: await giveBack(ctx), changed: true };
  } else if (payment.payment_link_id) {
    if (afterCommit) afterCommit((outer) => closeOtherSessions(outer, payment));
    else await closeOtherSessions(ctx, payment);
  }
  return { payment: settled.payment, changed: true };
}

/** Thrown to roll back a settlement that found its payment settled by another path. */
class SettledElsewhere extends Error {}

/**
 * A payment link is paid: other payers' checkouts still open for it are closed at the acquirer, so
 * they cannot pay it a second time (one that completes in the meantime is refunded as above).
 */
async function closeOtherSessions(ctx: UseCaseContext, paid: PaymentRecord): Promise<void> {
  for (const other of await listOpenSessionsOfLink(ctx.db, paid.payment_link_id!, paid._id)) {
    try {
      const acquirer = (await ctx.acquirers.named(other.business_id, other.provider)) as HostedAcquirer;
      await acquirer.cancelPayment(other.provider_session!);
      const state = await acquirer.paymentState(other.provider_session!);
      // Closed because the link was paid: failed as such, rather than as a payer who walked away.
      await settleHostedPayment(ctx, other, state.state === 'expired' ? { state: 'failed', paymentReference: null, method: null, ...LINK_UNAVAILABLE } : state);
    } catch {
      // Completed meanwhile, or the acquirer did not answer: its own notification or the sweep settles it.
    }
  }
}
