// Taking a payment on the acquirer's own page (Stripe Checkout), for a business on such an acquirer:
//   1. record the attempt as pending (its attempt_id is unique: the same form submitted twice is one
//      payment, sent back to the same page), in one of the link's checkout slots;
//   2. open the acquirer's page for it (our payment id is the idempotency reference and rides along in
//      the metadata) and remember the page's session on the payment;
//   3. the payer pays there and comes back; the acquirer's notification, the return, or the pending
//      sweep settles the payment (usecases/settlement.ts), each reading the state back from the acquirer.
// Each post of the form would open a page at the acquirer and leave a pending payment, so a flood of
// posts is bounded twice: a browser that posts again while its own checkout on the link is open (same
// amount, name and e-mail) is sent back to it, and a link has at most so many checkouts open at once
// (its slots: a pending payment holds one, a unique index keeps two from holding the same one).
import { PAYMENT_FAILED, PAYMENT_PENDING } from '../domain/statuses.js';
import type { HostedPaymentState, HostedAcquirer } from '../acquirers/acquirer.js';
import { isUniqueViolation } from '../store/errors.js';
import { findPayment, findPaymentByAttempt, listOpenCheckouts, markPaymentFailed, setPaymentSession, type PaymentRecord } from '../store/payments.js';
import { recordLinkAttempt, type PaymentTarget } from './checkout.js';
import type { UseCaseContext } from './context.js';
import { notifyPaymentFailed } from './notify.js';
import { settleHostedPayment, type Settlement } from './settlement.js';

/** How long the acquirer's page takes the payment (Stripe accepts 30 minutes to 24 hours). */
export const HOSTED_PAGE_LIFETIME_MS = 60 * 60_000;

export interface HostedCheckoutRequest {
  target: PaymentTarget;
  /** From the form; the same attempt submitted twice is one payment. */
  attemptId: string;
  /** Cents. */
  amount: number;
  payerName: string | null;
  payerEmail: string | null;
  description: string | null;
  /** Where the payer comes back to, made from the payment id (signed by the page). */
  returnUrlFor(paymentId: string): string;
  /** Where a payer who gives up on the acquirer's page goes. */
  cancelUrl: string;
  /** The payer's browser (an HMAC of its form cookie), recorded as `checkout_payer`; null when unknown. */
  payer: string | null;
  /** How many checkouts the link may have open at once. */
  openLimit: number;
  /** Asked only before a new checkout is opened: seconds the payer must wait, or undefined to go on. */
  admit(): Promise<number | undefined>;
}

export type HostedCheckoutStart =
  | { result: 'redirect'; url: string; payment: PaymentRecord }
  /** A repeated submit of an attempt that has already ended (or the payer's checkout that did): answered from its record. */
  | { result: 'settled'; payment: PaymentRecord }
  /** The acquirer could not open its page; the attempt is failed (nothing was taken). */
  | { result: 'acquirer_unavailable'; payment: PaymentRecord; error: unknown }
  /** `admit` refused a new checkout. */
  | { result: 'limited'; retryAfter: number }
  /** Every checkout slot of the link is held by a payment still pending: seconds until the oldest page closes. */
  | { result: 'busy'; retryAfter: number };

/** The acquirer behind a hosted payment: the one named on it. */
export async function hostedAcquirerOf(ctx: UseCaseContext, payment: PaymentRecord): Promise<HostedAcquirer | undefined> {
  const provider = await ctx.acquirers.named(payment.business_id, payment.provider);
  return provider.checkout === 'hosted' ? provider : undefined;
}

export async function startHostedCheckout(ctx: UseCaseContext, request: HostedCheckoutRequest): Promise<HostedCheckoutStart> {
  const { db } = ctx;
  const { target } = request;
  const provider = await ctx.acquirers.forBusiness(target.businessId);
  if (provider.checkout !== 'hosted') throw new Error(`business ${target.businessId} takes cards on our own form, not on ${provider.name}'s page`);
  const earlier = await findPaymentByAttempt(db, request.attemptId);
  if (earlier) return resume(ctx, earlier);
  const taken = await takeCheckoutSlot(ctx, request, provider.name);
  if (!('pending' in taken)) return taken;
  const { pending } = taken;

  const metadata: Record<string, string> = { payment_id: pending._id, business_id: String(target.businessId), [`${target.kind}_id`]: target.id };
  let session;
  try {
    session = await provider.startPayment({
      reference: pending._id,
      amount: request.amount,
      currency: target.currency,
      title: target.title,
      description: request.description,
      payerEmail: request.payerEmail,
      metadata,
      returnUrl: request.returnUrlFor(pending._id),
      cancelUrl: request.cancelUrl,
      expiresAt: new Date(Date.now() + HOSTED_PAGE_LIFETIME_MS),
    });
  } catch (error) {
    const failure = { code: 'processing_error', message: 'The payment page could not be opened; nothing was taken.' };
    const failed = await db.transaction(async (tx) => {
      const payment = await markPaymentFailed(tx, pending._id, failure);
      await notifyPaymentFailed(tx, payment, { kind: target.kind, _id: target.id, reference: target.reference, reference_2: target.reference_2 });
      return payment;
    });
    ctx.outbox.nudge();
    return { result: 'acquirer_unavailable', payment: failed, error };
  }
  await setPaymentSession(db, pending._id, session.sessionId);
  return { result: 'redirect', url: session.redirectUrl, payment: { ...pending, provider_session: session.sessionId } };
}

/**
 * The attempt recorded as pending in a free slot of its link. Before that: the payer's own checkout
 * on the link, when it is still open for the same payment, is where the payer goes back to; with every
 * slot held, or `admit` refusing, nothing is recorded.
 */
async function takeCheckoutSlot(
  ctx: UseCaseContext,
  request: HostedCheckoutRequest,
  providerName: string,
): Promise<{ pending: PaymentRecord } | HostedCheckoutStart> {
  let open = await listOpenCheckouts(ctx.db, request.target);
  const own = open.find(
    (payment) =>
      request.payer !== null &&
      payment.checkout_payer === request.payer &&
      payment.provider_session !== null &&
      payment.amount === request.amount &&
      payment.payer_name === request.payerName &&
      payment.payer_email === request.payerEmail,
  );
  if (own) {
    const again = await reopen(ctx, own);
    if (again) return again;
    open = await listOpenCheckouts(ctx.db, request.target);
  }
  let admitted = false;
  // Each pass either records the attempt or finds a slot taken meanwhile by another payer.
  for (let pass = 0; pass <= request.openLimit; pass += 1) {
    const held = new Set(open.map((payment) => payment.checkout_slot));
    let slot = 0;
    while (held.has(slot)) slot += 1;
    if (slot >= request.openLimit) return { result: 'busy', retryAfter: untilOneCloses(open) };
    if (!admitted) {
      const refused = await request.admit();
      if (refused !== undefined) return { result: 'limited', retryAfter: refused };
      admitted = true;
    }
    try {
      const recorded = await recordLinkAttempt(ctx.db, request, providerName, { slot, payer: request.payer });
      return 'earlier' in recorded ? resume(ctx, recorded.earlier) : recorded;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    open = await listOpenCheckouts(ctx.db, request.target);
  }
  return { result: 'busy', retryAfter: untilOneCloses(open) };
}

/**
 * The payer's own checkout, posted for again: its page while the acquirer keeps it open; once closed,
 * settled here (freeing its slot) and, unless it failed, what the payer is answered with.
 */
async function reopen(ctx: UseCaseContext, own: PaymentRecord): Promise<HostedCheckoutStart | undefined> {
  let state;
  try {
    state = await hostedStateOf(ctx, own);
  } catch {
    return undefined;
  }
  if (!state) return undefined;
  if (state.state === 'open') return state.redirectUrl ? { result: 'redirect', url: state.redirectUrl, payment: own } : undefined;
  const { payment } = await settleHostedPayment(ctx, own, state);
  return payment.status_id === PAYMENT_FAILED ? undefined : { result: 'settled', payment };
}

/** Seconds until the oldest open checkout's page closes at the acquirer (a minute when it should have by now). */
function untilOneCloses(open: PaymentRecord[], now = Date.now()): number {
  const closes = Math.min(...open.map((payment) => Date.parse(payment.created_at) + HOSTED_PAGE_LIFETIME_MS));
  const seconds = Math.ceil((closes - now) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 60;
}

/** A known attempt submitted again: back to its open page, or answered as it ended. */
async function resume(ctx: UseCaseContext, earlier: PaymentRecord): Promise<HostedCheckoutStart> {
  if (earlier.status_id !== PAYMENT_PENDING || !earlier.provider_session) return { result: 'settled', payment: earlier };
  const state = await hostedStateOf(ctx, earlier);
  if (state?.state === 'open' && state.redirectUrl) return { result: 'redirect', url: state.redirectUrl, payment: earlier };
  return { result: 'settled', payment: state ? (await settleHostedPayment(ctx, earlier, state)).payment : earlier };
}

/** A hosted payment's state as its acquirer holds it now; undefined when there is nothing to ask it about. */
export async function hostedStateOf(ctx: UseCaseContext, payment: PaymentRecord): Promise<HostedPaymentState | undefined> {
  const provider = await hostedAcquirerOf(ctx, payment);
  if (!provider) return undefined;
  if (payment.provider_session) return provider.paymentState(payment.provider_session);
  if (payment.provider_reference) return provider.chargeState(payment.provider_reference);
  return undefined;
}

/**
 * The payer is back from the acquirer's page: the payment as the acquirer says it stands now (never
 * assumed paid). When the acquirer cannot be asked, the record as it is (pending: the notification or
 * the sweep settles it).
 */
export async function paymentOnReturn(ctx: UseCaseContext, paymentId: string): Promise<PaymentRecord | undefined> {
  const payment = await findPayment(ctx.db, paymentId);
  if (!payment || payment.status_id !== PAYMENT_PENDING) return payment;
  try {
    const state = await hostedStateOf(ctx, payment);
    return state ? (await settleHostedPayment(ctx, payment, state)).payment : payment;
  } catch {
    return payment;
  }
}

/** A pending payment's state read back from its acquirer and settled (a notification's or the sweep's look). */
export async function settleFromAcquirer(ctx: UseCaseContext, payment: PaymentRecord): Promise<Settlement> {
  const state = await hostedStateOf(ctx, payment);
  return state ? settleHostedPayment(ctx, payment, state) : { payment, changed: false };
}
