// How a business's payers pay, which the payer's checkout and a token's activation both show: on our
// card form, or on its acquirer's own page.
import type { UseCaseContext } from '../platform/context.js';

export interface PayerAcquirer {
  hosted: boolean;
  /** The acquirer's pages' origin, for a hosted one. */
  pageOrigin: string | null;
}

export async function acquirerForPayer(ctx: UseCaseContext, businessId: number): Promise<PayerAcquirer> {
  const provider = await ctx.acquirers.forBusiness(businessId);
  return provider.checkout === 'hosted' ? { hosted: true, pageOrigin: provider.pageOrigin } : { hosted: false, pageOrigin: null };
}
