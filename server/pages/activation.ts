// /tokenization/activation/<token>: the payer saves a card; the token becomes active with the
// card's brand, last four digits and expiry. The card itself stays with the provider.
import type Koa from 'koa';
import { withQuery } from '../domain/urls.js';
import { activationAttemptOf, activationOnReturn, outcomeOfAttempt, saveCardOnce, startHostedSetup, type ActivationOutcome } from '../usecases/activation.js';
import { acquirerForPayer, tokenForPayer, type PayerAcquirer, type TokenRecord } from '../usecases/payer.js';
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
<form method="post" action="/tokenization/activation/${token.token}" novalidate>
${hiddenFields(state)}
<button type="submit">Continue to save a card</button>
</form>`;
  }
  return html`<h1>${token.title}</h1>
<p>${token.description}</p>
<p class="muted">Save a card for ${token.email}. Nothing is charged now.</p>
${alertBox(state.alert)}
<form method="post" action="/tokenization/activation/${token.token}" novalidate>
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
  if (!token.redirect_url) return `${deps.publicUrl}/tokenization/activation/${token.token}`;
  return merchantRedirectUrl(ctx, deps, token.business_id, token.redirect_url, 'token', { token_id: token._id, token_status: 'active' });
}

export function activationPage(deps: PageDeps) {
  const load = async (ctx: Koa.Context): Promise<TokenRecord | undefined> => {
    const token = await tokenForPayer(deps, String(ctx.params.token ?? ''));
    if (!token) respond(ctx, 404, 'Link not found', messagePage('Link not found', 'Check the link you were given, or ask the merchant for a new one.'));
    return token;
  };

  const show: Koa.Middleware = async (ctx) => {
    const token = await load(ctx);
    if (!token) return;
    if (token.status === 'active') return respond(ctx, 200, 'Card saved', savedPage(token));
    const acquirer = await acquirerForPayer(deps, token.business_id);
    respond(
      ctx,
      200,
      token.title,
      activationForm(token, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values: {}, errors: {} }, acquirer),
      formOrigins(token, acquirer),
    );
  };

  const save: Koa.Middleware = async (ctx) => {
    const token = await load(ctx);
    if (!token) return;
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const attemptId = isAttemptId(body.attempt_id) && csrfValid(ctx, body.csrf_token) ? body.attempt_id : undefined;
    const errors: FormErrors = {};
    const acquirer = await acquirerForPayer(deps, token.business_id);
    const name = acquirer.hosted ? '' : checkName(readField(body, 'name', errors), errors);
    const form = (status: number, alert: string, fieldErrors: FormErrors) =>
      respond(
        ctx,
        status,
        token.title,
        activationForm(token, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values: { name }, errors: fieldErrors, alert }, acquirer),
        formOrigins(token, acquirer),
      );
    const answer = answerWith(ctx, token, form);

    const earlier = attemptId ? await activationAttemptOf(deps, attemptId) : undefined;
    if (earlier && !acquirer.hosted) return answer(await outcomeOfAttempt(deps, token, earlier));
    if (token.status === 'active') return respond(ctx, 409, 'Card saved', savedPage(token));
    if (!attemptId) return answer('form_expired');
    if (acquirer.hosted) {
      if (!earlier) {
        const refused = await deps.pageLimiter.cardSetup(token._id);
        if (refused !== undefined) return tooManyAttempts(ctx, refused);
      }
      const started = await startHostedSetup(deps, token, attemptId, {
        returnUrlFor: (id) =>
          withQuery(`${deps.publicUrl}/tokenization/activation/${token.token}/return`, {
            attempt_id: id,
            signature: signReturn(deps.pageKeys.thankYou, 'activation', id),
          }),
        cancelUrl: `${deps.publicUrl}/tokenization/activation/${token.token}`,
      });
      if (started.result === 'redirect') {
        setPageSecurityHeaders(ctx, formOrigins(token, acquirer));
        ctx.status = 303;
        return ctx.redirect(started.url);
      }
      if (started.result === 'acquirer_unavailable') {
        (ctx.state.log as { error(details: object, message: string): void } | undefined)?.error(
          { err: started.error },
          'the acquirer could not open its card page',
        );
        return respond(ctx, 502, 'Card not saved', messagePage('Card not saved', 'Our payment provider is not answering right now. Try again in a moment.'));
      }
      return answer(started.result);
    }
    const card = readCard(body, errors);
    if (!card || Object.keys(errors).length > 0) return form(422, 'Please correct the highlighted fields.', errors);
    const refused = await deps.pageLimiter.cardAttempt(token._id, card.number);
    if (refused !== undefined) return tooManyAttempts(ctx, refused);
    const outcome = await saveCardOnce(deps, token, attemptId, card);
    if (outcome === 'declined') await deps.pageLimiter.declined(token._id);
    return answer(outcome);
  };
  /** Back from the acquirer's page: the attempt as the acquirer says it ended. */
  const returned: Koa.Middleware = async (ctx) => {
    const token = await load(ctx);
    if (!token) return;
    const attemptId = String(ctx.query.attempt_id ?? '');
    if (!isAttemptId(attemptId) || !verifyReturn(deps.pageKeys.thankYou, 'activation', attemptId, ctx.query.signature)) {
      return respond(ctx, 404, 'Link not found', messagePage('Link not found', 'Check the link you were given, or ask the merchant for a new one.'));
    }
    const acquirer = await acquirerForPayer(deps, token.business_id);
    const form = (status: number, alert: string, fieldErrors: FormErrors) =>
      respond(
        ctx,
        status,
        token.title,
        activationForm(token, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values: {}, errors: fieldErrors, alert }, acquirer),
        formOrigins(token, acquirer),
      );
    const outcome = await activationOnReturn(deps, token, attemptId);
    // A saved card's page is shown from the token as it is now (active, with its card).
    if (outcome === 'saved' && !token.redirect_url) return respond(ctx, 200, 'Card saved', savedPage((await tokenForPayer(deps, token.token)) ?? token));
    if (outcome === 'in_progress') return respond(ctx, 200, 'Card being saved', messagePage('Your card is being saved', 'Refresh this page in a moment.'));
    return answerWith(ctx, token, form)(outcome);
  };

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
