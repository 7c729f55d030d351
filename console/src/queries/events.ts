// Webhook events: the list, one event with its deliveries, and the events that name one payment.
import { queryOptions } from '@tanstack/react-query';
import { $api, api } from '../api/client.js';
import { EVENT_PAGES_READ, eventRangeFor, namesPayment } from '../lib/events.js';
import { everyQueryOf, type GetQuery } from './keys.js';

export type EventsQuery = GetQuery<'/events'>;

/** Every page and filter of the events list, and the events read for a payment (keyed under it). */
export const eventsListKey = everyQueryOf('/events');

export function eventsQuery(query: EventsQuery) {
  return $api.queryOptions('get', '/events', { params: { query } });
}

export function eventQuery(eventId: string) {
  return $api.queryOptions('get', '/events/{event_id}', { params: { path: { event_id: eventId } } });
}

/** The events read for a payment (whatever the days read): what a refund or a resend of it changes. */
export function paymentEventsKey(paymentId: string) {
  return [...eventsListKey, { payment_id: paymentId }] as const;
}

/**
 * The events that name a payment, read from the events of the days around its creation (up to
 * EVENT_PAGES_READ pages): the events list has no payment filter yet.
 */
export function paymentEventsQuery(paymentId: string, createdAt: string) {
  return queryOptions({
    queryKey: paymentEventsKey(paymentId),
    queryFn: async () => {
      const found = [];
      let complete = true;
      for (let page = 1; page <= EVENT_PAGES_READ; page += 1) {
        const { data, error } = await api.GET('/events', {
          params: { query: { page, per_page: 100, 'filter[created_at_between]': eventRangeFor(createdAt) } },
        });
        if (error) throw error;
        found.push(...data.data.data.filter((event) => namesPayment(event.data, paymentId)));
        if (data.data.next_page_url === null) break;
        if (page === EVENT_PAGES_READ) complete = false;
      }
      return { found, complete };
    },
  });
}
