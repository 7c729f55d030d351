// Taking a payment on our card form, in the order that keeps money and records consistent:
//   1. record the attempt as pending (link-attempts.ts);
//   2. ask the acquirer to authorize;
//   3. in one transaction, claim the link (the guarded UPDATE decides whether it can still be paid),
//      record the payment as paid and enqueue its notifications, capturing inside that transaction; a
//      payer who lost the race is voided.
import type { Card } from '../../acquirers/cards.js';
import { claimOpenPaymentLink } from '../../store/open-payment-links.js';
import { claimPaymentLinkAsPaid } from '../../store/payment-links.js';
import { markPaymentAwaitingProvider, markPaymentFailed, markPaymentPaid } from '../../store/payments.js';
import { nowIso } from '../../store/timestamps.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyPaymentFailed, notifyPaymentSucceeded } from '../platform/notify.js';
import { recordCharge } from '../settlement/ledger.js';
import { CARD_NOT_PROCESSED, LINK_UNAVAILABLE, type Failure } from '../../domain/failures.js';
import { type LinkAttempt, type CheckoutOutcome, outcomeOf, recordLinkAttempt } from './link-attempts.js';

/** A payment on our card form: authorized, then recorded with the link's claim and captured, or voided. */
export async function payByCard(ctx: UseCaseContext, request: LinkAttempt & { card: Card }): Promise<CheckoutOutcome> {
  const { db } = ctx;
  const { target, card } = request;
  const provider = await ctx.acquirers.forBusiness(target.businessId);
  // The page offers a card form only to a business whose acquirer takes cards that way.
  if (provider.checkout !== 'card_form') throw new Error(`business ${target.businessId} takes payments on ${provider.name}'s own page, not a card form`);
  const recorded = await recordLinkAttempt(db, request, provider.name);
  if ('earlier' in recorded) return outcomeOf(recorded.earlier);
  const { pending } = recorded;

  const cardSummary = { card_brand: card.brand, card_last4: card.last4 };
  const linkFields = { kind: target.kind, _id: target.id, reference: target.reference, reference_2: target.reference_2 };
  // A failed attempt and its payment.failed event commit together.
  const fail = async (failure: Failure) => {
    const failed = await db.transaction(async (trx) => {
      const payment = await markPaymentFailed(trx, pending._id, failure, cardSummary);
      await notifyPaymentFailed(trx, payment, linkFields);
      return payment;
    });
    ctx.outcomes?.payment(failed, 'failed');
    ctx.outbox.nudge();
    return failed;
  };
  let authorization;
  try {
    authorization = await provider.authorize({ reference: pending._id, amount: request.amount, currency: target.currency, card, description: target.title });
  } catch (error) {
    await fail(CARD_NOT_PROCESSED);
    throw error;
  }
  if (authorization.outcome === 'declined') {
    const payment = await fail({ code: authorization.code, message: authorization.message });
    return { result: 'declined', payment, message: authorization.message };
  }
  if (authorization.outcome === 'pending') {
    // Settled later by the acquirer's notification; the payer's page says it is being processed.
    const payment = await markPaymentAwaitingProvider(db, pending._id, authorization.authorizationId, cardSummary);
    return { result: 'in_progress', payment };
  }

  const paid = await db.transaction(async (trx) => {
    // One instant decides the link's expiry and stamps the payment: none is recorded after its link expired.
    const at = nowIso();
    const claimed = target.kind === 'payment_link' ? await claimPaymentLinkAsPaid(trx, target.id, at) : await claimOpenPaymentLink(trx, target.id, at);
    if (!claimed) return undefined;
    const payment = await recordCharge(trx, ctx.settlement, await markPaymentPaid(trx, pending._id, authorization.authorizationId, cardSummary, at));
    await notifyPaymentSucceeded(trx, payment, { ...linkFields, title: target.title }, ctx.publicUrl);
    await provider.capture(authorization.authorizationId);
    return payment;
  });
  if (paid) {
    ctx.outcomes?.payment(paid, 'succeeded');
    ctx.outbox.nudge();
    return { result: 'paid', payment: paid };
  }

  await provider.void(authorization.authorizationId);
  const payment = await fail(LINK_UNAVAILABLE);
  return { result: 'unavailable', payment };
}
