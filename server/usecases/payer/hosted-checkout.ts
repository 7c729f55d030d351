// Taking a payment on the acquirer's own page (Stripe Checkout):
//   1. record the attempt as pending in one of the link's checkout slots;
//   2. open the acquirer's page for it (our payment id is the idempotency reference and rides along in
//      the metadata) and remember the page's session on the payment;
//   3. the payer pays there and comes back; the acquirer's notification, the return, or the pending
//      sweep settles the payment (usecases/settlement/settle-payment.ts), each reading the state back from the acquirer.
// Each post of that form would open a page at the acquirer and leave a pending payment, so a flood of
// posts is bounded twice: a browser that posts again while its own checkout on the link is open (same
// amount, name and e-mail) is sent back to it, and a link has at most so many checkouts open at once
// (its slots: a pending payment holds one, a unique index keeps two from holding the same one).
import { PAGE_NOT_OPENED } from '../../domain/failures.js';
import { payPath } from '../../domain/payer-urls.js';
import { PAYMENT_FAILED, PAYMENT_PENDING } from '../../domain/statuses.js';
import { isUniqueViolation } from '../../store/errors.js';
import { listOpenCheckouts, markPaymentFailed, setPaymentSession, type PaymentRecord } from '../../store/payments.js';
import type { UseCaseContext } from '../platform/context.js';
import { hostedStateOf } from '../settlement/hosted-checkout-state.js';
import { notifyPaymentFailed } from '../platform/notify.js';
import { settleHostedPayment } from '../settlement/settle-payment.js';
import type { PayableLink } from './pay-page.js';
import { type PaymentSubmission, type LinkAttempt, recordLinkAttempt } from './link-attempts.js';

/** How long the acquirer's page takes the payment (Stripe accepts 30 minutes to 24 hours). */
const HOSTED_PAGE_LIFETIME_MS = 60 * 60_000;

export type HostedCheckoutStart =
  | { result: 'redirect'; url: string }
  /** A repeated submit of an attempt that has already ended (or the payer's checkout that did): answered from its record. */
  | { result: 'settled'; payment: PaymentRecord }
  | { result: 'acquirer_unavailable'; error: unknown }
  | { result: 'limited' | 'busy'; retryAfter: number };

/** A business on an acquirer with its own page: the attempt recorded in a checkout slot, and that page opened for it. */
export async function startHostedCheckout<E>(
  ctx: UseCaseContext,
  link: PayableLink,
  attempt: LinkAttempt,
  submission: PaymentSubmission<E>,
): Promise<HostedCheckoutStart> {
  const { db } = ctx;
  const { target } = attempt;
  const provider = await ctx.acquirers.forBusiness(target.businessId);
  if (provider.checkout !== 'hosted') throw new Error(`business ${target.businessId} takes cards on our own form, not on ${provider.name}'s page`);
  const taken = await takeCheckoutSlot(ctx, attempt, provider.name, submission);
  if (!('pending' in taken)) return taken;
  const { pending } = taken;

  const metadata: Record<string, string> = { payment_id: pending._id, business_id: String(target.businessId), [`${target.kind}_id`]: target.id };
  let session;
  try {
    session = await provider.startPayment({
      reference: pending._id,
      amount: attempt.amount,
      currency: target.currency,
      title: target.title,
      description: link.description,
      payerEmail: attempt.payerEmail,
      metadata,
      returnUrl: submission.returnUrlFor(pending._id),
      cancelUrl: `${ctx.publicUrl}${payPath(target.kind, target.id)}`,
      expiresAt: new Date(Date.now() + HOSTED_PAGE_LIFETIME_MS),
    });
  } catch (error) {
    const failed = await db.transaction(async (tx) => {
      const payment = await markPaymentFailed(tx, pending._id, PAGE_NOT_OPENED);
      await notifyPaymentFailed(tx, payment, { kind: target.kind, _id: target.id, reference: target.reference, reference_2: target.reference_2 });
      return payment;
    });
    ctx.outcomes?.payment(failed, 'failed');
    ctx.outbox.nudge();
    return { result: 'acquirer_unavailable', error };
  }
  await setPaymentSession(db, pending._id, session.sessionId);
  return { result: 'redirect', url: session.redirectUrl };
}

/**
 * The attempt recorded as pending in a free slot of its link. Before that: the payer's own checkout
 * on the link, when it is still open for the same payment, is where the payer goes back to; with every
 * slot held, or the edge's checkout limit refusing, nothing is recorded.
 */
async function takeCheckoutSlot<E>(
  ctx: UseCaseContext,
  attempt: LinkAttempt,
  providerName: string,
  submission: PaymentSubmission<E>,
): Promise<{ pending: PaymentRecord } | HostedCheckoutStart> {
  const { browser, limits } = submission;
  let open = await listOpenCheckouts(ctx.db, attempt.target);
  const own = open.find(
    (payment) =>
      browser !== null &&
      payment.checkout_payer === browser &&
      payment.provider_session !== null &&
      payment.amount === attempt.amount &&
      payment.payer_name === attempt.payerName &&
      payment.payer_email === attempt.payerEmail,
  );
  if (own) {
    const again = await reopen(ctx, own);
    if (again) return again;
    open = await listOpenCheckouts(ctx.db, attempt.target);
  }
  let admitted = false;
  // Each pass either records the attempt or finds a slot taken meanwhile by another payer.
  for (let pass = 0; pass <= limits.openCheckouts; pass += 1) {
    const held = new Set(open.map((payment) => payment.checkout_slot));
    let slot = 0;
    while (held.has(slot)) slot += 1;
    if (slot >= limits.openCheckouts) return { result: 'busy', retryAfter: untilOneCloses(open) };
    if (!admitted) {
      const refused = await limits.checkout(attempt.target.id);
      if (refused !== undefined) return { result: 'limited', retryAfter: refused };
      admitted = true;
    }
    try {
      const recorded = await recordLinkAttempt(ctx.db, attempt, providerName, { slot, payer: browser });
      return 'earlier' in recorded ? resume(ctx, recorded.earlier) : recorded;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    open = await listOpenCheckouts(ctx.db, attempt.target);
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
  if (state.state === 'open') return state.redirectUrl ? { result: 'redirect', url: state.redirectUrl } : undefined;
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
export async function resume(ctx: UseCaseContext, earlier: PaymentRecord): Promise<HostedCheckoutStart> {
  if (earlier.status_id !== PAYMENT_PENDING || !earlier.provider_session) return { result: 'settled', payment: earlier };
  const state = await hostedStateOf(ctx, earlier);
  if (state?.state === 'open' && state.redirectUrl) return { result: 'redirect', url: state.redirectUrl };
  return { result: 'settled', payment: state ? (await settleHostedPayment(ctx, earlier, state)).payment : earlier };
}
