// Webhook endpoints: the list, one endpoint, and its delivery attempts.
import { $api } from '../api/client.js';
import { everyQueryOf, type GetQuery } from './keys.js';

export type DeliveriesQuery = GetQuery<'/webhook-endpoints/{webhook_endpoint_id}/deliveries'>;

export function webhookEndpointsQuery() {
  return $api.queryOptions('get', '/webhook-endpoints');
}

export function webhookEndpointQuery(endpointId: string) {
  return $api.queryOptions('get', '/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: endpointId } } });
}

/** Every page and filter of the deliveries of every endpoint. */
export const webhookDeliveriesKey = everyQueryOf('/webhook-endpoints/{webhook_endpoint_id}/deliveries');

export function webhookDeliveriesQuery(endpointId: string, query: DeliveriesQuery) {
  return $api.queryOptions('get', '/webhook-endpoints/{webhook_endpoint_id}/deliveries', { params: { path: { webhook_endpoint_id: endpointId }, query } });
}
