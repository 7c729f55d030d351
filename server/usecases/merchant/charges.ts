// Charging a card a payer saved on a token, without the payer present (a merchant-initiated
// transaction). Like a checkout, the attempt is recorded as pending before the acquirer is asked,
// and its outcome and its webhook commit together.
//
// The acquirer captures a charge as it answers, so a call that throws (a timeout, a dropped
// connection) leaves the outcome unknown: the money may have been taken. Such a charge is not a
// failure: it stays pending and the pending sweep asks the acquirer again with the very same request
// (our payment id is its idempotency reference), which settles it with the first call's outcome.
//
// Under an Idempotency-Key the charge runs in atomic phases (usecases/platform/idempotency.ts): the pending
// payment commits with the key's provisional answer (202, pending), and the settlement with the final
// one, so a retry never charges again, whether the first request is still waiting or died waiting.
import { isId, newId } from '../../domain/ids.js';
import type { ChargeRequest as AcquirerChargeRequest, ChargeResult } from '../../acquirers/acquirer.js';
import { findSavedCardReference, findToken, lockToken, type TokenRecord } from '../../store/tokens.js';
import {
  insertPendingPayment,
  markPaymentAwaitingProvider,
  markPaymentFailed,
  markPaymentPaid,
  updatePendingPayment,
  type PaymentRecord,
} from '../../store/payments.js';
import { nowIso } from '../../store/timestamps.js';
import type { UseCaseContext } from '../platform/context.js';
import { phase, type KeepAnswer } from '../platform/idempotency.js';
import { notifyPaymentFailed, notifyPaymentSucceeded } from '../platform/notify.js';
import { recordCharge } from '../settlement/ledger.js';

export interface ChargeRequest {
  /** Cents. */
  amount: number;
  currency: string;
  description: string | null;
  reference: string | null;
}

export type ChargeOutcome =
  | { result: 'not_found' }
  /** 409: no card is saved on the token yet. */
  | { result: 'not_active' }
  /** 409: the merchant removed the token's card (DELETE .../card); the payer must save one again. */
  | { result: 'card_removed' }
  /** 422: the card was saved on the sandbox, and the business now takes payments through `acquirer`, a real one. */
  | { result: 'sandbox_card'; acquirer: string }
  | { result: 'paid' | 'pending'; payment: PaymentRecord }
  /** 202: the acquirer's answer never arrived; the payment stays pending until the sweep asks again. */
  | { result: 'unanswered'; payment: PaymentRecord }
  /** 402: the acquirer declined; the payment is recorded as failed. */
  | { result: 'declined'; payment: PaymentRecord };

/** The acquirer that takes no money: test cards only. */
const SANDBOX = 'sandbox';

type SettledCharge = Extract<ChargeOutcome, { result: 'paid' | 'pending' | 'declined' }>;

type ActiveToken = TokenRecord & { card: NonNullable<TokenRecord['card']> };

/** `keep` keeps the answer to the request's Idempotency-Key in each phase's transaction. */
export async function chargeToken(
  ctx: UseCaseContext,
  businessId: number,
  tokenId: string,
  request: ChargeRequest,
  keep?: KeepAnswer<ChargeOutcome>,
): Promise<ChargeOutcome> {
  const { db } = ctx;
  const token = isId(tokenId) ? await findToken(db, businessId, tokenId) : undefined;
  if (!token) return { result: 'not_found' };
  const saved = token.card ? await findSavedCardReference(db, businessId, token._id) : undefined;
  if (!token.card || !saved) return { result: token.card_removed_at ? 'card_removed' : 'not_active' };
  const active = token as ActiveToken;
  // Through the acquirer that saved the card, whichever the business takes new payments with now: except
  // a sandbox card once the business collects real money, since the sandbox would report a payment no
  // one made. Refused before anything is recorded.
  if (saved.acquirer === SANDBOX) {
    const current = await ctx.acquirers.nameForBusiness(businessId);
    if (current !== SANDBOX) return { result: 'sandbox_card', acquirer: current };
  }
  const acquirer = await ctx.acquirers.named(businessId, saved.acquirer);

  const paymentId = newId();
  const recorded = await phase(ctx, keep, async (tx): Promise<ChargeOutcome> => {
    // The card's removal takes the same lock: the charge is recorded while the card is still saved
    // (and the removal then waits for it to settle), or it finds the card gone.
    await lockToken(tx, businessId, token._id);
    if ((await findSavedCardReference(tx, businessId, token._id))?.reference !== saved.reference) return { result: 'card_removed' };
    return {
      result: 'unanswered',
      payment: await insertPendingPayment(tx, {
        _id: paymentId,
        business_id: businessId,
        payment_link_id: null,
        open_payment_link_id: null,
        tokenization_id: token._id,
        attempt_id: `charge_${paymentId}`,
        amount: request.amount,
        currency: request.currency,
        payer_name: null,
        payer_email: token.email,
        method: 'card',
        provider: acquirer.name,
        reference: request.reference,
        description: request.description ?? token.title,
      }),
    };
  });
  if (recorded.result !== 'unanswered') return recorded;
  const pending = recorded.payment;

  let answer: ChargeResult;
  try {
    answer = await acquirer.chargeSavedCard(acquirerRequest(pending, saved.reference));
  } catch {
    return phase(ctx, keep, async (tx) => ({
      result: 'unanswered' as const,
      payment: (await updatePendingPayment(tx, pending._id, { ...cardOf(active), updated_at: nowIso() }))!,
    }));
  }
  return settleCharge(ctx, pending, active, answer, keep);
}

/**
 * Asks the acquirer again about a charge it never answered, with the request first sent, and settles
 * it with the answer. Throws when the acquirer still does not answer (the charge stays pending), or
 * when the charge was settled meanwhile by another look.
 */
export async function askAgainAboutCharge(ctx: UseCaseContext, payment: PaymentRecord & { tokenization_id: string }): Promise<SettledCharge> {
  const token = await findToken(ctx.db, payment.business_id, payment.tokenization_id);
  const saved = await findSavedCardReference(ctx.db, payment.business_id, payment.tokenization_id);
  // A token keeps the card it was activated with, so this is the card the first call named.
  if (!token?.card || !saved) throw new Error(`charge ${payment._id}: its token no longer has a saved card`);
  const acquirer = await ctx.acquirers.named(payment.business_id, payment.provider);
  const answer = await acquirer.chargeSavedCard(acquirerRequest(payment, saved.reference));
  return settleCharge(ctx, payment, token as ActiveToken, answer);
}

/** The same on every call for a payment, so the acquirer's idempotency on our reference returns the first outcome. */
function acquirerRequest(payment: PaymentRecord, acquirerToken: string): AcquirerChargeRequest {
  return {
    reference: payment._id,
    acquirerToken,
    amount: payment.amount,
    currency: payment.currency,
    description: payment.description ?? '',
    metadata: { payment_id: payment._id, tokenization_id: payment.tokenization_id!, business_id: String(payment.business_id) },
  };
}

function cardOf(token: ActiveToken) {
  return { card_brand: token.card.brand, card_last4: token.card.last4 };
}

/** Records the acquirer's answer; a final one commits with its webhook (and `keep`'s answer) in one transaction. */
async function settleCharge(
  ctx: UseCaseContext,
  pending: PaymentRecord,
  token: ActiveToken,
  answer: ChargeResult,
  keep?: KeepAnswer<ChargeOutcome>,
): Promise<SettledCharge> {
  const card = cardOf(token);
  if (answer.outcome === 'pending') {
    return phase(ctx, keep, async (tx) => ({ result: 'pending' as const, payment: await markPaymentAwaitingProvider(tx, pending._id, answer.chargeId, card) }));
  }
  const target = { kind: 'tokenization' as const, _id: token._id, reference: pending.reference, reference_2: null };
  const outcome = await phase(ctx, keep, async (tx): Promise<SettledCharge> => {
    if (answer.outcome === 'paid') {
      const payment = await recordCharge(tx, ctx.settlement, await markPaymentPaid(tx, pending._id, answer.chargeId, card), answer.balance);
      await notifyPaymentSucceeded(tx, payment, { ...target, title: payment.description ?? token.title }, ctx.publicUrl);
      return { result: 'paid', payment };
    }
    const payment = await markPaymentFailed(tx, pending._id, { code: answer.code, message: answer.message }, card);
    await notifyPaymentFailed(tx, payment, target);
    return { result: 'declined', payment };
  });
  ctx.outcomes?.payment(outcome.payment, outcome.result === 'paid' ? 'succeeded' : 'failed');
  ctx.outbox.nudge();
  return outcome;
}
