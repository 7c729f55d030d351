// A payer saves a card on a token's activation page: the acquirer keeps the card, and the token
// becomes active with its brand, last four digits and expiry, together with its notifications. Each
// submitted form (its attempt id) saves the card at most once. One use case for each thing the payer
// does on the page: showActivationPage, submitActivation, returnFromCardSetup (back from a hosted
// acquirer's page); the page keeps the form's fields, the CSRF check, the signed return address and
// the rate limits, which `submitActivation` asks at the moments only it knows.
import { activationUrl } from '../../domain/payer-urls.js';
import type { Card } from '../../acquirers/cards.js';
import {
  findActivationAttempt,
  insertPendingActivation,
  setActivationSession,
  settleActivation,
  type ActivationAttempt,
} from '../../store/activation-attempts.js';
import { isUniqueViolation } from '../../store/errors.js';
import type { HostedSetupState, SavedCard } from '../../acquirers/acquirer.js';
import { activateToken, findToken as findTokenById, findTokenByValue, type TokenRecord } from '../../store/tokens.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyTokenActivated } from '../platform/notify.js';
import { acquirerForPayer, type PayerAcquirer } from './payer-acquirer.js';

export type { PayerAcquirer, TokenRecord };

/** What an activation attempt came to, as the payer is answered. */
export type ActivationOutcome = 'saved' | 'declined' | 'in_progress' | 'form_expired';

const TOKEN_VALUE = /^[0-9a-f]{64}$/;
/** How long a submit of an attempt still in flight waits for it to settle, and how often it looks. */
const SETTLE_WAIT_MS = 10_000;
const SETTLE_POLL_MS = 100;

async function tokenForPayer(ctx: UseCaseContext, value: string): Promise<TokenRecord | undefined> {
  return TOKEN_VALUE.test(value) ? findTokenByValue(ctx.db, value) : undefined;
}

export type ActivationPage =
  { result: 'not_found' } | { result: 'saved'; token: TokenRecord } | { result: 'form'; token: TokenRecord; acquirer: PayerAcquirer };

/** The activation page: the token's form, or its saved card once it is active. */
export async function showActivationPage(ctx: UseCaseContext, tokenValue: string): Promise<ActivationPage> {
  const token = await tokenForPayer(ctx, tokenValue);
  if (!token) return { result: 'not_found' };
  if (token.status === 'active') return { result: 'saved', token };
  return { result: 'form', token, acquirer: await acquirerForPayer(ctx, token.business_id) };
}

/** The limits of the HTTP edge (server/rate-limits/payer-forms.ts) on a token: each answers seconds the payer must wait, or undefined to go on. */
export interface ActivationLimits {
  /** A card-saving page about to open on the acquirer. */
  setup(tokenId: string): Promise<number | undefined>;
  /** A card about to reach the acquirer. */
  card(tokenId: string, card: Card): Promise<number | undefined>;
  /** The acquirer declined the card. */
  declined(tokenId: string): Promise<void>;
}

export interface ActivationSubmission<E> {
  tokenValue: string;
  /** From the form; undefined when the form is not one the page served (its CSRF token or attempt id does not hold). */
  attemptId: string | undefined;
  /** What our card form holds: the card, or what is wrong with the entries (not looked at for a hosted acquirer). */
  entries: { card: Card } | { errors: E };
  limits: ActivationLimits;
  /** Where the acquirer's page sends the payer back, made from the attempt id (signed by the page). */
  returnUrlFor(attemptId: string): string;
}

export type ActivationAnswer<E> =
  | { result: 'not_found' }
  /** The token was active before this submit. */
  | { result: 'already_saved'; token: TokenRecord }
  | { result: ActivationOutcome; token: TokenRecord; acquirer: PayerAcquirer }
  | { result: 'invalid'; token: TokenRecord; acquirer: PayerAcquirer; errors: E }
  | { result: 'limited'; retryAfter: number }
  | { result: 'to_acquirer'; token: TokenRecord; acquirer: PayerAcquirer; url: string }
  /** The acquirer could not open its page; the attempt is declined (nothing was saved). */
  | { result: 'acquirer_unavailable'; error: unknown };

/** A submitted activation form, answered once per attempt id (a repeat from its first submit). */
export async function submitActivation<E>(ctx: UseCaseContext, submission: ActivationSubmission<E>): Promise<ActivationAnswer<E>> {
  const token = await tokenForPayer(ctx, submission.tokenValue);
  if (!token) return { result: 'not_found' };
  const { attemptId, limits } = submission;
  const acquirer = await acquirerForPayer(ctx, token.business_id);
  const answer = (result: ActivationOutcome) => ({ result, token, acquirer });

  const earlier = attemptId ? await findActivationAttempt(ctx.db, attemptId) : undefined;
  if (earlier && !acquirer.hosted) return answer(await outcomeOfAttempt(ctx, token, earlier));
  if (token.status === 'active') return { result: 'already_saved', token };
  if (!attemptId) return answer('form_expired');
  if (acquirer.hosted) {
    if (!earlier) {
      const refused = await limits.setup(token._id);
      if (refused !== undefined) return { result: 'limited', retryAfter: refused };
    }
    const started = await startHostedSetup(ctx, token, attemptId, submission.returnUrlFor);
    if (started.result === 'redirect') return { result: 'to_acquirer', token, acquirer, url: started.url };
    if (started.result === 'acquirer_unavailable') return started;
    return answer(started.result);
  }
  const { entries } = submission;
  if ('errors' in entries) return { result: 'invalid', token, acquirer, errors: entries.errors };
  const refused = await limits.card(token._id, entries.card);
  if (refused !== undefined) return { result: 'limited', retryAfter: refused };
  const outcome = await saveCardOnce(ctx, token, attemptId, entries.card);
  if (outcome === 'declined') await limits.declined(token._id);
  return answer(outcome);
}

export type CardSetupReturn = { result: 'not_found' } | { result: ActivationOutcome; token: TokenRecord; acquirer: PayerAcquirer };

/**
 * The payer is back from the acquirer's page: the attempt as the acquirer says it ended (never assumed
 * saved), with the token as it is now (active, with its card, once saved).
 */
export async function returnFromCardSetup(ctx: UseCaseContext, tokenValue: string, attemptId: string): Promise<CardSetupReturn> {
  const token = await tokenForPayer(ctx, tokenValue);
  if (!token) return { result: 'not_found' };
  const acquirer = await acquirerForPayer(ctx, token.business_id);
  const result = await activationOnReturn(ctx, token, attemptId);
  return { result, token: result === 'saved' ? ((await tokenForPayer(ctx, tokenValue)) ?? token) : token, acquirer };
}

/**
 * A known attempt (double click, reload) is answered from its record, never by the acquirer: once a
 * submit still in flight has settled, or after ten seconds as still in progress.
 */
async function outcomeOfAttempt(ctx: UseCaseContext, token: TokenRecord, attempt: ActivationAttempt): Promise<ActivationOutcome> {
  if (attempt.token_id !== token._id) return 'form_expired';
  let current = attempt;
  for (let waited = 0; current.status === 'pending' && waited < SETTLE_WAIT_MS; waited += SETTLE_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    current = (await findActivationAttempt(ctx.db, attempt.attempt_id)) ?? current;
  }
  if (current.status === 'pending') return 'in_progress';
  return current.status === 'declined' ? 'declined' : 'saved';
}

/**
 * Saves the card once per attempt id: the attempt is recorded before the acquirer is asked, so the
 * same form submitted again finds it instead of saving the card a second time.
 */
async function saveCardOnce(ctx: UseCaseContext, token: TokenRecord, attemptId: string, card: Card): Promise<ActivationOutcome> {
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
    if (now) await notifyTokenActivated(tx, { ...token, card_brand: saved.brand, card_last4: saved.last4, activated_at: now }, ctx.publicUrl);
    await settleActivation(tx, attemptId, now ? 'saved' : 'superseded');
    return now;
  });
  if (activated) ctx.outbox.nudge();
}

type HostedSetupStart = { result: 'redirect'; url: string } | { result: ActivationOutcome } | { result: 'acquirer_unavailable'; error: unknown };

/**
 * A business on an acquirer with hosted pages (Stripe): the card is saved on its page. The attempt is
 * recorded first (a second submit of the same form goes back to the same page), then the page opened.
 */
async function startHostedSetup(
  ctx: UseCaseContext,
  token: TokenRecord,
  attemptId: string,
  returnUrlFor: (attemptId: string) => string,
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
      returnUrl: returnUrlFor(attemptId),
      cancelUrl: activationUrl(ctx.publicUrl, token.token),
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

/** A hosted attempt as the acquirer says it ended. */
async function activationOnReturn(ctx: UseCaseContext, token: TokenRecord, attemptId: string): Promise<ActivationOutcome> {
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
