// The payer back from the acquirer's page, told how the payment stands there (read back from the
// acquirer, never assumed paid), and the payment a thank-you page shows.
import { isId } from '../../domain/ids.js';
import type { LinkKind } from '../../domain/payer-urls.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../../domain/statuses.js';
import { findTargetLocale } from '../../store/business-profile.js';
import { findOpenPaymentLinkForPayer } from '../../store/open-payment-links.js';
import { findPaymentLinkForPayer } from '../../store/payment-links.js';
import { findPayment, type PaymentRecord } from '../../store/payments.js';
import type { UseCaseContext } from '../platform/context.js';
import { hostedStateOf } from '../settlement/hosted-checkout-state.js';
import { LINK_UNAVAILABLE } from '../../domain/failures.js';
import { settleHostedPayment } from '../settlement/settle-payment.js';

/** How a payment stands for the payer back from the acquirer's page. */
export type PaymentReturn =
  | { result: 'not_found' }
  | {
      /** `refunded`: taken after its link could no longer be paid, and given back in full. */
      result: 'paid' | 'refunded' | 'failed' | 'pending';
      payment: PaymentRecord;
      /** `locale`: the language the link's payer is expected to read, when the merchant said. */
      link: { kind: LinkKind; id: string; redirectUrl: string | null; locale: string | null };
    };

/**
 * The payer is back from the acquirer's page: the payment as the acquirer says it stands now (never
 * assumed paid). When the acquirer cannot be asked, the record as it is (pending: the notification or
 * the sweep settles it).
 */
export async function returnFromAcquirer(ctx: UseCaseContext, paymentId: string): Promise<PaymentReturn> {
  const payment = isId(paymentId) ? await settledOnReturn(ctx, paymentId) : undefined;
  if (!payment) return { result: 'not_found' };
  const kind = payment.payment_link_id ? 'payment_link' : payment.open_payment_link_id ? 'open_payment_link' : undefined;
  const id = payment.payment_link_id ?? payment.open_payment_link_id;
  if (!kind || !id) return { result: 'not_found' };
  const link = kind === 'payment_link' ? await findPaymentLinkForPayer(ctx.db, id) : await findOpenPaymentLinkForPayer(ctx.db, id);
  const result =
    payment.status_id === PAYMENT_PAID
      ? payment.failure_code === LINK_UNAVAILABLE.code
        ? 'refunded'
        : 'paid'
      : payment.status_id === PAYMENT_FAILED
        ? 'failed'
        : 'pending';
  return { result, payment, link: { kind, id, redirectUrl: link?.redirect_url ?? null, locale: link?.locale ?? null } };
}

async function settledOnReturn(ctx: UseCaseContext, paymentId: string): Promise<PaymentRecord | undefined> {
  const payment = await findPayment(ctx.db, paymentId);
  if (!payment || payment.status_id !== PAYMENT_PENDING) return payment;
  try {
    const state = await hostedStateOf(ctx, payment);
    return state ? (await settleHostedPayment(ctx, payment, state)).payment : payment;
  } catch {
    return payment;
  }
}

/**
 * The payment a thank-you page shows: paid, on the link its (signed) address names, with the language
 * that link's payer is expected to read; otherwise none.
 */
export async function showThankYou(
  ctx: UseCaseContext,
  paymentId: string,
  linkId: string,
): Promise<{ payment: PaymentRecord; locale: string | null } | undefined> {
  const payment = isId(paymentId) ? await findPayment(ctx.db, paymentId) : undefined;
  const matches = payment && (payment.payment_link_id === linkId || payment.open_payment_link_id === linkId);
  if (!matches || payment.status_id !== PAYMENT_PAID) return undefined;
  const locale = await findTargetLocale(ctx.db, payment.payment_link_id ? 'payment_link' : 'open_payment_link', linkId);
  return { payment, locale };
}
