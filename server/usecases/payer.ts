// What the hosted pages read about the thing a payer opened: any business's link or token, found by
// the id or token in its URL (deleted links included, so the page can say so), and earlier attempts.
import { isId } from '../domain/ids.js';
import { findOpenPaymentLinkForPayer } from '../store/open-payment-links.js';
import { findPaymentLinkForPayer } from '../store/payment-links.js';
import { findPayment, findPaymentByAttempt, type PaymentRecord } from '../store/payments.js';
import { findTokenByValue, type TokenRecord } from '../store/tokens.js';
import type { UseCaseContext } from './context.js';

export type { PaymentRecord, TokenRecord };

export async function paymentLinkForPayer(ctx: UseCaseContext, id: string) {
  return isId(id) ? findPaymentLinkForPayer(ctx.db, id) : undefined;
}

export async function openPaymentLinkForPayer(ctx: UseCaseContext, id: string) {
  return isId(id) ? findOpenPaymentLinkForPayer(ctx.db, id) : undefined;
}

/** The payment recorded for a submitted form, if that form was submitted before. */
export async function attemptOf(ctx: UseCaseContext, attemptId: string): Promise<PaymentRecord | undefined> {
  return findPaymentByAttempt(ctx.db, attemptId);
}

export async function paymentById(ctx: UseCaseContext, id: string): Promise<PaymentRecord | undefined> {
  return isId(id) ? findPayment(ctx.db, id) : undefined;
}

const TOKEN_VALUE = /^[0-9a-f]{64}$/;

export async function tokenForPayer(ctx: UseCaseContext, value: string): Promise<TokenRecord | undefined> {
  return TOKEN_VALUE.test(value) ? findTokenByValue(ctx.db, value) : undefined;
}

/** How a business's payers pay: on our card form, or on its acquirer's own page (and where that is). */
export interface PayerAcquirer {
  hosted: boolean;
  /** The acquirer's pages' origin, for a hosted one. */
  pageOrigin: string | null;
}

export async function acquirerForPayer(ctx: UseCaseContext, businessId: number): Promise<PayerAcquirer> {
  const provider = await ctx.acquirers.forBusiness(businessId);
  return provider.checkout === 'hosted' ? { hosted: true, pageOrigin: provider.pageOrigin } : { hosted: false, pageOrigin: null };
}
