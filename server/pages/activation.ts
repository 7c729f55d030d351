// /tokenization/activation/<token>: the payer saves a card; the token becomes active with the
// card's brand, last four digits and expiry. The card itself stays with the provider.
import type Koa from 'koa';
import { withQuery } from '../domain/urls.js';
import type { Card } from '../payments/cards.js';
import { notifyTokenActivated } from '../outbox/notify.js';
import { findActivationAttempt, insertPendingActivation, settleActivation, type ActivationAttempt } from '../store/activation-attempts.js';
import { isUniqueViolation } from '../store/errors.js';
import { activateToken, findTokenByValue, type TokenRecord } from '../store/tokens.js';
import { csrfToken, csrfValid } from './csrf.js';
import type { PageDeps } from './deps.js';
import { FIELD_MAX_LENGTH, alertBox, cardFields, checkName, field, hiddenFields, isAttemptId, newAttemptId, readCard, readField, sandboxCards, type FormErrors, type FormState } from './form.js';
import { originOf, setPageSecurityHeaders } from './headers.js';
import { html, page, type Html } from './html.js';
import { tooManyAttempts } from './limits.js';
import { CARD_DECLINED, messagePage } from './messages.js';

const TOKEN = /^[0-9a-f]{64}$/;

function respond(ctx: Koa.Context, status: number, title: string, body: Html, redirectUrl: string | null = null): void {
  setPageSecurityHeaders(ctx, originOf(redirectUrl));
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(title, body);
}

function activationForm(token: TokenRecord, state: FormState): Html {
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

function savedPage(token: TokenRecord): Html {
  const card = token.card;
  return html`<h1>Card saved</h1>
<p class="success" role="status">${card ? `${card.brand.toUpperCase()} ending in ${card.last4} is saved` : 'Your card is saved'} for ${token.title}.</p>
<p class="muted">You can close this page.</p>`;
}

function afterActivation(deps: PageDeps, token: TokenRecord): string {
  if (!token.redirect_url) return `${deps.publicUrl}/tokenization/activation/${token.token}`;
  return withQuery(token.redirect_url, { token_id: token._id, token_status: 'active' });
}

/** What an activation attempt came to, as the payer is answered. */
type ActivationOutcome = 'saved' | 'declined' | 'in_progress' | 'form_expired';

/**
 * A known attempt (double click, reload) is answered from its record, never by the acquirer: once a
 * submit still in flight has settled, or after ten seconds as still in progress.
 */
async function outcomeOfAttempt(deps: PageDeps, token: TokenRecord, attempt: ActivationAttempt): Promise<ActivationOutcome> {
  if (attempt.token_id !== token._id) return 'form_expired';
  let current = attempt;
  for (let waited = 0; current.status === 'pending' && waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = (await findActivationAttempt(deps.db, attempt.attempt_id)) ?? current;
  }
  if (current.status === 'pending') return 'in_progress';
  return current.status === 'declined' ? 'declined' : 'saved';
}

/**
 * Saves the card once per attempt id: the attempt is recorded before the acquirer is asked, so the
 * same form submitted again finds it instead of saving the card a second time.
 */
async function activateOnce(deps: PageDeps, token: TokenRecord, attemptId: string, card: Card): Promise<ActivationOutcome> {
  try {
    await insertPendingActivation(deps.db, { attempt_id: attemptId, business_id: token.business_id, token_id: token._id });
  } catch (error) {
    const first = isUniqueViolation(error) ? await findActivationAttempt(deps.db, attemptId) : undefined;
    if (!first) throw error;
    return outcomeOfAttempt(deps, token, first);
  }
  let result;
  try {
    result = await deps.provider.saveCard(card);
  } catch (error) {
    await settleActivation(deps.db, attemptId, 'declined', 'processing_error');
    throw error;
  }
  if (result.outcome === 'declined') {
    await settleActivation(deps.db, attemptId, 'declined', result.code);
    return 'declined';
  }
  // Another attempt (another tab) may have activated the token meanwhile: its card stays.
  const saved = result.card;
  const activated = await deps.db.transaction(async (trx) => {
    const now = await activateToken(trx, token.token, { brand: saved.brand, last4: saved.last4, exp_month: saved.expMonth, exp_year: saved.expYear, reference: saved.providerToken });
    if (now) await notifyTokenActivated(trx, { ...token, card_brand: saved.brand, card_last4: saved.last4, activated_at: now });
    await settleActivation(trx, attemptId, now ? 'saved' : 'superseded');
    return now;
  });
  if (activated) deps.outbox.nudge();
  return 'saved';
}

export function activationPage(deps: PageDeps) {
  const load = async (ctx: Koa.Context): Promise<TokenRecord | undefined> => {
    const value = String(ctx.params.token ?? '');
    const token = TOKEN.test(value) ? await findTokenByValue(deps.db, value) : undefined;
    if (!token) respond(ctx, 404, 'Link not found', messagePage('Link not found', 'Check the link you were given, or ask the merchant for a new one.'));
    return token;
  };

  const show: Koa.Middleware = async (ctx) => {
    const token = await load(ctx);
    if (!token) return;
    if (token.status === 'active') return respond(ctx, 200, 'Card saved', savedPage(token));
    respond(ctx, 200, token.title, activationForm(token, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values: {}, errors: {} }), token.redirect_url);
  };

  const save: Koa.Middleware = async (ctx) => {
    const token = await load(ctx);
    if (!token) return;
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const attemptId = isAttemptId(body.attempt_id) && csrfValid(ctx, body.csrf_token) ? body.attempt_id : undefined;
    const errors: FormErrors = {};
    const name = checkName(readField(body, 'name', errors), errors);
    const form = (status: number, alert: string, fieldErrors: FormErrors) =>
      respond(ctx, status, token.title, activationForm(token, { csrf: csrfToken(ctx), attemptId: newAttemptId(), values: { name }, errors: fieldErrors, alert }), token.redirect_url);
    const answer = (outcome: ActivationOutcome) => {
      switch (outcome) {
        case 'saved':
          setPageSecurityHeaders(ctx, originOf(token.redirect_url));
          ctx.status = 303;
          return ctx.redirect(afterActivation(deps, token));
        case 'declined':
          return form(402, CARD_DECLINED, {});
        case 'in_progress':
          return respond(ctx, 409, 'Card being saved', messagePage('Your card is being saved', 'Refresh this page in a moment.'));
        case 'form_expired':
          return respond(ctx, 403, 'Form expired', messagePage('This form has expired', 'Reload the page and try again.'));
      }
    };

    const earlier = attemptId ? await findActivationAttempt(deps.db, attemptId) : undefined;
    if (earlier) return answer(await outcomeOfAttempt(deps, token, earlier));
    if (token.status === 'active') return respond(ctx, 409, 'Card saved', savedPage(token));
    if (!attemptId) return answer('form_expired');
    const card = readCard(body, errors);
    if (!card || Object.keys(errors).length > 0) return form(422, 'Please correct the highlighted fields.', errors);
    const refused = await deps.pageLimiter.attempt(token._id, card.number);
    if (refused !== undefined) return tooManyAttempts(ctx, refused);
    return answer(await activateOnce(deps, token, attemptId, card));
  };
  return { show, save };
}
