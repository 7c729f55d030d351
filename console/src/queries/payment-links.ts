// Payment links: the list and one link.
import { $api } from '../api/client.js';
import { everyQueryOf, type GetQuery } from './keys.js';

export type PaymentLinksQuery = GetQuery<'/payment-links'>;

/** Every page and filter of the payment links list. */
export const paymentLinksListKey = everyQueryOf('/payment-links');

export function paymentLinksQuery(query: PaymentLinksQuery) {
  return $api.queryOptions('get', '/payment-links', { params: { query } });
}

export function paymentLinkQuery(linkId: string) {
  return $api.queryOptions('get', '/payment-links/{payment_link_id}', { params: { path: { payment_link_id: linkId } } });
}
