// The hosted pay pages: /payment/pay?id=... for a payment link (fixed amount, one payer) and
// /payment/open-link/pay?id=... for an open link (the payer chooses an amount from the minimum).
import type Koa from 'koa';
import { isEmail, maskEmail } from '../domain/email.js';
import { AMOUNT_MAX_CENTS, formatUnits, parseUnits } from '../domain/money.js';
import { withQuery } from '../domain/urls.js';
import { OPEN_LINK_ACTIVE } from '../domain/statuses.js';
import { checkout, outcomeOf, type CheckoutOutcome, type PaymentTarget } from '../usecases/checkout.js';
import { startHostedCheckout } from '../usecases/hosted-checkout.js';
import { acquirerForPayer, attemptOf, openPaymentLinkForPayer, paymentLinkForPayer, type PayerAcquirer } from '../usecases/payer.js';
import { browserCookie, csrfToken, csrfValid } from './csrf.js';
import type { PageDeps } from './deps.js';
import {
  FIELD_MAX_LENGTH,
  alertBox,
  cardFields,
  checkName,
  field,
  hiddenFields,
  isAttemptId,
  newAttemptId,
  readCard,
  readField,
  sandboxCards,
  type FormErrors,
  type FormState,
} from './form.js';
import { originOf, setPageSecurityHeaders } from './headers.js';
import { merchantRedirectUrl } from './merchant-redirect.js';
import { html, page } from '../html.js';
import { tooManyAttempts, tooManyCheckouts } from './limits.js';
import { CARD_DECLINED, messagePage } from './messages.js';
import { signReturn, signThankYou } from './signing.js';

export const THANK_YOU_PATH = '/payment/thank-you';
export const RETURN_PATH = '/payment/return';
export const POSTER_PATH = '/payment/open-link/poster';

export const posterPath = (openLinkId: string) => `${POSTER_PATH}?id=${openLinkId}`;

interface Payable {
  target: PaymentTarget;
  description: string | null;
  redirectUrl: string | null;
  /** Cents, for a payment link. */
  fixedAmount?: number;
  /** Cents, for an open link. */
  minimumAmount?: number;
  /** The payer a payment link is addressed to. */
  payerEmail?: string;
  action: string;
  /** Card form here, or the acquirer's own page (Stripe Checkout). */
  acquirer: PayerAcquirer;
}

interface Refusal {
  status: number;
  heading: string;
  message: string;
}

/** The link (when it exists at all) and, when it cannot be paid now, why. */
interface Lookup {
  link?: Payable;
  refusal?: Refusal;
}

export const notFound: Refusal = {
  status: 404,
  heading: 'Payment link not found',
  message: 'Check the link you were given, or ask the merchant for a new one.',
};
const gone: Refusal = {
  status: 410,
  heading: 'Payment link no longer available',
  message: 'The merchant has withdrawn this link. Ask them for a new one if you still need to pay.',
};
const expiredForm: Refusal = { status: 403, heading: 'This form has expired', message: 'Reload the payment page and try again. You have not been charged.' };
const alreadyPaid: Refusal = { status: 409, heading: 'Already paid', message: 'This payment link has already been paid. Nothing more is due.' };
const paused: Refusal = {
  status: 410,
  heading: 'Payment link paused',
  message: 'The merchant has paused this link: it takes no payment for now. Ask them when it will be open again.',
};
const expired: Refusal = {
  status: 410,
  heading: 'Payment link expired',
  message: 'This link has expired and takes no payment. Ask the merchant for a new one.',
};
const closed: Refusal = {
  status: 410,
  heading: 'Payment link closed',
  message: 'This link has taken all the payments it was open for and takes no more. Ask the merchant if you still need to pay.',
};
const OPEN_LINK_REFUSALS: Record<string, Refusal | undefined> = { paused, expired, exhausted: closed };

/**
 * A payer whose card was authorised after the link stopped taking payment (the claim that records the
 * payment refused it): the page a later payer would get says why, read again now, and that this
 * payer's authorisation was let go. Only a link that reads as payable again by now gives no reason.
 */
function notTaken(now: Refusal | undefined): Refusal {
  if (!now) return { status: 409, heading: 'Payment not taken', message: 'This link can no longer be paid. You have not been charged.' };
  return { ...now, message: `${now.message} You have not been charged.` };
}

async function lookupPaymentLink(deps: PageDeps, id: string): Promise<Lookup> {
  const link = await paymentLinkForPayer(deps, id);
  if (!link) return { refusal: notFound };
  return {
    link: {
      target: {
        kind: 'payment_link',
        id: link._id,
        businessId: link.business_id,
        currency: link.currency,
        title: link.title,
        reference: link.reference,
        reference_2: link.reference_2,
      },
      description: link.description,
      redirectUrl: link.redirect_url,
      fixedAmount: link.amount,
      payerEmail: link.email,
      action: `/payment/pay?id=${link._id}`,
      acquirer: await acquirerForPayer(deps, link.business_id),
    },
    refusal: link.deleted ? gone : link.paid ? alreadyPaid : link.status === 'Paused' ? paused : link.status === 'Expired' ? expired : undefined,
  };
}

export async function lookupOpenLink(deps: PageDeps, id: string): Promise<Lookup> {
  const link = await openPaymentLinkForPayer(deps, id);
  if (!link) return { refusal: notFound };
  return {
    link: {
      target: {
        kind: 'open_payment_link',
        id: link._id,
        businessId: link.business_id,
        currency: link.currency,
        title: link.title,
        reference: link.reference,
        reference_2: link.reference_2,
      },
      description: link.description,
      redirectUrl: link.redirect_url,
      minimumAmount: link.minimum_amount,
      action: `/payment/open-link/pay?id=${link._id}`,
      acquirer: await acquirerForPayer(deps, link.business_id),
    },
    refusal: link.deleted ? gone : link.status_id === OPEN_LINK_ACTIVE ? undefined : (OPEN_LINK_REFUSALS[link.state] ?? gone),
  };
}

const money = (currency: string, cents: number) => `${currency} ${formatUnits(cents)}`;

function payForm(link: Payable, state: FormState) {
  const { target } = link;
  const { values, errors } = state;
  const heading =
    link.fixedAmount !== undefined
      ? html`<p class="amount">${money(target.currency, link.fixedAmount)}</p>`
      : html`<p class="muted">Pay any amount from <strong>${money(target.currency, link.minimumAmount ?? 0)}</strong>.</p>`;
  const amountField =
    link.minimumAmount !== undefined
      ? field({
          id: 'amount',
          label: 'Amount',
          value: values.amount,
          errors,
          attributes: html`inputmode="decimal" required maxlength="${FIELD_MAX_LENGTH.amount}" aria-describedby="amount_hint"`,
        })
      : html``;
  const emailField =
    link.payerEmail !== undefined
      ? field({ id: 'email', label: 'Email', value: maskEmail(link.payerEmail), errors, attributes: html`readonly` })
      : field({
          id: 'email',
          label: 'Email',
          value: values.email,
          errors,
          attributes: html`type="email" autocomplete="email" required maxlength="${FIELD_MAX_LENGTH.email}"`,
        });
  return html`<h1>${target.title}</h1>
${link.description ? html`<p>${link.description}</p>` : ''}
${heading}
${alertBox(state.alert)}
<form method="post" action="${link.action}" novalidate>
${hiddenFields(state)}
${amountField}${link.minimumAmount !== undefined ? html`<span class="muted" id="amount_hint">In ${target.currency}, at least ${formatUnits(link.minimumAmount)}.</span>` : ''}
${field({ id: 'name', label: 'Name', value: values.name, errors, attributes: html`autocomplete="cc-name" required maxlength="${FIELD_MAX_LENGTH.name}"` })}
${emailField}
${link.acquirer.hosted ? html`<p class="muted">You pay on the next page, run by our payment provider: by card, FPX online banking or GrabPay.</p>` : cardFields(errors)}
<button type="submit">${link.acquirer.hosted ? 'Continue to payment' : 'Pay'}</button>
</form>
${link.minimumAmount !== undefined ? html`<p><a href="${posterPath(target.id)}">Print a poster with a QR code</a></p>` : ''}
${link.acquirer.hosted ? '' : sandboxCards()}`;
}

/** Where our forms may post and be redirected to: the merchant's redirect origin, and a hosted acquirer's pages. */
function formOrigins(link: Payable): string[] {
  return [...originOf(link.redirectUrl), ...(link.acquirer.pageOrigin ? originOf(link.acquirer.pageOrigin) : [])];
}

function respond(ctx: Koa.Context, status: number, title: string, body: ReturnType<typeof html>, origins: string[] = []): void {
  setPageSecurityHeaders(ctx, origins);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(title, body);
}

export function refuse(ctx: Koa.Context, refusal: Refusal): void {
  respond(ctx, refusal.status, refusal.heading, messagePage(refusal.heading, refusal.message));
}

/** The amount in cents: the link's own, or the payer's (already read with `readField`) for an open link. */
function readAmount(link: Payable, amount: string, errors: FormErrors): number {
  if (link.fixedAmount !== undefined) return link.fixedAmount;
  if (errors.amount) return 0;
  const minimum = link.minimumAmount ?? 0;
  const parsed = parseUnits(amount.replace(/,/g, ''));
  const currency = link.target.currency;
  if (parsed.kind === 'not-a-number') errors.amount = 'Enter an amount, for example 25.00.';
  else if (parsed.kind === 'too-precise') errors.amount = 'Enter the amount with at most two decimals.';
  else if (parsed.cents < BigInt(minimum)) errors.amount = `The amount must be at least ${money(currency, minimum)}.`;
  else if (parsed.cents > BigInt(AMOUNT_MAX_CENTS)) errors.amount = `The amount must not be more than ${money(currency, AMOUNT_MAX_CENTS)}.`;
  return parsed.kind === 'ok' ? Number(parsed.cents) : 0;
}

/** A second submit of an attempt still in flight waits for the first to settle, then answers the same. */
async function settled(deps: PageDeps, outcome: CheckoutOutcome): Promise<CheckoutOutcome> {
  let current = outcome;
  for (let waited = 0; current.result === 'in_progress' && waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const payment = await attemptOf(deps, current.payment.attempt_id);
    if (payment) current = outcomeOf(payment);
  }
  return current;
}

function makeHandlers(deps: PageDeps, lookup: (deps: PageDeps, id: string) => Promise<Lookup>) {
  const show: Koa.Middleware = async (ctx) => {
    const { link, refusal } = await lookup(deps, String(ctx.query.id ?? ''));
    if (!link || refusal) return refuse(ctx, refusal ?? notFound);
    const values = link.minimumAmount !== undefined ? { amount: formatUnits(link.minimumAmount) } : {};
    respond(ctx, 200, link.target.title, payForm(link, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values, errors: {} }), formOrigins(link));
  };

  const answer = async (ctx: Koa.Context, link: Payable, outcome: CheckoutOutcome, form: (status: number, alert: string) => void) => {
    switch (outcome.result) {
      case 'paid':
        return redirectAfterPayment(ctx, deps, link.target.id, link.redirectUrl, outcome.payment);
      case 'declined':
        return form(402, CARD_DECLINED);
      case 'unavailable':
        return refuse(ctx, notTaken((await lookup(deps, link.target.id)).refusal));
      case 'in_progress':
        return refuse(ctx, { status: 409, heading: 'Payment in progress', message: 'Your payment is still being processed. Refresh this page in a moment.' });
    }
  };

  const pay: Koa.Middleware = async (ctx) => {
    const { link, refusal } = await lookup(deps, String(ctx.query.id ?? ''));
    if (!link) return refuse(ctx, refusal ?? notFound);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const attemptId = body.attempt_id;
    if (!csrfValid(ctx, body.csrf_token) || !isAttemptId(attemptId)) return refuse(ctx, expiredForm);
    // Every field is capped before anything parses it (an over-long one is an error from here on);
    // fields this link's form does not have are ignored, unread.
    const errors: FormErrors = {};
    const values = {
      name: readField(body, 'name', errors),
      email: link.payerEmail === undefined ? readField(body, 'email', errors) : '',
      amount: link.minimumAmount !== undefined ? readField(body, 'amount', errors) : '',
    };
    const form = (status: number, alert: string, errors: FormErrors = {}) =>
      respond(ctx, status, link.target.title, payForm(link, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values, errors, alert }), formOrigins(link));

    // A repeated submit of a known attempt (double click, reload) is answered from its record.
    const earlier = await attemptOf(deps, attemptId);
    if (earlier && link.acquirer.hosted && (earlier.payment_link_id ?? earlier.open_payment_link_id) === link.target.id) {
      return payHosted(ctx, deps, link, { attemptId, amount: earlier.amount, name: earlier.payer_name, email: earlier.payer_email });
    }
    if (earlier) {
      if ((earlier.payment_link_id ?? earlier.open_payment_link_id) !== link.target.id) return refuse(ctx, expiredForm);
      return answer(ctx, link, await settled(deps, outcomeOf(earlier)), form);
    }
    if (refusal) return refuse(ctx, refusal);

    const amount = readAmount(link, values.amount, errors);
    const name = checkName(values.name, errors);
    const email = link.payerEmail ?? values.email;
    if (link.payerEmail === undefined && !errors.email && !isEmail(email)) errors.email = 'Enter a valid email address.';
    if (link.acquirer.hosted) {
      if (Object.keys(errors).length > 0) return form(422, 'Please correct the highlighted fields.', errors);
      return payHosted(ctx, deps, link, { attemptId, amount, name, email });
    }
    const card = readCard(body, errors);
    if (!card || Object.keys(errors).length > 0) return form(422, 'Please correct the highlighted fields.', errors);
    const refused = await deps.pageLimiter.cardAttempt(link.target.id, card.number);
    if (refused !== undefined) return tooManyAttempts(ctx, refused);

    const outcome = await checkout(deps, { target: link.target, attemptId, amount, payerName: name, payerEmail: email, card });
    if (outcome.result === 'declined') await deps.pageLimiter.declined(link.target.id);
    return answer(ctx, link, await settled(deps, outcome), form);
  };
  return { show, pay };
}

/**
 * After a payment is recorded (paid, or pending at the bank): to the merchant's redirect_url with the
 * seed's parameters and their `redirect_signature` (the business's key), or to our thank-you page,
 * which shows the payment only to whoever holds its `signature` (the pages' own key): the payer.
 */
export async function redirectAfterPayment(
  ctx: Koa.Context,
  deps: PageDeps,
  linkId: string,
  redirectUrl: string | null,
  payment: { _id: string; status_id: number; business_id: number },
): Promise<void> {
  const result = { payment_id: payment._id, payment_link_id: linkId, payment_status: String(payment.status_id) };
  const target = redirectUrl
    ? await merchantRedirectUrl(ctx, deps, payment.business_id, redirectUrl, 'payment', result)
    : withQuery(`${deps.publicUrl}${THANK_YOU_PATH}`, { ...result, signature: signThankYou(deps.pageKeys.thankYou, result) });
  setPageSecurityHeaders(ctx, originOf(redirectUrl));
  ctx.status = 303;
  ctx.redirect(target);
}

/** Our return address on an acquirer's page: the payment id, signed (server/pages/return.ts reads it). */
export function returnUrlOf(deps: PageDeps, paymentId: string): string {
  return withQuery(`${deps.publicUrl}${RETURN_PATH}`, { payment_id: paymentId, signature: signReturn(deps.pageKeys.thankYou, 'payment', paymentId) });
}

/**
 * A business on an acquirer with its own page: the attempt is recorded, and the payer sent there (or
 * back to the checkout this browser already has open on the link).
 */
async function payHosted(
  ctx: Koa.Context,
  deps: PageDeps,
  link: Payable,
  payer: { attemptId: string; amount: number; name: string | null; email: string | null },
): Promise<void> {
  const browser = browserCookie(ctx);
  const started = await startHostedCheckout(deps, {
    target: link.target,
    attemptId: payer.attemptId,
    amount: payer.amount,
    payerName: payer.name,
    payerEmail: payer.email,
    description: link.description,
    returnUrlFor: (paymentId) => returnUrlOf(deps, paymentId),
    cancelUrl: `${deps.publicUrl}${link.action}`,
    payer: browser ? deps.pageLimiter.browserKey(browser) : null,
    openLimit: deps.pageLimiter.openCheckoutsPerLink,
    admit: () => deps.pageLimiter.checkout(link.target.id, ctx.ip),
  });
  if (started.result === 'limited') return tooManyAttempts(ctx, started.retryAfter);
  if (started.result === 'busy') return tooManyCheckouts(ctx, started.retryAfter);
  if (started.result === 'redirect') {
    setPageSecurityHeaders(ctx, formOrigins(link));
    ctx.status = 303;
    ctx.redirect(started.url);
    return;
  }
  if (started.result === 'acquirer_unavailable') {
    (ctx.state.log as { error(details: object, message: string): void } | undefined)?.error(
      { err: started.error },
      'the acquirer could not open its payment page',
    );
    return refuse(ctx, {
      status: 502,
      heading: 'Payment not started',
      message: 'Our payment provider is not answering right now. You have not been charged. Try again in a moment.',
    });
  }
  // A repeated submit of an attempt that already ended: where its own return would have sent the payer.
  setPageSecurityHeaders(ctx, formOrigins(link));
  ctx.status = 303;
  ctx.redirect(returnUrlOf(deps, started.payment._id));
}

export function paymentLinkPage(deps: PageDeps) {
  return makeHandlers(deps, lookupPaymentLink);
}

export function openLinkPage(deps: PageDeps) {
  return makeHandlers(deps, lookupOpenLink);
}
