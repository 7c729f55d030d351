// The payment operations: parse the request, call one use case, render the seed's envelope.
import type { components } from '../../generated/openapi.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../domain/statuses.js';
import type { SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/context.js';
import { getPayment, listPayments, type PaymentRecord } from '../usecases/payments.js';
import { ok } from './envelope.js';
import { createdBetween, pageOf, pageRequest, pageTooDeep } from './listing.js';

type Payment = components['schemas']['Payment'];

const STATUS_NAMES = { [PAYMENT_PAID]: 'paid', [PAYMENT_PENDING]: 'pending', [PAYMENT_FAILED]: 'failed' } as const;
const STATUS_IDS = { paid: PAYMENT_PAID, pending: PAYMENT_PENDING, failed: PAYMENT_FAILED } as const;

export function presentPayment(record: PaymentRecord): Payment {
  const status = STATUS_NAMES[record.status_id as keyof typeof STATUS_NAMES];
  return {
    _id: record._id,
    business_id: record.business_id,
    payment_link_id: record.payment_link_id,
    open_payment_link_id: record.open_payment_link_id,
    amount: record.amount,
    currency: record.currency,
    status,
    payment_status: record.status_id as Payment['payment_status'],
    method: record.method as Payment['method'],
    provider: record.provider,
    provider_reference: record.provider_reference,
    payer_name: record.payer_name,
    payer_email: record.payer_email,
    card_brand: record.card_brand,
    card_last4: record.card_last4,
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

const NOT_FOUND = { message: 'Payment not found.' };

export const paymentHandlers = {
  getPayment: {
    async handle({ path, business }, ctx, respond) {
      const record = await getPayment(ctx, business.id, path.payment_id);
      return record ? respond.with200(ok(presentPayment(record))) : respond.with404(NOT_FOUND);
    },
  },
  listPayments: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const status = query['filter[status]'];
      const result = await listPayments(
        ctx,
        business.id,
        {
          statusId: status === undefined ? undefined : STATUS_IDS[status],
          paymentLinkId: query['filter[payment_link_id]'],
          openPaymentLinkId: query['filter[open_payment_link_id]'],
          method: query['filter[method]'],
          payerEmail: query['filter[email]'],
          createdBetween: createdBetween(query['filter[created_at_between]']),
        },
        page,
      );
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/payments`, rawQuery, page, result, presentPayment)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
