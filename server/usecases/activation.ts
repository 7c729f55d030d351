// A payer saves a card on a token's activation page: the provider keeps the card, and the token
// becomes active with its brand, last four digits and expiry, together with its notifications. Each
// submitted form (its attempt id) saves the card at most once.
import type { Card } from '../payments/cards.js';
import { findActivationAttempt, insertPendingActivation, settleActivation, type ActivationAttempt } from '../store/activation-attempts.js';
import { isUniqueViolation } from '../store/errors.js';
import { activateToken, type TokenRecord } from '../store/tokens.js';
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
  let result;
  try {
    result = await ctx.provider.saveCard(card);
  } catch (error) {
    await settleActivation(ctx.db, attemptId, 'declined', 'processing_error');
    throw error;
  }
  if (result.outcome === 'declined') {
    await settleActivation(ctx.db, attemptId, 'declined', result.code);
    return 'declined';
  }
  // Another attempt (another tab) may have activated the token meanwhile: its card stays.
  const saved = result.card;
  const activated = await ctx.db.transaction(async (tx) => {
    const now = await activateToken(tx, token.token, {
      brand: saved.brand,
      last4: saved.last4,
      exp_month: saved.expMonth,
      exp_year: saved.expYear,
      reference: saved.providerToken,
    });
    if (now) await notifyTokenActivated(tx, { ...token, card_brand: saved.brand, card_last4: saved.last4, activated_at: now });
    await settleActivation(tx, attemptId, now ? 'saved' : 'superseded');
    return now;
  });
  if (activated) ctx.outbox.nudge();
  return 'saved';
}
