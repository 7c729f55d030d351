// The payment operations: parse the request, call one use case, render the seed's envelope.
import type { components } from '../../generated/openapi.js';
import type { QueryParams, SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { getPayment, startPaymentsExport, listPayments, type PaymentFilters, type PaymentRecord } from '../usecases/merchant/payments.js';
import { keepingAnswers, renderedOnce } from '../usecases/platform/idempotency.js';
import { listPaymentRefunds, refundPayment, type RefundOutcome, type RefundRecord } from '../usecases/merchant/refunds.js';
import { searchOf } from '../domain/search-terms.js';
import { ok } from './envelope.js';
import { createdRange, pageOf, pageRequest, pageTooDeep } from './listing.js';
import { paymentsCsv } from './payments-csv.js';
import { PAYMENT_STATUSES, paymentStatus } from './payment-status.js';

type Payment = components['schemas']['Payment'];
type Refund = components['schemas']['Refund'];

export function presentPayment(record: PaymentRecord): Payment {
  return {
    _id: record._id,
    business_id: record.business_id,
    payment_link_id: record.payment_link_id,
    open_payment_link_id: record.open_payment_link_id,
    tokenization_id: record.tokenization_id,
    amount: record.amount,
    amount_refunded: record.amount_refunded,
    currency: record.currency,
    status: paymentStatus(record),
    payment_status: record.status_id as Payment['payment_status'],
    method: record.method as Payment['method'],
    provider: record.provider,
    provider_reference: record.provider_reference,
    payer_name: record.payer_name,
    payer_email: record.payer_email,
    reference: record.reference,
    description: record.description,
    card_brand: record.card_brand,
    card_last4: record.card_last4,
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    fee: record.fee,
    net: record.net,
    balance_transaction_id: record.balance_transaction_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export function presentRefund(record: RefundRecord): Refund {
  return {
    _id: record._id,
    payment_id: record.payment_id,
    amount: record.amount,
    currency: record.currency,
    status: record.status,
    reason: record.reason,
    provider_reference: record.provider_reference,
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The filters of `GET /api/payments`, as the store takes them. */
export async function paymentFilters(ctx: UseCaseContext, businessId: number, query: QueryParams<'listPayments'>): Promise<PaymentFilters> {
  const status = query['filter[status]'];
  return {
    status: status === undefined ? undefined : PAYMENT_STATUSES[status],
    paymentLinkId: query['filter[payment_link_id]'],
    openPaymentLinkId: query['filter[open_payment_link_id]'],
    tokenizationId: query['filter[tokenization_id]'],
    reference: query['filter[reference]'],
    method: query['filter[method]'],
    payerEmail: query['filter[email]'],
    cardLast4: query['filter[card_last4]'],
    search: query['filter[search]'] === undefined ? undefined : searchOf(query['filter[search]']),
    createdBetween: await createdRange(ctx, businessId, query),
  };
}

const NOT_FOUND = { message: 'Payment not found.' };
const EXPORT_RUNNING = {
  message: "An export of this business's payments is already running; a business runs one at a time. Try again once it has finished.",
};

export const paymentHandlers = {
  getPayment: {
    async handle({ path, business }, ctx, respond) {
      const record = await getPayment(ctx, business.id, path.payment_id);
      return record ? respond.with200(ok(presentPayment(record))) : respond.with404(NOT_FOUND);
    },
  },
  listPayments: {
    async handle({ query, rawQuery, accepts, business }, ctx, respond) {
      if (accepts('application/json', 'text/csv') === 'text/csv') {
        const started = await startPaymentsExport(ctx, business.id, await paymentFilters(ctx, business.id, query));
        if (started.outcome === 'busy') return respond.with429(EXPORT_RUNNING, { 'Retry-After': String(started.retryAfterSeconds) });
        return respond.with200(paymentsCsv(started.payments), {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': 'attachment; filename="payments.csv"',
        });
      }
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const result = await listPayments(ctx, business.id, await paymentFilters(ctx, business.id, query), page);
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/payments`, rawQuery, page, result, presentPayment)));
    },
  },
  createRefund: {
    atomicPhases: true,
    async handle({ path, body, business }, ctx, respond) {
      const reply = renderedOnce((outcome: RefundOutcome) => {
        switch (outcome.result) {
          case 'not_found':
            return respond.with404(NOT_FOUND);
          case 'conflict':
            return respond.with409({ message: outcome.message });
          case 'too_much':
            return respond.with422({
              message: 'The given data was invalid.',
              errors: { amount: [`The amount must not be greater than ${outcome.remaining}, what is left to refund of this payment.`] },
            });
          case 'created':
            return respond.with200(ok(presentRefund(outcome.refund)));
        }
      });
      const request = { amount: body?.amount, reason: body?.reason ?? null };
      return reply(await refundPayment(ctx, business.id, path.payment_id, request, keepingAnswers(ctx, reply)));
    },
  },
  listRefunds: {
    async handle({ path, business }, ctx, respond) {
      const refunds = await listPaymentRefunds(ctx, business.id, path.payment_id);
      return refunds ? respond.with200(ok(refunds.map(presentRefund))) : respond.with404(NOT_FOUND);
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
