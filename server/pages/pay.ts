// The hosted pay pages: /payment/pay?id=... for a payment link (fixed amount, one payer) and
// /payment/open-link/pay?id=... for an open link (the payer chooses an amount from the minimum). Each
// action reads the request, calls its use case (usecases/payer-checkout.ts) and renders the result;
// the rate limits of the payer forms (./limits.ts) are handed to the use case to ask.
import type Koa from 'koa';
import { isEmail, maskEmail } from '../domain/email.js';
import { AMOUNT_MAX_CENTS, formatUnits, parseUnits } from '../domain/money.js';
import { payPath, posterPath, returnUrl, thankYouUrl, type LinkKind } from '../domain/payer-urls.js';
import { showPaymentPage, submitPayment, type LinkRefusal, type PayableLink, type PayerEntries, type SubmitOutcome } from '../usecases/payer-checkout.js';
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
  type FormValues,
} from './form.js';
import { originOf, setPageSecurityHeaders } from './headers.js';
import { merchantRedirectUrl } from './merchant-redirect.js';
import { html, page } from '../html.js';
import { tooManyAttempts, tooManyCheckouts } from './limits.js';
import { CARD_DECLINED, messagePage } from './messages.js';
import { signReturn, signThankYou } from './signing.js';

interface Refusal {
  status: number;
  heading: string;
  message: string;
}

const notFound: Refusal = {
  status: 404,
  heading: 'Payment link not found',
  message: 'Check the link you were given, or ask the merchant for a new one.',
};
const expiredForm: Refusal = { status: 403, heading: 'This form has expired', message: 'Reload the payment page and try again. You have not been charged.' };

/** What a payer is told of a link that cannot be paid now. */
const REFUSALS: Record<LinkRefusal, Refusal> = {
  not_found: notFound,
  withdrawn: {
    status: 410,
    heading: 'Payment link no longer available',
    message: 'The merchant has withdrawn this link. Ask them for a new one if you still need to pay.',
  },
  paid: { status: 409, heading: 'Already paid', message: 'This payment link has already been paid. Nothing more is due.' },
  paused: {
    status: 410,
    heading: 'Payment link paused',
    message: 'The merchant has paused this link: it takes no payment for now. Ask them when it will be open again.',
  },
  expired: {
    status: 410,
    heading: 'Payment link expired',
    message: 'This link has expired and takes no payment. Ask the merchant for a new one.',
  },
  closed: {
    status: 410,
    heading: 'Payment link closed',
    message: 'This link has taken all the payments it was open for and takes no more. Ask the merchant if you still need to pay.',
  },
};

/**
 * A payer whose card was authorised after the link stopped taking payment (the claim that records the
 * payment refused it): the page a later payer would get says why, read again now, and that this
 * payer's authorisation was let go. Only a link that reads as payable again by now gives no reason.
 */
function notTaken(now: LinkRefusal | undefined): Refusal {
  if (!now) return { status: 409, heading: 'Payment not taken', message: 'This link can no longer be paid. You have not been charged.' };
  const refusal = REFUSALS[now];
  return { ...refusal, message: `${refusal.message} You have not been charged.` };
}

const money = (currency: string, cents: number) => `${currency} ${formatUnits(cents)}`;

function payForm(link: PayableLink, state: FormState) {
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
<form method="post" action="${payPath(target.kind, target.id)}" novalidate>
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
function formOrigins(link: PayableLink): string[] {
  return [...originOf(link.redirectUrl), ...(link.acquirer.pageOrigin ? originOf(link.acquirer.pageOrigin) : [])];
}

function respond(ctx: Koa.Context, status: number, title: string, body: ReturnType<typeof html>, origins: string[] = []): void {
  setPageSecurityHeaders(ctx, origins);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(title, body);
}

export function refuse(ctx: Koa.Context, refusal: Refusal | LinkRefusal): void {
  const { status, heading, message } = typeof refusal === 'string' ? REFUSALS[refusal] : refusal;
  respond(ctx, status, heading, messagePage(heading, message));
}

/** The amount in cents: the link's own, or the payer's (already read with `readField`) for an open link. */
function readAmount(link: PayableLink, amount: string, errors: FormErrors): number {
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

/**
 * The payer's entries for this link, checked: the amount against the link's, the card only on our card
 * form. `errors` already holds what reading the fields found (an over-long field).
 */
function checkEntries(
  link: PayableLink,
  body: Record<string, unknown>,
  values: Required<FormValues>,
  errors: FormErrors,
): { entries: PayerEntries } | { errors: FormErrors } {
  const amount = readAmount(link, values.amount, errors);
  const name = checkName(values.name, errors);
  const email = link.payerEmail ?? values.email;
  if (link.payerEmail === undefined && !errors.email && !isEmail(email)) errors.email = 'Enter a valid email address.';
  const card = link.acquirer.hosted ? undefined : readCard(body, errors);
  if (Object.keys(errors).length > 0) return { errors };
  return { entries: { amount, name, email, ...(card ? { card } : {}) } };
}

function pageFor(deps: PageDeps, kind: LinkKind) {
  const show: Koa.Middleware = async (ctx) => {
    const { link, refusal } = await showPaymentPage(deps, kind, String(ctx.query.id ?? ''));
    if (!link || refusal) return refuse(ctx, refusal ?? 'not_found');
    const values = link.minimumAmount !== undefined ? { amount: formatUnits(link.minimumAmount) } : {};
    respond(ctx, 200, link.target.title, payForm(link, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values, errors: {} }), formOrigins(link));
  };

  const pay: Koa.Middleware = async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const attemptId = csrfValid(ctx, body.csrf_token) && isAttemptId(body.attempt_id) ? body.attempt_id : undefined;
    // Every field is capped before anything parses it (an over-long one is an error from here on);
    // fields this link's form does not have are ignored, unread.
    const errors: FormErrors = {};
    const values = {
      name: readField(body, 'name', errors),
      email: kind === 'open_payment_link' ? readField(body, 'email', errors) : '',
      amount: kind === 'open_payment_link' ? readField(body, 'amount', errors) : '',
    };
    const browser = browserCookie(ctx);
    const outcome = await submitPayment(deps, {
      kind,
      linkId: String(ctx.query.id ?? ''),
      attemptId,
      read: (link) => checkEntries(link, body, values, errors),
      limits: {
        card: (id, card) => deps.pageLimiter.cardAttempt(id, card.number),
        declined: (id) => deps.pageLimiter.declined(id),
        checkout: (id) => deps.pageLimiter.checkout(id, ctx.ip),
        openCheckouts: deps.pageLimiter.openCheckoutsPerLink,
      },
      browser: browser ? deps.pageLimiter.browserKey(browser) : null,
      returnUrlFor: (paymentId) => returnUrlOf(deps, paymentId),
    });
    return render(ctx, outcome, values);
  };

  const render = async (ctx: Koa.Context, outcome: SubmitOutcome<FormErrors>, values: FormValues): Promise<void> => {
    const form = (link: PayableLink, status: number, alert: string, errors: FormErrors = {}) =>
      respond(ctx, status, link.target.title, payForm(link, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values, errors, alert }), formOrigins(link));
    const redirect = (link: PayableLink, url: string) => {
      setPageSecurityHeaders(ctx, formOrigins(link));
      ctx.status = 303;
      ctx.redirect(url);
    };
    switch (outcome.result) {
      case 'refused':
        return refuse(ctx, outcome.refusal);
      case 'form_expired':
        return refuse(ctx, expiredForm);
      case 'invalid':
        return form(outcome.link, 422, 'Please correct the highlighted fields.', outcome.errors);
      case 'limited':
        return tooManyAttempts(ctx, outcome.retryAfter);
      case 'busy':
        return tooManyCheckouts(ctx, outcome.retryAfter);
      case 'paid':
        return redirectAfterPayment(ctx, deps, outcome.link.target.id, outcome.link.redirectUrl, outcome.payment);
      case 'declined':
        return form(outcome.link, 402, CARD_DECLINED);
      case 'not_taken':
        return refuse(ctx, notTaken(outcome.refusal));
      case 'in_progress':
        return refuse(ctx, { status: 409, heading: 'Payment in progress', message: 'Your payment is still being processed. Refresh this page in a moment.' });
      case 'to_acquirer':
        return redirect(outcome.link, outcome.url);
      case 'ended':
        // A repeated submit of an attempt that already ended: where its own return would have sent the payer.
        return redirect(outcome.link, returnUrlOf(deps, outcome.payment._id));
      case 'acquirer_unavailable':
        (ctx.state.log as { error(details: object, message: string): void } | undefined)?.error(
          { err: outcome.error },
          'the acquirer could not open its payment page',
        );
        return refuse(ctx, {
          status: 502,
          heading: 'Payment not started',
          message: 'Our payment provider is not answering right now. You have not been charged. Try again in a moment.',
        });
    }
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
    : thankYouUrl(deps.publicUrl, { ...result, signature: signThankYou(deps.pageKeys.thankYou, result) });
  setPageSecurityHeaders(ctx, originOf(redirectUrl));
  ctx.status = 303;
  ctx.redirect(target);
}

/** Our return address on an acquirer's page: the payment id, signed (server/pages/return.ts reads it). */
function returnUrlOf(deps: PageDeps, paymentId: string): string {
  return returnUrl(deps.publicUrl, { payment_id: paymentId, signature: signReturn(deps.pageKeys.thankYou, 'payment', paymentId) });
}

export function paymentLinkPage(deps: PageDeps) {
  return pageFor(deps, 'payment_link');
}

export function openLinkPage(deps: PageDeps) {
  return pageFor(deps, 'open_payment_link');
}
