// A payer saves a card on a token's activation page: the provider keeps the card, and the token
// becomes active with its brand, last four digits and expiry, together with its notifications.
import type { Card } from '../payments/cards.js';
import type { DeclineCode } from '../payments/provider.js';
import { activateToken, type TokenRecord } from '../store/tokens.js';
import type { UseCaseContext } from './context.js';
import { notifyTokenActivated } from './notify.js';

export type ActivationOutcome = { result: 'saved' } | { result: 'declined'; code: DeclineCode; message: string };

export async function saveCardOnToken(ctx: UseCaseContext, token: TokenRecord, card: Card): Promise<ActivationOutcome> {
  const result = await ctx.provider.saveCard(card);
  if (result.outcome === 'declined') return { result: 'declined', code: result.code, message: result.message };
  const saved = result.card;
  // A second submit finds the token already active and lands where the first did.
  const activated = await ctx.db.transaction(async (tx) => {
    const now = await activateToken(tx, token.token, { brand: saved.brand, last4: saved.last4, exp_month: saved.expMonth, exp_year: saved.expYear, reference: saved.providerToken });
    if (now) await notifyTokenActivated(tx, { ...token, card_brand: saved.brand, card_last4: saved.last4, activated_at: now });
    return now;
  });
  if (activated) ctx.outbox.nudge();
  return { result: 'saved' };
}
