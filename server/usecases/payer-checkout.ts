// The payer's checkout on a link, one use case for each thing the payer does on the pay pages:
//   - showPaymentPage: the link, how its business's payers pay, and why it cannot be paid now if it cannot;
//   - submitPayment: a submitted form, answered once. A form submitted before (its attempt id) is
//     answered from its first submit, waiting for one still in flight; a link that cannot be paid is
//     refused; otherwise the payment is taken on our card form, or the payer sent to the acquirer's page;
//   - returnFromAcquirer: the payer back from the acquirer's page, told how the payment stands there;
//   - showThankYou: the payment a payer has just made, for our thank-you page.
// The pages keep what belongs to HTTP: reading the form's fields and wording their errors, the CSRF
// check, the signed return address and the rate limits, which `submitPayment` asks at the moments only
// it knows (a card about to reach the acquirer, a decline, a new checkout about to open).
//
// Taking a payment on our card form, in the order that keeps money and records consistent:
//   1. record the attempt as pending (its attempt_id is unique: a second submit of the same form
//      finds the first attempt instead of charging again);
//   2. ask the acquirer to authorize;
//   3. in one transaction, claim the link (the guarded UPDATE decides whether it can still be paid),
//      record the payment as paid and enqueue its notifications, capturing inside that transaction; a
//      payer who lost the race is voided.
// Taking it on the acquirer's own page (Stripe Checkout):
//   1. record the attempt as pending in one of the link's checkout slots;
//   2. open the acquirer's page for it (our payment id is the idempotency reference and rides along in
//      the metadata) and remember the page's session on the payment;
//   3. the payer pays there and comes back; the acquirer's notification, the return, or the pending
//      sweep settles the payment (usecases/settlement.ts), each reading the state back from the acquirer.
// Each post of that form would open a page at the acquirer and leave a pending payment, so a flood of
// posts is bounded twice: a browser that posts again while its own checkout on the link is open (same
// amount, name and e-mail) is sent back to it, and a link has at most so many checkouts open at once
// (its slots: a pending payment holds one, a unique index keeps two from holding the same one).
import { isId, newId } from '../domain/ids.js';
import { payPath, type LinkKind } from '../domain/payer-urls.js';
import { OPEN_LINK_ACTIVE, PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../domain/statuses.js';
import type { Card } from '../acquirers/cards.js';
import { isUniqueViolation } from '../store/errors.js';
import type { Executor } from '../store/executor.js';
import { findTargetLocale } from '../store/business-profile.js';
import { claimOpenPaymentLink, findOpenPaymentLinkForPayer } from '../store/open-payment-links.js';
import { claimPaymentLinkAsPaid, findPaymentLinkForPayer } from '../store/payment-links.js';
import {
  findPayment,
  findPaymentByAttempt,
  insertPendingPayment,
  listOpenCheckouts,
  markPaymentAwaitingProvider,
  markPaymentFailed,
  markPaymentPaid,
  setPaymentSession,
  type PaymentRecord,
} from '../store/payments.js';
import { nowIso } from '../store/timestamps.js';
import type { UseCaseContext } from './context.js';
import { hostedStateOf } from './hosted-checkout.js';
import { notifyPaymentFailed, notifyPaymentSucceeded } from './notify.js';
import { acquirerForPayer, type PayerAcquirer } from './payer.js';
import { merchantFor, type Merchant } from './business-profile.js';
import { LINK_UNAVAILABLE, settleHostedPayment } from './settlement.js';

export interface PaymentTarget {
  kind: LinkKind;
  id: string;
  businessId: number;
  currency: string;
  title: string;
  reference: string | null;
  reference_2: string | null;
}

/** A link as its pay page shows it. */
export interface PayableLink {
  target: PaymentTarget;
  description: string | null;
  redirectUrl: string | null;
  /** Cents, for a payment link. */
  fixedAmount?: number;
  /** Cents, for an open link. */
  minimumAmount?: number;
  /** The payer a payment link is addressed to. */
  payerEmail?: string;
  /** Card form here, or the acquirer's own page (Stripe Checkout). */
  acquirer: PayerAcquirer;
  /** Who asks for the money, as payers see it. */
  merchant: Merchant;
  /** The language the link's payer is expected to read, when the merchant said. */
  locale: string | null;
}

/** Why a link cannot be paid now. */
export type LinkRefusal = 'not_found' | 'withdrawn' | 'paid' | 'paused' | 'expired' | 'closed';

/** The link (when it exists at all) and, when it cannot be paid now, why. */
export type LinkLookup = { link: PayableLink; refusal: LinkRefusal | undefined } | { link: undefined; refusal: 'not_found' };

const NOT_FOUND = { link: undefined, refusal: 'not_found' } as const;
const OPEN_LINK_REFUSALS: Record<string, LinkRefusal | undefined> = { paused: 'paused', expired: 'expired', exhausted: 'closed' };

/** How long the acquirer's page takes the payment (Stripe accepts 30 minutes to 24 hours). */
const HOSTED_PAGE_LIFETIME_MS = 60 * 60_000;
/** How long a submit of an attempt still in flight waits for it to settle, and how often it looks. */
const SETTLE_WAIT_MS = 10_000;
const SETTLE_POLL_MS = 100;

/** A pay page: the link and whether it can be paid now (the claim that records a payment decides again). */
export async function showPaymentPage(ctx: UseCaseContext, kind: LinkKind, id: string): Promise<LinkLookup> {
  if (!isId(id)) return NOT_FOUND;
  if (kind === 'payment_link') {
    const link = await findPaymentLinkForPayer(ctx.db, id);
    if (!link) return NOT_FOUND;
    return {
      link: { ...(await payable(ctx, kind, link)), fixedAmount: link.amount, payerEmail: link.email },
      refusal: link.deleted ? 'withdrawn' : link.paid ? 'paid' : link.status === 'Paused' ? 'paused' : link.status === 'Expired' ? 'expired' : undefined,
    };
  }
  const link = await findOpenPaymentLinkForPayer(ctx.db, id);
  if (!link) return NOT_FOUND;
  return {
    link: { ...(await payable(ctx, kind, link)), minimumAmount: link.minimum_amount },
    refusal: link.deleted ? 'withdrawn' : link.status_id === OPEN_LINK_ACTIVE ? undefined : (OPEN_LINK_REFUSALS[link.state] ?? 'withdrawn'),
  };
}

/** What both kinds of link show alike. */
async function payable(
  ctx: UseCaseContext,
  kind: LinkKind,
  link: Pick<PaymentTarget, 'currency' | 'title' | 'reference' | 'reference_2'> & {
    _id: string;
    business_id: number;
    description: string | null;
    redirect_url: string | null;
    locale: string | null;
  },
): Promise<PayableLink> {
  return {
    target: {
      kind,
      id: link._id,
      businessId: link.business_id,
      currency: link.currency,
      title: link.title,
      reference: link.reference,
      reference_2: link.reference_2,
    },
    description: link.description,
    redirectUrl: link.redirect_url,
    acquirer: await acquirerForPayer(ctx, link.business_id),
    merchant: await merchantFor(ctx.db, link.business_id),
    locale: link.locale,
  };
}

/** What the payer entered, checked against the link by the page. */
export interface PayerEntries {
  /** Cents. */
  amount: number;
  name: string;
  email: string;
  /** On our card form; absent for a business whose payers pay on the acquirer's page. */
  card?: Card;
}

/** The limits of the HTTP edge (server/pages/limits.ts) on a link: each answers seconds the payer must wait, or undefined to go on. */
export interface SubmitLimits {
  /** A card about to reach the acquirer. */
  card(linkId: string, card: Card): Promise<number | undefined>;
  /** The acquirer declined the card. */
  declined(linkId: string): Promise<void>;
  /** A new checkout about to open on the acquirer's page for this client. */
  checkout(linkId: string): Promise<number | undefined>;
  /** How many checkouts on the acquirer's page a link may have open at once. */
  openCheckouts: number;
}

export interface PaymentSubmission<E> {
  kind: LinkKind;
  linkId: string;
  /** From the form; undefined when the form is not one the page served (its CSRF token or attempt id does not hold). */
  attemptId: string | undefined;
  /** The payer's entries read for this link (its fields and amount rules depend on it), or what is wrong with them. */
  read(link: PayableLink): { entries: PayerEntries } | { errors: E };
  limits: SubmitLimits;
  /** The payer's browser (an HMAC of its form cookie), recorded on the checkouts it opens; null when unknown. */
  browser: string | null;
  /** Where the acquirer's page sends the payer back, made from the payment id (signed by the page). */
  returnUrlFor(paymentId: string): string;
}

export type SubmitOutcome<E> =
  | { result: 'refused'; refusal: LinkRefusal }
  /** The form was not one the page served, or was served for another link. */
  | { result: 'form_expired' }
  | { result: 'invalid'; link: PayableLink; errors: E }
  /** A limit of the edge refused the attempt, or every checkout slot of the link is held (`busy`). */
  | { result: 'limited' | 'busy'; retryAfter: number }
  | { result: 'paid'; link: PayableLink; payment: PaymentRecord }
  | { result: 'declined'; link: PayableLink }
  /** The link stopped taking payment before this payment could be recorded, nothing taken: why, read again now. */
  | { result: 'not_taken'; refusal: LinkRefusal | undefined }
  /** Still being processed after the wait. */
  | { result: 'in_progress' }
  | { result: 'to_acquirer'; link: PayableLink; url: string }
  /** An attempt on the acquirer's page that has already ended: the payer goes where its return would have. */
  | { result: 'ended'; link: PayableLink; payment: PaymentRecord }
  /** The acquirer could not open its page; the attempt is failed (nothing was taken). */
  | { result: 'acquirer_unavailable'; error: unknown };

export async function submitPayment<E>(ctx: UseCaseContext, submission: PaymentSubmission<E>): Promise<SubmitOutcome<E>> {
  const { link, refusal } = await showPaymentPage(ctx, submission.kind, submission.linkId);
  if (!link) return { result: 'refused', refusal: 'not_found' };
  const { attemptId } = submission;
  if (attemptId === undefined) return { result: 'form_expired' };

  // A repeated submit of a known attempt (double click, reload) is answered from its record.
  const earlier = await findPaymentByAttempt(ctx.db, attemptId);
  if (earlier) {
    if ((earlier.payment_link_id ?? earlier.open_payment_link_id) !== link.target.id) return { result: 'form_expired' };
    if (link.acquirer.hosted) return hostedAnswer(link, await resume(ctx, earlier));
    return answer(ctx, link, await settled(ctx, outcomeOf(earlier)));
  }
  if (refusal) return { result: 'refused', refusal };

  const read = submission.read(link);
  if ('errors' in read) return { result: 'invalid', link, errors: read.errors };
  const attempt = { target: link.target, attemptId, amount: read.entries.amount, payerName: read.entries.name, payerEmail: read.entries.email };
  if (link.acquirer.hosted) return hostedAnswer(link, await startHostedCheckout(ctx, link, attempt, submission));

  const { card } = read.entries;
  if (!card) throw new Error('a card form submitted without its card');
  const refused = await submission.limits.card(link.target.id, card);
  if (refused !== undefined) return { result: 'limited', retryAfter: refused };
  const outcome = await payByCard(ctx, { ...attempt, card });
  if (outcome.result === 'declined') await submission.limits.declined(link.target.id);
  return answer(ctx, link, await settled(ctx, outcome));
}

/** What a card payment came to, as the payer is answered. */
async function answer<E>(ctx: UseCaseContext, link: PayableLink, outcome: CheckoutOutcome): Promise<SubmitOutcome<E>> {
  switch (outcome.result) {
    case 'paid':
      return { result: 'paid', link, payment: outcome.payment };
    case 'declined':
      return { result: 'declined', link };
    case 'unavailable':
      return { result: 'not_taken', refusal: (await showPaymentPage(ctx, link.target.kind, link.target.id)).refusal };
    case 'in_progress':
      return { result: 'in_progress' };
  }
}

function hostedAnswer<E>(link: PayableLink, started: HostedCheckoutStart): SubmitOutcome<E> {
  switch (started.result) {
    case 'redirect':
      return { result: 'to_acquirer', link, url: started.url };
    case 'settled':
      return { result: 'ended', link, payment: started.payment };
    case 'acquirer_unavailable':
      return { result: 'acquirer_unavailable', error: started.error };
    default:
      return started;
  }
}

/** A submit of an attempt still in flight waits for the first to settle, then answers the same. */
async function settled(ctx: UseCaseContext, outcome: CheckoutOutcome): Promise<CheckoutOutcome> {
  let current = outcome;
  for (let waited = 0; current.result === 'in_progress' && waited < SETTLE_WAIT_MS; waited += SETTLE_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    const payment = await findPaymentByAttempt(ctx.db, current.payment.attempt_id);
    if (payment) current = outcomeOf(payment);
  }
  return current;
}

/** An attempt on a link: who pays how much. */
export interface LinkAttempt {
  target: PaymentTarget;
  /** From the form; the same attempt submitted twice is one payment. */
  attemptId: string;
  /** Cents. */
  amount: number;
  payerName: string | null;
  payerEmail: string | null;
}

export type CheckoutOutcome =
  | { result: 'paid'; payment: PaymentRecord }
  | { result: 'declined'; payment: PaymentRecord; message: string }
  /** The link was paid (or removed) by the time this payer's payment could be recorded. */
  | { result: 'unavailable'; payment: PaymentRecord | null }
  /** The same attempt is being processed by an earlier submit. */
  | { result: 'in_progress'; payment: PaymentRecord };

/** What a recorded payment means for the payer; also how a repeated attempt is answered. */
function outcomeOf(payment: PaymentRecord): CheckoutOutcome {
  if (payment.status_id === PAYMENT_PAID) return { result: 'paid', payment };
  if (payment.status_id === PAYMENT_FAILED) {
    if (payment.failure_code === LINK_UNAVAILABLE.code) return { result: 'unavailable', payment };
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
async function recordLinkAttempt(
  db: Executor,
  attempt: LinkAttempt,
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
    await notifyPaymentSucceeded(trx, payment, { ...linkFields, title: target.title }, ctx.publicUrl);
    await provider.capture(authorization.authorizationId);
    return payment;
  });
  if (paid) {
    ctx.outbox.nudge();
    return { result: 'paid', payment: paid };
  }

  await provider.void(authorization.authorizationId);
  const payment = await fail(LINK_UNAVAILABLE);
  return { result: 'unavailable', payment };
}

type HostedCheckoutStart =
  | { result: 'redirect'; url: string }
  /** A repeated submit of an attempt that has already ended (or the payer's checkout that did): answered from its record. */
  | { result: 'settled'; payment: PaymentRecord }
  | { result: 'acquirer_unavailable'; error: unknown }
  | { result: 'limited' | 'busy'; retryAfter: number };

/** A business on an acquirer with its own page: the attempt recorded in a checkout slot, and that page opened for it. */
async function startHostedCheckout<E>(
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
    const failure = { code: 'processing_error', message: 'The payment page could not be opened; nothing was taken.' };
    await db.transaction(async (tx) => {
      const payment = await markPaymentFailed(tx, pending._id, failure);
      await notifyPaymentFailed(tx, payment, { kind: target.kind, _id: target.id, reference: target.reference, reference_2: target.reference_2 });
    });
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
async function resume(ctx: UseCaseContext, earlier: PaymentRecord): Promise<HostedCheckoutStart> {
  if (earlier.status_id !== PAYMENT_PENDING || !earlier.provider_session) return { result: 'settled', payment: earlier };
  const state = await hostedStateOf(ctx, earlier);
  if (state?.state === 'open' && state.redirectUrl) return { result: 'redirect', url: state.redirectUrl };
  return { result: 'settled', payment: state ? (await settleHostedPayment(ctx, earlier, state)).payment : earlier };
}

/** How a payment stands for the payer back from the acquirer's page. */
export type PaymentReturn =
  | { result: 'not_found' }
  | {
      /** `refunded`: taken after its link could no longer be paid, and given back in full. */
      result: 'paid' | 'refunded' | 'failed' | 'pending';
      payment: PaymentRecord;
      /** `locale`: the language the link's payer is expected to read, when the merchant said. */
      link: { kind: LinkKind; id: string; redirectUrl: string | null; locale: string | null };
    };

/**
 * The payer is back from the acquirer's page: the payment as the acquirer says it stands now (never
 * assumed paid). When the acquirer cannot be asked, the record as it is (pending: the notification or
 * the sweep settles it).
 */
export async function returnFromAcquirer(ctx: UseCaseContext, paymentId: string): Promise<PaymentReturn> {
  const payment = isId(paymentId) ? await settledOnReturn(ctx, paymentId) : undefined;
  if (!payment) return { result: 'not_found' };
  const kind = payment.payment_link_id ? 'payment_link' : payment.open_payment_link_id ? 'open_payment_link' : undefined;
  const id = payment.payment_link_id ?? payment.open_payment_link_id;
  if (!kind || !id) return { result: 'not_found' };
  const link = kind === 'payment_link' ? await findPaymentLinkForPayer(ctx.db, id) : await findOpenPaymentLinkForPayer(ctx.db, id);
  const result =
    payment.status_id === PAYMENT_PAID
      ? payment.failure_code === LINK_UNAVAILABLE.code
        ? 'refunded'
        : 'paid'
      : payment.status_id === PAYMENT_FAILED
        ? 'failed'
        : 'pending';
  return { result, payment, link: { kind, id, redirectUrl: link?.redirect_url ?? null, locale: link?.locale ?? null } };
}

async function settledOnReturn(ctx: UseCaseContext, paymentId: string): Promise<PaymentRecord | undefined> {
  const payment = await findPayment(ctx.db, paymentId);
  if (!payment || payment.status_id !== PAYMENT_PENDING) return payment;
  try {
    const state = await hostedStateOf(ctx, payment);
    return state ? (await settleHostedPayment(ctx, payment, state)).payment : payment;
  } catch {
    return payment;
  }
}

/**
 * The payment a thank-you page shows: paid, on the link its (signed) address names, with the language
 * that link's payer is expected to read; otherwise none.
 */
export async function showThankYou(
  ctx: UseCaseContext,
  paymentId: string,
  linkId: string,
): Promise<{ payment: PaymentRecord; locale: string | null } | undefined> {
  const payment = isId(paymentId) ? await findPayment(ctx.db, paymentId) : undefined;
  const matches = payment && (payment.payment_link_id === linkId || payment.open_payment_link_id === linkId);
  if (!matches || payment.status_id !== PAYMENT_PAID) return undefined;
  const locale = await findTargetLocale(ctx.db, payment.payment_link_id ? 'payment_link' : 'open_payment_link', linkId);
  return { payment, locale };
}
