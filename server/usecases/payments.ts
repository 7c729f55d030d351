// Looking payments up: the record behind a payment_id, and the business's payments page by page.
import { isId } from '../domain/ids.js';
import { PAYMENT_PAID } from '../domain/statuses.js';
import { refundsOfPayments, type RefundRecord } from '../store/refunds.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { eachPaymentBatch } from '../store/payment-export.js';
import * as lists from '../store/payment-lists.js';
import type { PaymentFilters } from '../store/payment-lists.js';
import { findBusinessPayment, type PaymentRecord } from '../store/payments.js';
import type { UseCaseContext } from './context.js';

export type { PaymentFilters, PaymentRecord };

export async function getPayment(ctx: UseCaseContext, businessId: number, id: string): Promise<PaymentRecord | undefined> {
  return isId(id) ? findBusinessPayment(ctx.db, businessId, id) : undefined;
}

export async function listPayments(ctx: UseCaseContext, businessId: number, filters: PaymentFilters, page: PageRequest): Promise<Page<PaymentRecord>> {
  return lists.listPayments(ctx.db, businessId, filters, page);
}

export interface ExportedPayment {
  payment: PaymentRecord;
  refunds: RefundRecord[];
}

/** Every matching payment with its refunds, oldest first, a batch at a time (see eachPaymentBatch). */
export async function* exportPayments(ctx: UseCaseContext, businessId: number, filters: PaymentFilters): AsyncGenerator<ExportedPayment> {
  for await (const batch of eachPaymentBatch(ctx.db, businessId, filters)) {
    const refunds = await refundsOfPayments(
      ctx.db,
      batch.filter((payment) => payment.status_id === PAYMENT_PAID).map((payment) => payment._id),
    );
    for (const payment of batch) yield { payment, refunds: refunds.get(payment._id) ?? [] };
  }
}
