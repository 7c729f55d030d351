// /tokenization/activation/<token>: the payer saves a card; the token becomes active with the
// card's brand, last four digits and expiry. The card itself stays with the provider. Each action
// reads the request, calls its use case (usecases/activation.ts) and renders the result.
import type Koa from 'koa';
import { activationPath, activationReturnUrl, activationUrl } from '../domain/payer-urls.js';
import {
  returnFromCardSetup,
  showActivationPage,
  submitActivation,
  type ActivationOutcome,
  type PayerAcquirer,
  type TokenRecord,
} from '../usecases/activation.js';
import { csrfToken, csrfValid } from './csrf.js';
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
import { html, page, type Html } from '../html.js';
import { tooManyAttempts } from './limits.js';
import { CARD_DECLINED, messagePage } from './messages.js';
import { signReturn, verifyReturn } from './signing.js';

function respond(ctx: Koa.Context, status: number, title: string, body: Html, origins: string[] = []): void {
  setPageSecurityHeaders(ctx, origins);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(title, body);
}

function activationForm(token: TokenRecord, state: FormState, acquirer: PayerAcquirer): Html {
  if (acquirer.hosted) {
    return html`<h1>${token.title}</h1>
<p>${token.description}</p>
<p class="muted">Save a card for ${token.email}. Nothing is charged now. You enter the card on the next page, run by our payment provider.</p>
${alertBox(state.alert)}
<form method="post" action="${activationPath(token.token)}" novalidate>
${hiddenFields(state)}
<button type="submit">Continue to save a card</button>
</form>`;
  }
  return html`<h1>${token.title}</h1>
<p>${token.description}</p>
<p class="muted">Save a card for ${token.email}. Nothing is charged now.</p>
${alertBox(state.alert)}
<form method="post" action="${activationPath(token.token)}" novalidate>
${hiddenFields(state)}
${field({ id: 'name', label: 'Name', value: state.values.name, errors: state.errors, attributes: html`autocomplete="cc-name" required maxlength="${FIELD_MAX_LENGTH.name}"` })}
${cardFields(state.errors)}
<button type="submit">Save card</button>
</form>
${sandboxCards()}`;
}

/** Where our form may post and be redirected to: the merchant's redirect origin, and a hosted acquirer's pages. */
function formOrigins(token: TokenRecord, acquirer: PayerAcquirer): string[] {
  return [...originOf(token.redirect_url), ...(acquirer.pageOrigin ? originOf(acquirer.pageOrigin) : [])];
}

function savedPage(token: TokenRecord): Html {
  const card = token.card;
  return html`<h1>Card saved</h1>
<p class="success" role="status">${card ? `${card.brand.toUpperCase()} ending in ${card.last4} is saved` : 'Your card is saved'} for ${token.title}.</p>
<p class="muted">You can close this page.</p>`;
}

/** Back to the activation page (it shows the saved card), or on to the merchant's redirect_url with the result, signed. */
async function afterActivation(ctx: Koa.Context, deps: PageDeps, token: TokenRecord): Promise<string> {
  if (!token.redirect_url) return activationUrl(deps.publicUrl, token.token);
  return merchantRedirectUrl(ctx, deps, token.business_id, token.redirect_url, 'token', { token_id: token._id, token_status: 'active' });
}

const notFound = (ctx: Koa.Context) =>
  respond(ctx, 404, 'Link not found', messagePage('Link not found', 'Check the link you were given, or ask the merchant for a new one.'));

export function activationPage(deps: PageDeps) {
  const show: Koa.Middleware = async (ctx) => {
    const shown = await showActivationPage(deps, String(ctx.params.token ?? ''));
    if (shown.result === 'not_found') return notFound(ctx);
    if (shown.result === 'saved') return respond(ctx, 200, 'Card saved', savedPage(shown.token));
    const { token, acquirer } = shown;
    respond(
      ctx,
      200,
      token.title,
      activationForm(token, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values: {}, errors: {} }, acquirer),
      formOrigins(token, acquirer),
    );
  };

  const save: Koa.Middleware = async (ctx) => {
    const tokenValue = String(ctx.params.token ?? '');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const attemptId = isAttemptId(body.attempt_id) && csrfValid(ctx, body.csrf_token) ? body.attempt_id : undefined;
    // Our card form's entries; a hosted acquirer's form has none, and its answer never looks at them.
    const errors: FormErrors = {};
    const name = checkName(readField(body, 'name', errors), errors);
    const card = readCard(body, errors);
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
    switch (answer.result) {
      case 'not_found':
        return notFound(ctx);
      case 'already_saved':
        return respond(ctx, 409, 'Card saved', savedPage(answer.token));
      case 'limited':
        return tooManyAttempts(ctx, answer.retryAfter);
      case 'invalid':
        return formWith(ctx, answer.token, answer.acquirer, { name })(422, 'Please correct the highlighted fields.', answer.errors);
      case 'to_acquirer':
        setPageSecurityHeaders(ctx, formOrigins(answer.token, answer.acquirer));
        ctx.status = 303;
        return ctx.redirect(answer.url);
      case 'acquirer_unavailable':
        (ctx.state.log as { error(details: object, message: string): void } | undefined)?.error(
          { err: answer.error },
          'the acquirer could not open its card page',
        );
        return respond(ctx, 502, 'Card not saved', messagePage('Card not saved', 'Our payment provider is not answering right now. Try again in a moment.'));
      default:
        return answerWith(ctx, answer.token, formWith(ctx, answer.token, answer.acquirer, { name: answer.acquirer.hosted ? '' : name }))(answer.result);
    }
  };

  /** Back from the acquirer's page: the attempt as the acquirer says it ended. */
  const returned: Koa.Middleware = async (ctx) => {
    const attemptId = String(ctx.query.attempt_id ?? '');
    if (!isAttemptId(attemptId) || !verifyReturn(deps.pageKeys.thankYou, 'activation', attemptId, ctx.query.signature)) return notFound(ctx);
    const returnedFrom = await returnFromCardSetup(deps, String(ctx.params.token ?? ''), attemptId);
    if (returnedFrom.result === 'not_found') return notFound(ctx);
    const { result, token, acquirer } = returnedFrom;
    // A saved card's page is shown from the token as it is now (active, with its card).
    if (result === 'saved' && !token.redirect_url) return respond(ctx, 200, 'Card saved', savedPage(token));
    if (result === 'in_progress') return respond(ctx, 200, 'Card being saved', messagePage('Your card is being saved', 'Refresh this page in a moment.'));
    return answerWith(ctx, token, formWith(ctx, token, acquirer, {}))(result);
  };

  /** The form again, with a new attempt id: after a decline, or with the fields to correct. */
  function formWith(ctx: Koa.Context, token: TokenRecord, acquirer: PayerAcquirer, values: FormValues) {
    return (status: number, alert: string, fieldErrors: FormErrors) =>
      respond(
        ctx,
        status,
        token.title,
        activationForm(token, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values, errors: fieldErrors, alert }, acquirer),
        formOrigins(token, acquirer),
      );
  }

  function answerWith(ctx: Koa.Context, token: TokenRecord, form: (status: number, alert: string, fieldErrors: FormErrors) => void) {
    return async (outcome: ActivationOutcome) => {
      switch (outcome) {
        case 'saved': {
          const target = await afterActivation(ctx, deps, token);
          setPageSecurityHeaders(ctx, originOf(token.redirect_url));
          ctx.status = 303;
          return ctx.redirect(target);
        }
        case 'declined':
          return form(402, CARD_DECLINED, {});
        case 'in_progress':
          return respond(ctx, 409, 'Card being saved', messagePage('Your card is being saved', 'Refresh this page in a moment.'));
        case 'form_expired':
          return respond(ctx, 403, 'Form expired', messagePage('This form has expired', 'Reload the page and try again.'));
      }
    };
  }
  return { show, save, returned };
}
