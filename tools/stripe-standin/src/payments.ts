// What happens to PaymentIntents, Charges, SetupIntents and Checkout Sessions as a payment goes on,
// with the events Stripe emits at each step: shared by the API (off-session charges, refunds), the
// hosted pages (a payer paying) and the controls (a bank confirming later).
import type Stripe from 'stripe';
import type { Decline } from './cards.js';
import type { Context } from './context.js';
import * as objects from './objects.js';
import { recordCharge, recordRefund, recordRefundFailure } from './settlement.js';
import { now, type Account } from './state.js';

export type { Context };

export type Outcome = 'succeeded' | 'pending' | Decline;

/** Redirect methods whose bank refuses: the PaymentIntent goes back to needing a payment method, with no charge. */
const AUTHENTICATION_FAILURE = {
  code: 'payment_intent_authentication_failure',
  message:
    'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
};

/** A bank that accepted a payment for later and then refused it. */
export const PROVIDER_DECLINE: Decline = {
  code: 'payment_method_provider_decline',
  declineCode: 'payment_method_provider_decline',
  message: 'The payment was declined by the payment method provider.',
};

export function attach(ctx: Context, method: Stripe.PaymentMethod, customer: string): void {
  method.customer = customer;
  ctx.emit('payment_method.attached', method);
}

/** Confirms a PaymentIntent with a payment method: a charge that succeeds, waits for the bank, or is declined. */
export function attempt(ctx: Context, intent: Stripe.PaymentIntent, method: Stripe.PaymentMethod, outcome: Outcome): Stripe.Charge {
  const charge = ctx.account.add(objects.charge(intent, method, outcome));
  intent.latest_charge = charge.id;
  if (outcome === 'succeeded') {
    recordCharge(ctx.account, charge);
    Object.assign(intent, { status: 'succeeded', payment_method: method.id, amount_received: intent.amount, last_payment_error: null });
    ctx.emit('charge.succeeded', charge);
    ctx.emit('payment_intent.succeeded', intent);
  } else if (outcome === 'pending') {
    Object.assign(intent, { status: 'processing', payment_method: method.id, last_payment_error: null });
    ctx.emit('charge.pending', charge);
    ctx.emit('payment_intent.processing', intent);
  } else {
    Object.assign(intent, { status: 'requires_payment_method', payment_method: null, last_payment_error: objects.cardError(outcome, method, charge.id) });
    ctx.emit('charge.failed', charge);
    ctx.emit('payment_intent.payment_failed', intent);
  }
  return charge;
}

/** The payer's bank refused to authorize a redirect payment (FPX, GrabPay "Fail"). */
export function failAuthentication(ctx: Context, intent: Stripe.PaymentIntent, method: Stripe.PaymentMethod): void {
  Object.assign(intent, {
    status: 'requires_payment_method',
    payment_method: null,
    last_payment_error: {
      ...AUTHENTICATION_FAILURE,
      doc_url: 'https://stripe.com/docs/error-codes/payment-intent-authentication-failure',
      payment_method: method,
      type: 'invalid_request_error',
    },
  });
  ctx.emit('payment_intent.payment_failed', intent);
}

/** A payment method that redirects the payer to their bank: the PaymentIntent waits for that. */
export function requireAction(ctx: Context, intent: Stripe.PaymentIntent, method: Stripe.PaymentMethod): void {
  Object.assign(intent, { status: 'requires_action', payment_method: method.id });
  ctx.emit('payment_intent.requires_action', intent);
}

export function sessionOf(account: Account, intentId: string): Stripe.Checkout.Session | undefined {
  return account.all('checkout.session').find((session) => session.payment_intent === intentId);
}

export function completeSession(
  ctx: Context,
  session: Stripe.Checkout.Session,
  paymentStatus: Stripe.Checkout.Session.PaymentStatus,
  payer: { name: string | null; email: string | null },
): void {
  Object.assign(session, {
    status: 'complete',
    payment_status: paymentStatus,
    url: null,
    customer_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      business_name: null,
      email: payer.email,
      individual_name: null,
      name: payer.name,
      phone: null,
      tax_exempt: 'none',
      tax_ids: [],
    },
  });
  ctx.emit('checkout.session.completed', session);
}

/** The bank's later answer for a payment left processing (FPX "the bank confirms later"). */
export function settle(ctx: Context, intent: Stripe.PaymentIntent, outcome: 'succeeded' | 'failed'): void {
  if (intent.status !== 'processing') throw new Error(`${intent.id} is ${intent.status}: only a processing PaymentIntent can be settled`);
  const charge = ctx.account.get('charge', intent.latest_charge as string)!;
  const method = ctx.account.get('payment_method', charge.payment_method!)!;
  const session = sessionOf(ctx.account, intent.id);
  if (outcome === 'succeeded') {
    Object.assign(charge, { status: 'succeeded', captured: true, paid: true, amount_captured: charge.amount });
    recordCharge(ctx.account, charge);
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
    ctx.emit('charge.succeeded', charge);
    ctx.emit('payment_intent.succeeded', intent);
    if (session) {
      session.payment_status = 'paid';
      ctx.emit('checkout.session.async_payment_succeeded', session);
    }
  } else {
    Object.assign(charge, {
      status: 'failed',
      failure_code: PROVIDER_DECLINE.code,
      failure_message: PROVIDER_DECLINE.message,
      outcome: {
        ...charge.outcome!,
        network_status: 'declined_by_network',
        reason: PROVIDER_DECLINE.declineCode,
        type: 'issuer_declined',
        seller_message: 'The bank declined the payment.',
      },
    });
    Object.assign(intent, {
      status: 'requires_payment_method',
      payment_method: null,
      last_payment_error: objects.cardError(PROVIDER_DECLINE, method, charge.id),
    });
    ctx.emit('charge.failed', charge);
    ctx.emit('payment_intent.payment_failed', intent);
    if (session) ctx.emit('checkout.session.async_payment_failed', session);
  }
}

/** An open session that runs out (its expires_at passed, or expired through the API): what was started in it is canceled. */
export function expireSession(ctx: Context, session: Stripe.Checkout.Session): void {
  Object.assign(session, { status: 'expired', url: null });
  const intent = typeof session.payment_intent === 'string' ? ctx.account.get('payment_intent', session.payment_intent) : undefined;
  if (intent && ['requires_payment_method', 'requires_action'].includes(intent.status)) {
    Object.assign(intent, { status: 'canceled', canceled_at: now(), cancellation_reason: 'abandoned' });
    ctx.emit('payment_intent.canceled', intent);
  }
  const setup = typeof session.setup_intent === 'string' ? ctx.account.get('setup_intent', session.setup_intent) : undefined;
  if (setup?.status === 'requires_payment_method') {
    Object.assign(setup, { status: 'canceled', cancellation_reason: 'abandoned' });
    ctx.emit('setup_intent.canceled', setup);
  }
  ctx.emit('checkout.session.expired', session);
}

/** How much of a charge is refunded: refunds that failed gave their money back to the charge. */
export function refundedAmount(account: Account, chargeId: string): number {
  return account
    .all('refund')
    .filter((refund) => refund.charge === chargeId && refund.status !== 'failed' && refund.status !== 'canceled')
    .reduce((sum, refund) => sum + refund.amount, 0);
}

export function refundCharge(
  ctx: Context,
  charge: Stripe.Charge,
  params: { amount: number; reason: Stripe.Refund.Reason | null; metadata: Stripe.Metadata },
): Stripe.Refund {
  const refund = ctx.account.add(objects.refund(charge, { ...params, card: charge.payment_method_details?.type === 'card' }));
  recordRefund(ctx.account, refund);
  const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
  charge.amount_refunded = refundedAmount(ctx.account, charge.id);
  charge.refunded = charge.amount_refunded === charge.amount;
  ctx.emit('charge.refunded', charge, previous);
  ctx.emit('refund.created', refund);
  // "Charge succeeds but refunding a captured charge fails asynchronously with a failure_reason of
  // expired_or_canceled_card": the refund looks successful at first, then fails.
  if (ctx.account.cards.get(charge.payment_method!)?.refundsFail) ctx.later((later) => failRefund(later, refund, charge));
  return refund;
}

function failRefund(ctx: Context, refund: Stripe.Refund, charge: Stripe.Charge): void {
  Object.assign(refund, { status: 'failed', failure_reason: 'expired_or_canceled_card' });
  recordRefundFailure(ctx.account, refund);
  charge.amount_refunded = refundedAmount(ctx.account, charge.id);
  charge.refunded = charge.amount_refunded === charge.amount;
  ctx.emit('charge.refund.updated', refund, { status: 'succeeded' });
  ctx.emit('refund.updated', refund, { status: 'succeeded' });
}
