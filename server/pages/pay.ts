// The hosted pay pages: /payment/pay?id=... for a payment link (fixed amount, one payer) and
// /payment/open-link/pay?id=... for an open link (the payer chooses an amount from the minimum). Each
// action reads the request, calls its use case (usecases/payer/pay-page.ts, submit-payment.ts) and renders the result;
// the rate limits of the payer forms (./limits.ts) are handed to the use case to ask.
import type Koa from 'koa';
import { isEmail, maskEmail } from '../domain/email.js';
import { AMOUNT_MAX_CENTS, formatMoney, formatUnits, parseUnits } from '../domain/money.js';
import { payPath, posterPath, returnUrl, thankYouUrl, type LinkKind } from '../domain/payer-urls.js';
import { showPaymentPage, type LinkRefusal, type PayableLink } from '../usecases/payer/pay-page.js';
import type { PayerEntries } from '../usecases/payer/link-attempts.js';
import { submitPayment, type SubmitOutcome } from '../usecases/payer/submit-payment.js';
import { browserCookie, csrfToken, csrfValid } from './csrf.js';
import type { PageDeps } from './deps.js';
import {
  FIELD_MAX_LENGTH,
  alertBox,
  cardFields,
  checkName,
  errorSummary,
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
import { payerTranslator, renderPayerPage, titled } from './frame.js';
import { merchantRedirectUrl } from './merchant-redirect.js';
import { html } from '../html.js';
import type { MessageKey, Translator } from '../i18n/index.js';
import { tooManyAttempts, tooManyCheckouts } from './too-many-attempts.js';
import { CARD_DECLINED, messagePage } from './message-page.js';
import { signReturn, signThankYou } from './signing.js';

interface Refusal {
  status: number;
  heading: MessageKey;
  message: MessageKey;
  /** Said after the message: that the payer was not charged. */
  notCharged?: boolean;
}

const notFound: Refusal = { status: 404, heading: 'refusal.not_found.heading', message: 'refusal.not_found.message' };
const expiredForm: Refusal = { status: 403, heading: 'refusal.form_expired.heading', message: 'refusal.form_expired.message' };

/** What a payer is told of a link that cannot be paid now. */
const REFUSALS: Record<LinkRefusal, Refusal> = {
  not_found: notFound,
  withdrawn: { status: 410, heading: 'refusal.withdrawn.heading', message: 'refusal.withdrawn.message' },
  paid: { status: 409, heading: 'refusal.paid.heading', message: 'refusal.paid.message' },
  paused: { status: 410, heading: 'refusal.paused.heading', message: 'refusal.paused.message' },
  expired: { status: 410, heading: 'refusal.expired.heading', message: 'refusal.expired.message' },
  closed: { status: 410, heading: 'refusal.closed.heading', message: 'refusal.closed.message' },
};

/**
 * A payer whose card was authorised after the link stopped taking payment (the claim that records the
 * payment refused it): the page a later payer would get says why, read again now, and that this
 * payer's authorisation was let go. Only a link that reads as payable again by now gives no reason.
 */
function notTaken(now: LinkRefusal | undefined): Refusal {
  if (!now) return { status: 409, heading: 'refusal.not_taken.heading', message: 'refusal.not_taken.message' };
  return { ...REFUSALS[now], notCharged: true };
}

function payForm(link: PayableLink, state: FormState, tr: Translator) {
  const { target } = link;
  const { values, errors } = state;
  const minimum = link.minimumAmount !== undefined ? formatMoney(target.currency, link.minimumAmount) : '';
  const heading =
    link.fixedAmount !== undefined
      ? html`<p class="amount">${formatMoney(target.currency, link.fixedAmount)}</p>`
      : html`<p class="muted">${tr.t('pay.any_amount', { minimum })}</p>`;
  const amountField =
    link.minimumAmount !== undefined
      ? field({
          id: 'amount',
          label: tr.t('field.amount'),
          value: values.amount,
          errors,
          hint: tr.t('pay.amount_hint', { minimum }),
          attributes: html`inputmode="decimal" autocomplete="transaction-amount" required maxlength="${FIELD_MAX_LENGTH.amount}"`,
        })
      : html``;
  const emailField =
    link.payerEmail !== undefined
      ? field({ id: 'email', label: tr.t('field.email'), value: maskEmail(link.payerEmail), errors, attributes: html`readonly` })
      : field({
          id: 'email',
          label: tr.t('field.email'),
          value: values.email,
          errors,
          attributes: html`type="email" inputmode="email" autocomplete="email" required maxlength="${FIELD_MAX_LENGTH.email}"`,
        });
  return html`<h1>${target.title}</h1>
${link.description ? html`<p>${link.description}</p>` : ''}
${heading}
${errorSummary(errors, tr)}
${alertBox(state.alert)}
<form method="post" action="${payPath(target.kind, target.id)}" novalidate>
${hiddenFields(state)}
<input type="hidden" name="lang" value="${tr.locale}">
${amountField}
${field({ id: 'name', label: tr.t('field.name'), value: values.name, errors, attributes: html`autocomplete="cc-name" required maxlength="${FIELD_MAX_LENGTH.name}"` })}
${emailField}
${link.acquirer.hosted ? html`<p class="muted">${tr.t('pay.hosted_note')}</p>` : cardFields(errors, tr)}
<button type="submit">${link.acquirer.hosted ? tr.t('pay.continue') : tr.t('pay.submit')}</button>
</form>
${link.minimumAmount !== undefined ? html`<p><a href="${posterPath(target.id)}">${tr.t('pay.poster_link')}</a></p>` : ''}
${link.acquirer.hosted ? '' : sandboxCards(tr)}`;
}

/** Where our forms may post and be redirected to: the merchant's redirect origin, and a hosted acquirer's pages. */
function formOrigins(link: PayableLink): string[] {
  return [...originOf(link.redirectUrl), ...(link.acquirer.pageOrigin ? originOf(link.acquirer.pageOrigin) : [])];
}

/** A refusal in the payer's language, in the merchant's frame when the link is known. */
export function refuse(koa: Koa.Context, refusal: Refusal | LinkRefusal, link?: PayableLink): void {
  const { status, heading, message, notCharged } = typeof refusal === 'string' ? REFUSALS[refusal] : refusal;
  const tr = payerTranslator(koa, link?.locale, link?.merchant);
  const text = notCharged ? `${tr.t(message)} ${tr.t('refusal.not_charged')}` : tr.t(message);
  renderPayerPage(koa, { status, title: titled(tr.t(heading), link?.merchant), body: messagePage(tr.t(heading), text), tr, merchant: link?.merchant });
}

function showForm(koa: Koa.Context, link: PayableLink, status: number, state: Omit<FormState, 'csrf' | 'attemptId'>, tr: Translator): void {
  renderPayerPage(koa, {
    status,
    title: `${tr.t('pay.title', { merchant: link.merchant.name })} – ${link.target.title}`,
    body: payForm(link, { ...state, csrf: csrfToken(koa), attemptId: newAttemptId() }, tr),
    tr,
    merchant: link.merchant,
    origins: formOrigins(link),
  });
}

/** The amount in cents: the link's own, or the payer's (already read with `readField`) for an open link. */
function readAmount(link: PayableLink, amount: string, errors: FormErrors, tr: Translator): number {
  if (link.fixedAmount !== undefined) return link.fixedAmount;
  if (errors.amount) return 0;
  const minimum = link.minimumAmount ?? 0;
  const parsed = parseUnits(amount.replace(/,/g, ''));
  const currency = link.target.currency;
  if (parsed.kind === 'not-a-number') errors.amount = tr.t('error.amount_format');
  else if (parsed.kind === 'too-precise') errors.amount = tr.t('error.amount_precision');
  else if (parsed.cents < BigInt(minimum)) errors.amount = tr.t('error.amount_min', { minimum: formatMoney(currency, minimum) });
  else if (parsed.cents > BigInt(AMOUNT_MAX_CENTS)) errors.amount = tr.t('error.amount_max', { maximum: formatMoney(currency, AMOUNT_MAX_CENTS) });
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
  tr: Translator,
): { entries: PayerEntries } | { errors: FormErrors } {
  const amount = readAmount(link, values.amount, errors, tr);
  const name = checkName(values.name, errors, tr);
  const email = link.payerEmail ?? values.email;
  if (link.payerEmail === undefined && !errors.email && !isEmail(email)) errors.email = tr.t('error.email');
  const card = link.acquirer.hosted ? undefined : readCard(body, errors, tr);
  if (Object.keys(errors).length > 0) return { errors };
  return { entries: { amount, name, email, ...(card ? { card } : {}) } };
}

function pageFor(deps: PageDeps, kind: LinkKind) {
  const show: Koa.Middleware = async (koa) => {
    const { link, refusal } = await showPaymentPage(deps, kind, String(koa.query.id ?? ''));
    if (!link || refusal) return refuse(koa, refusal ?? 'not_found', link);
    const values = link.minimumAmount !== undefined ? { amount: formatUnits(link.minimumAmount) } : {};
    showForm(koa, link, 200, { values, errors: {} }, payerTranslator(koa, link.locale, link.merchant));
  };

  const pay: Koa.Middleware = async (koa) => {
    const body = (koa.request.body ?? {}) as Record<string, unknown>;
    const attemptId = csrfValid(koa, body.csrf_token) && isAttemptId(body.attempt_id) ? body.attempt_id : undefined;
    // Every field is capped before anything parses it (an over-long one is an error from here on);
    // fields this link's form does not have are ignored, unread.
    const errors: FormErrors = {};
    // Our form posts the language it was shown in, so the answer is in the same one.
    const tr = payerTranslator(koa);
    const values = {
      name: readField(body, 'name', errors, tr),
      email: kind === 'open_payment_link' ? readField(body, 'email', errors, tr) : '',
      amount: kind === 'open_payment_link' ? readField(body, 'amount', errors, tr) : '',
    };
    const browser = browserCookie(koa);
    const outcome = await submitPayment(deps, {
      kind,
      linkId: String(koa.query.id ?? ''),
      attemptId,
      read: (link) => checkEntries(link, body, values, errors, tr),
      limits: {
        card: (id, card) => deps.pageLimiter.cardAttempt(id, card.number),
        declined: (id) => deps.pageLimiter.declined(id),
        checkout: (id) => deps.pageLimiter.checkout(id, koa.ip),
        openCheckouts: deps.pageLimiter.openCheckoutsPerLink,
      },
      browser: browser ? deps.pageLimiter.browserKey(browser) : null,
      returnUrlFor: (paymentId) => returnUrlOf(deps, paymentId),
    });
    return render(koa, outcome, values, tr);
  };

  const render = async (koa: Koa.Context, outcome: SubmitOutcome<FormErrors>, values: FormValues, tr: Translator): Promise<void> => {
    const form = (link: PayableLink, status: number, alert: MessageKey | undefined, errors: FormErrors = {}) => {
      const tr = payerTranslator(koa, link.locale, link.merchant);
      showForm(koa, link, status, { values, errors, ...(alert ? { alert: tr.t(alert) } : {}) }, tr);
    };
    const redirect = (link: PayableLink, url: string) => {
      setPageSecurityHeaders(koa, formOrigins(link));
      koa.status = 303;
      koa.redirect(url);
    };
    switch (outcome.result) {
      case 'refused':
        return refuse(koa, outcome.refusal);
      case 'form_expired':
        return refuse(koa, expiredForm);
      case 'invalid':
        // The error summary says what to correct.
        return form(outcome.link, 422, undefined, outcome.errors);
      case 'limited':
        return tooManyAttempts(koa, outcome.retryAfter, tr);
      case 'busy':
        return tooManyCheckouts(koa, outcome.retryAfter, tr);
      case 'paid':
        return redirectAfterPayment(koa, deps, outcome.link.target.id, outcome.link.redirectUrl, outcome.payment);
      case 'declined':
        return form(outcome.link, 402, CARD_DECLINED);
      case 'not_taken':
        return refuse(koa, notTaken(outcome.refusal));
      case 'in_progress':
        return refuse(koa, { status: 409, heading: 'refusal.in_progress.heading', message: 'refusal.in_progress.message' });
      case 'to_acquirer':
        return redirect(outcome.link, outcome.url);
      case 'ended':
        // A repeated submit of an attempt that already ended: where its own return would have sent the payer.
        return redirect(outcome.link, returnUrlOf(deps, outcome.payment._id));
      case 'acquirer_unavailable':
        (koa.state.log as { error(details: object, message: string): void } | undefined)?.error(
          { err: outcome.error },
          'the acquirer could not open its payment page',
        );
        return refuse(koa, { status: 502, heading: 'refusal.unavailable.heading', message: 'refusal.unavailable.message' });
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
  koa: Koa.Context,
  deps: PageDeps,
  linkId: string,
  redirectUrl: string | null,
  payment: { _id: string; status_id: number; business_id: number },
): Promise<void> {
  const result = { payment_id: payment._id, payment_link_id: linkId, payment_status: String(payment.status_id) };
  const target = redirectUrl
    ? await merchantRedirectUrl(koa, deps, payment.business_id, redirectUrl, 'payment', result)
    : thankYouUrl(deps.publicUrl, { ...result, signature: signThankYou(deps.pageKeys.thankYou, result) });
  setPageSecurityHeaders(koa, originOf(redirectUrl));
  koa.status = 303;
  koa.redirect(target);
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
