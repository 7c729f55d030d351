// Open payment links: the list, one link, what it collected, and the overview's most collecting links.
import { queryOptions } from '@tanstack/react-query';
import { $api, api } from '../api/client.js';
import { everyQueryOf, type GetQuery } from './keys.js';

export type OpenLinksQuery = GetQuery<'/open-payment-links'>;

/** Every page and filter of the open links list, and the overview's top links (read from it). */
export const openLinksListKey = everyQueryOf('/open-payment-links');

export function openLinksQuery(query: OpenLinksQuery) {
  return $api.queryOptions('get', '/open-payment-links', { params: { query } });
}

export function openLinkQuery(linkId: string) {
  return $api.queryOptions('get', '/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: linkId } } });
}

export function openLinkTotalQuery(linkId: string) {
  return $api.queryOptions('get', '/open-payment-links/{open_payment_link_id}/total-collection', { params: { path: { open_payment_link_id: linkId } } });
}

export function openLinkTopPayersQuery(linkId: string, limit: number) {
  return $api.queryOptions('get', '/open-payment-links/{open_payment_link_id}/top-collection', {
    params: { path: { open_payment_link_id: linkId }, query: { 'filter[limit]': limit } },
  });
}

/**
 * The newest active links and their totals, most collected first: the API has no ranking of links by
 * what they collected. Keyed under the list, so what changes the list refreshes it too.
 */
export function topOpenLinksQuery() {
  return queryOptions({
    queryKey: [...openLinksListKey, { top_by_collection: 10 }] as const,
    queryFn: async () => {
      const { data, error } = await api.GET('/open-payment-links', { params: { query: { per_page: 10, 'filter[status]': true } } });
      if (error) throw error;
      const totals = await Promise.all(
        data.data.data.map(async (link) => {
          const total = await api.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params: { path: { open_payment_link_id: link._id } } });
          return { link, total: total.data?.data };
        }),
      );
      return totals.filter((entry) => entry.total !== undefined).sort((a, b) => b.total!.total_amount - a.total!.total_amount);
    },
  });
}
