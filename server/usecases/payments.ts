// Looking payments up: the record behind a payment_id, and the business's payments page by page.
import { isId } from '../domain/ids.js';
import type { Page, PageRequest } from '../store/pagination.js';
import * as store from '../store/payments.js';
import type { PaymentFilters, PaymentRecord } from '../store/payments.js';
import type { UseCaseContext } from './context.js';

export type { PaymentFilters, PaymentRecord };

export async function getPayment(ctx: UseCaseContext, businessId: number, id: string): Promise<PaymentRecord | undefined> {
  return isId(id) ? store.findBusinessPayment(ctx.db, businessId, id) : undefined;
}

export async function listPayments(ctx: UseCaseContext, businessId: number, filters: PaymentFilters, page: PageRequest): Promise<Page<PaymentRecord>> {
  return store.listPayments(ctx.db, businessId, filters, page);
}
