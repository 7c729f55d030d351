// Taking a payment for a link, in the order that keeps money and records consistent:
//   1. record the attempt as pending (its attempt_id is unique: a second submit of the same form
//      finds the first attempt instead of charging again);
//   2. ask the provider to authorize;
//   3. in one transaction, claim the link (payment links: `paid = false` guard), record the payment
//      as paid and enqueue its notifications, capturing inside that transaction; a payer who lost
//      the race is voided.
import { newId } from '../domain/ids.js';
import type { Card } from '../acquirers/cards.js';
import { isUniqueViolation } from '../store/errors.js';
import { nowIso } from '../store/timestamps.js';
import { claimOpenPaymentLink } from '../store/open-payment-links.js';
import { claimPaymentLinkAsPaid } from '../store/payment-links.js';
import { PAYMENT_FAILED, PAYMENT_PAID } from '../domain/statuses.js';
import {
  findPaymentByAttempt,
  insertPendingPayment,
  markPaymentAwaitingProvider,
  markPaymentFailed,
  markPaymentPaid,
  type PaymentRecord,
} from '../store/payments.js';
import type { Executor } from '../store/executor.js';
import type { UseCaseContext } from './context.js';
import { notifyPaymentFailed, notifyPaymentSucceeded } from './notify.js';

export interface PaymentTarget {
  kind: 'payment_link' | 'open_payment_link';
  id: string;
  businessId: number;
  currency: string;
  title: string;
  reference: string | null;
  reference_2: string | null;
}

export interface CheckoutRequest {
  target: PaymentTarget;
  /** From the form; the same attempt submitted twice is one payment. */
  attemptId: string;
  /** Cents. */
  amount: number;
  payerName: string | null;
  payerEmail: string | null;
  card: Card;
}

export type CheckoutOutcome =
  | { result: 'paid'; payment: PaymentRecord }
  | { result: 'declined'; payment: PaymentRecord; message: string }
  /** The link was paid (or removed) by the time this payer's payment could be recorded. */
  | { result: 'unavailable'; payment: PaymentRecord | null }
  /** The same attempt is being processed by an earlier submit. */
  | { result: 'in_progress'; payment: PaymentRecord };

export const UNAVAILABLE_MESSAGE = 'This payment link is no longer available.';

/** What a recorded payment means for the payer; also how a repeated attempt is answered. */
export function outcomeOf(payment: PaymentRecord): CheckoutOutcome {
  if (payment.status_id === PAYMENT_PAID) return { result: 'paid', payment };
  if (payment.status_id === PAYMENT_FAILED) {
    if (payment.failure_code === 'link_unavailable') return { result: 'unavailable', payment };
    return { result: 'declined', payment, message: payment.failure_message ?? 'Your card was declined.' };
  }
  return { result: 'in_progress', payment };
}

/**
 * Records a payer's attempt on a link as pending, before any acquirer is asked; a form submitted
 * again (its attempt_id is unique) finds its first attempt instead. `method` is the card until a
 * hosted acquirer says how the payer paid. An attempt on a hosted acquirer's page takes one of the
 * link's checkout slots (`checkout`); a slot another attempt holds is a unique violation thrown.
 */
export async function recordLinkAttempt(
  db: Executor,
  attempt: Pick<CheckoutRequest, 'target' | 'attemptId' | 'amount' | 'payerName' | 'payerEmail'>,
  provider: string,
  checkout?: { slot: number; payer: string | null },
): Promise<{ pending: PaymentRecord } | { earlier: PaymentRecord }> {
  const { target } = attempt;
  try {
    const pending = await insertPendingPayment(db, {
      _id: newId(),
      business_id: target.businessId,
      payment_link_id: target.kind === 'payment_link' ? target.id : null,
      open_payment_link_id: target.kind === 'open_payment_link' ? target.id : null,
      attempt_id: attempt.attemptId,
      amount: attempt.amount,
      currency: target.currency,
      payer_name: attempt.payerName,
      payer_email: attempt.payerEmail,
      method: 'card',
      provider,
      tokenization_id: null,
      reference: target.reference,
      description: target.title,
      ...(checkout ? { checkout_slot: checkout.slot, checkout_payer: checkout.payer } : {}),
    });
    return { pending };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const earlier = await findPaymentByAttempt(db, attempt.attemptId);
    if (!earlier) throw error;
    return { earlier };
  }
}

export async function checkout(ctx: UseCaseContext, request: CheckoutRequest): Promise<CheckoutOutcome> {
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
  const fail = async (failure: { code: string; message: string }) => {
    const failed = await db.transaction(async (trx) => {
      const payment = await markPaymentFailed(trx, pending._id, failure, cardSummary);
      await notifyPaymentFailed(trx, payment, linkFields);
      return payment;
    });
    ctx.outbox.nudge();
    return failed;
  };
  let authorization;
  try {
    authorization = await provider.authorize({ reference: pending._id, amount: request.amount, currency: target.currency, card, description: target.title });
  } catch (error) {
    await fail({ code: 'processing_error', message: 'The payment could not be processed.' });
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
    const payment = await markPaymentPaid(trx, pending._id, authorization.authorizationId, cardSummary, at);
    await notifyPaymentSucceeded(trx, payment, { ...linkFields, title: target.title });
    await provider.capture(authorization.authorizationId);
    return payment;
  });
  if (paid) {
    ctx.outbox.nudge();
    return { result: 'paid', payment: paid };
  }

  await provider.void(authorization.authorizationId);
  const payment = await fail({ code: 'link_unavailable', message: UNAVAILABLE_MESSAGE });
  return { result: 'unavailable', payment };
}
