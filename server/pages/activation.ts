// /tokenization/activation/<token>: the payer saves a card; the token becomes active with the
// card's brand, last four digits and expiry. The card itself stays with the provider. Each action
// reads the request, calls its use case (usecases/payer/activation.ts) and renders the result.
import type Koa from 'koa';
import { activationPath, activationReturnUrl, activationUrl } from '../domain/payer-urls.js';
import {
  returnFromCardSetup,
  showActivationPage,
  submitActivation,
  type ActivationOutcome,
  type PayerAcquirer,
  type TokenRecord,
} from '../usecases/payer/activation.js';
import { csrfToken, csrfValid } from './csrf.js';
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
import { merchantRedirectUrl } from './merchant-redirect.js';
import { html, type Html } from '../html.js';
import type { MessageKey, Translator } from '../i18n/index.js';
import { merchantForPayer, type Merchant } from '../usecases/merchant/business-profile.js';
import { payerTranslator, renderPayerPage, titled } from './frame.js';
import { tooManyAttempts } from './too-many-attempts.js';
import { CARD_DECLINED, messagePage } from './message-page.js';
import { signReturn, verifyReturn } from './signing.js';

/** What every answer of this page knows: the payer's language and the merchant. */
interface Shown {
  tr: Translator;
  merchant: Merchant | undefined;
}

function respond(koa: Koa.Context, { tr, merchant }: Shown, status: number, heading: string, body: Html, origins: string[] = []): void {
  renderPayerPage(koa, { status, title: titled(heading, merchant), body, tr, merchant, origins });
}

function activationForm(token: TokenRecord, state: FormState, acquirer: PayerAcquirer, tr: Translator): Html {
  if (acquirer.hosted) {
    return html`<h1>${token.title}</h1>
<p>${token.description}</p>
<p class="muted">${tr.t('activation.hosted_note', { email: token.email })}</p>
${alertBox(state.alert)}
<form method="post" action="${activationPath(token.token)}" novalidate>
${hiddenFields(state)}
<input type="hidden" name="lang" value="${tr.locale}">
<button type="submit">${tr.t('activation.continue')}</button>
</form>`;
  }
  return html`<h1>${token.title}</h1>
<p>${token.description}</p>
<p class="muted">${tr.t('activation.note', { email: token.email })}</p>
${errorSummary(state.errors, tr)}
${alertBox(state.alert)}
<form method="post" action="${activationPath(token.token)}" novalidate>
${hiddenFields(state)}
<input type="hidden" name="lang" value="${tr.locale}">
${field({ id: 'name', label: tr.t('field.name'), value: state.values.name, errors: state.errors, attributes: html`autocomplete="cc-name" required maxlength="${FIELD_MAX_LENGTH.name}"` })}
${cardFields(state.errors, tr)}
<button type="submit">${tr.t('activation.submit')}</button>
</form>
${sandboxCards(tr)}`;
}

/** Where our form may post and be redirected to: the merchant's redirect origin, and a hosted acquirer's pages. */
function formOrigins(token: TokenRecord, acquirer: PayerAcquirer): string[] {
  return [...originOf(token.redirect_url), ...(acquirer.pageOrigin ? originOf(acquirer.pageOrigin) : [])];
}

function savedPage(token: TokenRecord, tr: Translator): Html {
  const card = token.card;
  return html`<h1>${tr.t('activation.saved.heading')}</h1>
<p class="success" role="status">${
    card
      ? tr.t('activation.saved.card', { brand: card.brand.toUpperCase(), last4: card.last4, title: token.title })
      : tr.t('activation.saved.any', { title: token.title })
  }</p>
<p class="muted">${tr.t('thanks.close')}</p>`;
}

function saved(koa: Koa.Context, shown: Shown, status: number, token: TokenRecord): void {
  respond(koa, shown, status, shown.tr.t('activation.saved.heading'), savedPage(token, shown.tr));
}

function explained(koa: Koa.Context, shown: Shown, status: number, heading: MessageKey, message: MessageKey): void {
  const title = shown.tr.t(heading);
  respond(koa, shown, status, title, messagePage(title, shown.tr.t(message)));
}

/** Back to the activation page (it shows the saved card), or on to the merchant's redirect_url with the result, signed. */
async function afterActivation(koa: Koa.Context, deps: PageDeps, token: TokenRecord): Promise<string> {
  if (!token.redirect_url) return activationUrl(deps.publicUrl, token.token);
  return merchantRedirectUrl(koa, deps, token.business_id, token.redirect_url, 'token', { token_id: token._id, token_status: 'active' });
}

const notFound = (koa: Koa.Context) =>
  explained(koa, { tr: payerTranslator(koa), merchant: undefined }, 404, 'activation.not_found.heading', 'refusal.not_found.message');

async function shownFor(koa: Koa.Context, deps: PageDeps, token: TokenRecord): Promise<Shown> {
  const merchant = await merchantForPayer(deps, token.business_id);
  return { tr: payerTranslator(koa, token.locale, merchant), merchant };
}

export function activationPage(deps: PageDeps) {
  const show: Koa.Middleware = async (koa) => {
    const shown = await showActivationPage(deps, String(koa.params.token ?? ''));
    if (shown.result === 'not_found') return notFound(koa);
    const view = await shownFor(koa, deps, shown.token);
    if (shown.result === 'saved') return saved(koa, view, 200, shown.token);
    const { token, acquirer } = shown;
    respond(
      koa,
      view,
      200,
      `${view.tr.t('activation.title', { merchant: view.merchant!.name })} – ${token.title}`,
      activationForm(token, { csrf: csrfToken(koa), attemptId: newAttemptId(), values: {}, errors: {} }, acquirer, view.tr),
      formOrigins(token, acquirer),
    );
  };

  const save: Koa.Middleware = async (koa) => {
    const tokenValue = String(koa.params.token ?? '');
    const body = (koa.request.body ?? {}) as Record<string, unknown>;
    const attemptId = isAttemptId(body.attempt_id) && csrfValid(koa, body.csrf_token) ? body.attempt_id : undefined;
    // Our card form's entries; a hosted acquirer's form has none, and its answer never looks at them.
    const errors: FormErrors = {};
    const tr = payerTranslator(koa);
    const name = checkName(readField(body, 'name', errors, tr), errors, tr);
    const card = readCard(body, errors, tr);
    const answer = await submitActivation(deps, {
      tokenValue,
      attemptId,
      entries: card && Object.keys(errors).length === 0 ? { card } : { errors },
      limits: {
        setup: (tokenId) => deps.pageLimiter.cardSetup(tokenId),
        card: (tokenId, card) => deps.pageLimiter.cardAttempt(tokenId, card.number),
        declined: (tokenId) => deps.pageLimiter.declined(tokenId),
      },
      returnUrlFor: (id) =>
        activationReturnUrl(deps.publicUrl, tokenValue, { attempt_id: id, signature: signReturn(deps.pageKeys.thankYou, 'activation', id) }),
    });
    if (answer.result === 'not_found') return notFound(koa);
    if (answer.result === 'limited') return tooManyAttempts(koa, answer.retryAfter, tr);
    const merchant = 'token' in answer ? await merchantForPayer(deps, answer.token.business_id) : undefined;
    const view: Shown = { tr, merchant };
    switch (answer.result) {
      case 'already_saved':
        return saved(koa, view, 409, answer.token);
      case 'invalid':
        return formWith(koa, view, answer.token, answer.acquirer, { name })(422, undefined, answer.errors);
      case 'to_acquirer':
        setPageSecurityHeaders(koa, formOrigins(answer.token, answer.acquirer));
        koa.status = 303;
        return koa.redirect(answer.url);
      case 'acquirer_unavailable':
        (koa.state.log as { error(details: object, message: string): void } | undefined)?.error(
          { err: answer.error },
          'the acquirer could not open its card page',
        );
        return explained(koa, view, 502, 'activation.unavailable.heading', 'activation.unavailable.message');
      default:
        return answerWith(
          koa,
          view,
          answer.token,
          formWith(koa, view, answer.token, answer.acquirer, { name: answer.acquirer.hosted ? '' : name }),
        )(answer.result);
    }
  };

  /** Back from the acquirer's page: the attempt as the acquirer says it ended. */
  const returned: Koa.Middleware = async (koa) => {
    const attemptId = String(koa.query.attempt_id ?? '');
    if (!isAttemptId(attemptId) || !verifyReturn(deps.pageKeys.thankYou, 'activation', attemptId, koa.query.signature)) return notFound(koa);
    const returnedFrom = await returnFromCardSetup(deps, String(koa.params.token ?? ''), attemptId);
    if (returnedFrom.result === 'not_found') return notFound(koa);
    const { result, token, acquirer } = returnedFrom;
    const view = await shownFor(koa, deps, token);
    // A saved card's page is shown from the token as it is now (active, with its card).
    if (result === 'saved' && !token.redirect_url) return saved(koa, view, 200, token);
    if (result === 'in_progress') return explained(koa, view, 200, 'activation.in_progress.heading', 'activation.in_progress.message');
    return answerWith(koa, view, token, formWith(koa, view, token, acquirer, {}))(result);
  };

  /** The form again, with a new attempt id: after a decline, or with the fields to correct. */
  function formWith(koa: Koa.Context, view: Shown, token: TokenRecord, acquirer: PayerAcquirer, values: FormValues) {
    return (status: number, alert: MessageKey | undefined, fieldErrors: FormErrors) =>
      respond(
        koa,
        view,
        status,
        `${view.tr.t('activation.title', { merchant: view.merchant?.name ?? '' })} – ${token.title}`,
        activationForm(
          token,
          { csrf: csrfToken(koa), attemptId: newAttemptId(), values, errors: fieldErrors, ...(alert ? { alert: view.tr.t(alert) } : {}) },
          acquirer,
          view.tr,
        ),
        formOrigins(token, acquirer),
      );
  }

  function answerWith(
    koa: Koa.Context,
    view: Shown,
    token: TokenRecord,
    form: (status: number, alert: MessageKey | undefined, fieldErrors: FormErrors) => void,
  ) {
    return async (outcome: ActivationOutcome) => {
      switch (outcome) {
        case 'saved': {
          const target = await afterActivation(koa, deps, token);
          setPageSecurityHeaders(koa, originOf(token.redirect_url));
          koa.status = 303;
          return koa.redirect(target);
        }
        case 'declined':
          return form(402, CARD_DECLINED, {});
        case 'in_progress':
          return explained(koa, view, 409, 'activation.in_progress.heading', 'activation.in_progress.message');
        case 'form_expired':
          return explained(koa, view, 403, 'refusal.form_expired.heading', 'activation.form_expired.message');
      }
    };
  }
  return { show, save, returned };
}
