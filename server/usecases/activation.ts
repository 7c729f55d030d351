// A payer saves a card on a token's activation page: the provider keeps the card, and the token
// becomes active with its brand, last four digits and expiry, together with its notifications. Each
// submitted form (its attempt id) saves the card at most once.
import type { Card } from '../acquirers/cards.js';
import {
  findActivationAttempt,
  insertPendingActivation,
  setActivationSession,
  settleActivation,
  type ActivationAttempt,
} from '../store/activation-attempts.js';
import { isUniqueViolation } from '../store/errors.js';
import type { HostedSetupState, SavedCard } from '../acquirers/acquirer.js';
import { activateToken, findToken as findTokenById, type TokenRecord } from '../store/tokens.js';
import type { UseCaseContext } from './context.js';
import { notifyTokenActivated } from './notify.js';

/** What an activation attempt came to, as the payer is answered. */
export type ActivationOutcome = 'saved' | 'declined' | 'in_progress' | 'form_expired';

export async function activationAttemptOf(ctx: UseCaseContext, attemptId: string): Promise<ActivationAttempt | undefined> {
  return findActivationAttempt(ctx.db, attemptId);
}

/**
 * A known attempt (double click, reload) is answered from its record, never by the acquirer: once a
 * submit still in flight has settled, or after ten seconds as still in progress.
 */
export async function outcomeOfAttempt(ctx: UseCaseContext, token: TokenRecord, attempt: ActivationAttempt): Promise<ActivationOutcome> {
  if (attempt.token_id !== token._id) return 'form_expired';
  let current = attempt;
  for (let waited = 0; current.status === 'pending' && waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = (await findActivationAttempt(ctx.db, attempt.attempt_id)) ?? current;
  }
  if (current.status === 'pending') return 'in_progress';
  return current.status === 'declined' ? 'declined' : 'saved';
}

/**
 * Saves the card once per attempt id: the attempt is recorded before the acquirer is asked, so the
 * same form submitted again finds it instead of saving the card a second time.
 */
export async function saveCardOnce(ctx: UseCaseContext, token: TokenRecord, attemptId: string, card: Card): Promise<ActivationOutcome> {
  try {
    await insertPendingActivation(ctx.db, { attempt_id: attemptId, business_id: token.business_id, token_id: token._id });
  } catch (error) {
    const first = isUniqueViolation(error) ? await findActivationAttempt(ctx.db, attemptId) : undefined;
    if (!first) throw error;
    return outcomeOfAttempt(ctx, token, first);
  }
  const provider = await ctx.acquirers.forBusiness(token.business_id);
  if (provider.checkout !== 'card_form') throw new Error(`business ${token.business_id} saves cards on ${provider.name}'s own page, not a card form`);
  let result;
  try {
    result = await provider.saveCard(card);
  } catch (error) {
    await settleActivation(ctx.db, attemptId, 'declined', 'processing_error');
    throw error;
  }
  if (result.outcome === 'declined') {
    await settleActivation(ctx.db, attemptId, 'declined', result.code);
    return 'declined';
  }
  await activateWith(ctx, token, attemptId, result.card, provider.name);
  return 'saved';
}

/**
 * The card is saved: the token becomes active with it, announced, and the attempt settled, together.
 * Another attempt (another tab) may have activated the token meanwhile: its card stays.
 */
async function activateWith(ctx: UseCaseContext, token: TokenRecord, attemptId: string, saved: SavedCard, providerName: string): Promise<void> {
  const activated = await ctx.db.transaction(async (tx) => {
    const now = await activateToken(tx, token.token, {
      brand: saved.brand,
      last4: saved.last4,
      exp_month: saved.expMonth,
      exp_year: saved.expYear,
      reference: saved.acquirerToken,
      acquirer: providerName,
    });
    if (now) await notifyTokenActivated(tx, { ...token, card_brand: saved.brand, card_last4: saved.last4, activated_at: now });
    await settleActivation(tx, attemptId, now ? 'saved' : 'superseded');
    return now;
  });
  if (activated) ctx.outbox.nudge();
}

export type HostedSetupStart = { result: 'redirect'; url: string } | { result: ActivationOutcome } | { result: 'acquirer_unavailable'; error: unknown };

/**
 * A business on an acquirer with hosted pages (Stripe): the card is saved on its page. The attempt is
 * recorded first (a second submit of the same form goes back to the same page), then the page opened.
 */
export async function startHostedSetup(
  ctx: UseCaseContext,
  token: TokenRecord,
  attemptId: string,
  urls: { returnUrlFor(attemptId: string): string; cancelUrl: string },
): Promise<HostedSetupStart> {
  const provider = await ctx.acquirers.forBusiness(token.business_id);
  if (provider.checkout !== 'hosted') throw new Error(`business ${token.business_id} saves cards on our own form, not on ${provider.name}'s page`);
  try {
    await insertPendingActivation(ctx.db, { attempt_id: attemptId, business_id: token.business_id, token_id: token._id });
  } catch (error) {
    const first = isUniqueViolation(error) ? await findActivationAttempt(ctx.db, attemptId) : undefined;
    if (!first) throw error;
    if (first.token_id !== token._id) return { result: 'form_expired' };
    if (first.status === 'pending' && first.provider_session) {
      const state = await provider.setupState(first.provider_session);
      if (state.state === 'open' && state.redirectUrl) return { result: 'redirect', url: state.redirectUrl };
      await settleHostedSetup(ctx, first, state, provider.name);
      return { result: await outcomeOfAttempt(ctx, token, (await findActivationAttempt(ctx.db, attemptId))!) };
    }
    return { result: await outcomeOfAttempt(ctx, token, first) };
  }
  try {
    const session = await provider.startCardSetup({
      reference: attemptId,
      customerReference: token._id,
      email: token.email,
      description: token.title,
      metadata: { tokenization_id: token._id, attempt_id: attemptId, business_id: String(token.business_id) },
      returnUrl: urls.returnUrlFor(attemptId),
      cancelUrl: urls.cancelUrl,
    });
    await setActivationSession(ctx.db, attemptId, session.sessionId);
    return { result: 'redirect', url: session.redirectUrl };
  } catch (error) {
    await settleActivation(ctx.db, attemptId, 'declined', 'processing_error');
    return { result: 'acquirer_unavailable', error };
  }
}

/** Settles a hosted attempt with what the acquirer says of its page; the token is activated once. */
export async function settleHostedSetup(ctx: UseCaseContext, attempt: ActivationAttempt, state: HostedSetupState, providerName: string): Promise<void> {
  if (attempt.status !== 'pending' || state.state === 'open') return;
  if (state.state !== 'saved') {
    await settleActivation(ctx.db, attempt.attempt_id, 'declined', state.state === 'failed' ? state.code : 'expired');
    return;
  }
  const token = await findTokenById(ctx.db, attempt.business_id, attempt.token_id);
  if (token) await activateWith(ctx, token, attempt.attempt_id, state.card, providerName);
}

/** The payer is back from the acquirer's page: the attempt as the acquirer says it ended (never assumed saved). */
export async function activationOnReturn(ctx: UseCaseContext, token: TokenRecord, attemptId: string): Promise<ActivationOutcome> {
  const attempt = await findActivationAttempt(ctx.db, attemptId);
  if (!attempt || attempt.token_id !== token._id) return 'form_expired';
  if (attempt.status === 'pending' && attempt.provider_session) {
    try {
      const provider = await ctx.acquirers.forBusiness(token.business_id);
      if (provider.checkout === 'hosted') await settleHostedSetup(ctx, attempt, await provider.setupState(attempt.provider_session), provider.name);
    } catch {
      // The acquirer did not answer: its notification settles the attempt.
    }
  }
  const now = (await findActivationAttempt(ctx.db, attemptId))!;
  if (now.status === 'pending') return 'in_progress';
  return now.status === 'declined' ? 'declined' : 'saved';
}
