// Tokens: a record a payer activates by saving a card on its activation page, and whose card the
// merchant can remove: the acquirer lets go of it first, then the token forgets it and is pending
// again (its activation_url takes a new card), announced by token.card_removed.
import { isId } from '../../domain/ids.js';
import { hasPendingCharge } from '../../store/payments.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import {
  findSavedCardReference,
  findToken,
  forgetSavedCard,
  insertToken,
  listTokens,
  lockToken,
  type TokenFields,
  type TokenFilters,
  type TokenRecord,
} from '../../store/tokens.js';
import type { UseCaseContext } from '../platform/context.js';
import { phase, type KeepAnswer } from '../platform/idempotency.js';
import { notifyTokenCardRemoved } from '../platform/notify.js';

export type { TokenFields, TokenFilters, TokenRecord };

export async function createToken(ctx: UseCaseContext, businessId: number, fields: TokenFields): Promise<TokenRecord> {
  return insertToken(ctx.db, businessId, fields);
}

/** A page of the business's tokens: the saved cards and the requests for one. */
export async function listTokenizations(ctx: UseCaseContext, businessId: number, filters: TokenFilters, page: PageRequest): Promise<Page<TokenRecord>> {
  return listTokens(ctx.db, businessId, filters, page);
}

export async function getToken(ctx: UseCaseContext, businessId: number, id: string): Promise<TokenRecord | undefined> {
  return isId(id) ? findToken(ctx.db, businessId, id) : undefined;
}

export type CardRemoval =
  | { result: 'not_found' }
  /** The token, without a card: removed now, or there was none to remove (removed before, never saved). */
  | { result: 'removed' | 'no_card'; token: TokenRecord }
  /** 409: a charge on the card still waits for the acquirer's answer, and asking again needs the card. */
  | { result: 'charge_pending' }
  /** The acquirer did not let go of the card (no answer, or a refusal): nothing changed here. */
  | { result: 'acquirer_unavailable'; error: unknown };

/** What the removal's transaction can end with, and its answer says. */
export type CardRemovalSettled = Extract<CardRemoval, { result: 'removed' | 'no_card' | 'charge_pending' }>;

/**
 * Removes the token's saved card. The acquirer is asked first, outside any transaction: a failure
 * there leaves the card saved (and the request can be sent again), never a card forgotten here but
 * still chargeable there. Safe to repeat: a token without a card answers as it is.
 */
export async function removeSavedCard(ctx: UseCaseContext, businessId: number, tokenId: string, keep?: KeepAnswer<CardRemovalSettled>): Promise<CardRemoval> {
  const token = isId(tokenId) ? await findToken(ctx.db, businessId, tokenId) : undefined;
  if (!token) return { result: 'not_found' };
  if (!token.card) return { result: 'no_card', token };
  const card = token.card;
  if (await hasPendingCharge(ctx.db, businessId, token._id)) return { result: 'charge_pending' };
  const saved = await findSavedCardReference(ctx.db, businessId, token._id);
  if (saved) {
    try {
      await (await ctx.acquirers.named(businessId, saved.acquirer)).forgetSavedCard(saved.reference);
    } catch (error) {
      return { result: 'acquirer_unavailable', error };
    }
  }
  // One phase: the card forgotten here and the answer (and audit entry) that says so commit together.
  const outcome = await phase(ctx, keep, async (tx): Promise<CardRemovalSettled> => {
    // A charge takes the same lock to record itself: either it is recorded first and seen here, or it
    // finds the card gone.
    await lockToken(tx, businessId, token._id);
    if (await hasPendingCharge(tx, businessId, token._id)) return { result: 'charge_pending' };
    const at = await forgetSavedCard(tx, businessId, token._id, saved?.reference ?? null);
    if (at) await notifyTokenCardRemoved(tx, businessId, { _id: token._id, card_brand: card.brand, card_last4: card.last4, removed_at: at });
    return { result: at ? 'removed' : 'no_card', token: (await findToken(tx, businessId, token._id))! };
  });
  if (outcome.result === 'removed') ctx.outbox.nudge();
  return outcome;
}
