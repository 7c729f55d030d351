// A checkout on a hosted acquirer's page (Stripe Checkout), once the payer has been sent there: how it
// stands at the acquirer, read back from it, and settled from that. Whoever looks first settles it:
// the payer's return or repeated submit (usecases/payer/acquirer-return.ts, submit-payment.ts), the acquirer's notification, the
// pending sweep.
import type { HostedPaymentState, HostedAcquirer } from '../../acquirers/acquirer.js';
import type { PaymentRecord } from '../../store/payments.js';
import type { UseCaseContext } from '../platform/context.js';
import { settleHostedPayment, type Settlement } from './settle-payment.js';

/** The acquirer behind a hosted payment: the one named on it. */
export async function hostedAcquirerOf(ctx: UseCaseContext, payment: PaymentRecord): Promise<HostedAcquirer | undefined> {
  const provider = await ctx.acquirers.named(payment.business_id, payment.provider);
  return provider.checkout === 'hosted' ? provider : undefined;
}

/** A hosted payment's state as its acquirer holds it now; undefined when there is nothing to ask it about. */
export async function hostedStateOf(ctx: UseCaseContext, payment: PaymentRecord): Promise<HostedPaymentState | undefined> {
  const provider = await hostedAcquirerOf(ctx, payment);
  if (!provider) return undefined;
  if (payment.provider_session) return provider.paymentState(payment.provider_session);
  if (payment.provider_reference) return provider.chargeState(payment.provider_reference);
  return undefined;
}

/** A pending payment's state read back from its acquirer and settled (a notification's or the sweep's look). */
export async function settleFromAcquirer(ctx: UseCaseContext, payment: PaymentRecord): Promise<Settlement> {
  const state = await hostedStateOf(ctx, payment);
  return state ? settleHostedPayment(ctx, payment, state) : { payment, changed: false };
}
