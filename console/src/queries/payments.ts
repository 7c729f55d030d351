// Payments: the list (GET /payments), one payment and its refunds.
import { $api } from '../api/client.js';
import { everyQueryOf, type GetQuery } from './keys.js';

export type PaymentsQuery = GetQuery<'/payments'>;

/** Every page and filter of the payments list, a payment link's payments included. */
export const paymentsListKey = everyQueryOf('/payments');

export function paymentsQuery(query: PaymentsQuery) {
  return $api.queryOptions('get', '/payments', { params: { query } });
}

export function paymentQuery(paymentId: string) {
  return $api.queryOptions('get', '/payments/{payment_id}', { params: { path: { payment_id: paymentId } } });
}

export function paymentRefundsQuery(paymentId: string) {
  return $api.queryOptions('get', '/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } });
}
