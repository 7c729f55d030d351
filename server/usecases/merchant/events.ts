// The business's webhook events: what was sent, whether it arrived at each endpoint, and sending one again.
import type { Page, PageRequest } from '../../domain/paging.js';
import * as store from '../../store/events.js';
import type { DeliveryAttempt, EndpointDelivery, EventDetail, EventFilters, EventRecord } from '../../store/events.js';
import { findEndpoint, subscribedEndpoints } from '../../store/webhook-endpoints.js';
import type { UseCaseContext } from '../platform/context.js';

export type { DeliveryAttempt, EndpointDelivery, EventDetail, EventFilters, EventRecord };

const EVENT_ID = /^evt_[0-9a-f]{24}$/;

export async function listEvents(ctx: UseCaseContext, businessId: number, filters: EventFilters, page: PageRequest): Promise<Page<EventRecord>> {
  return store.listEvents(ctx.db, businessId, filters, page);
}

export async function getEvent(ctx: UseCaseContext, businessId: number, id: string): Promise<EventDetail | undefined> {
  return EVENT_ID.test(id) ? store.findEvent(ctx.db, businessId, id) : undefined;
}

export type ResendOutcome =
  | { result: 'queued'; event: EventDetail }
  | { result: 'not_found' }
  | { result: 'unknown_endpoint' }
  | { result: 'disabled_endpoint' }
  | { result: 'in_flight' }
  /** Recorded when no endpoint wanted it, and none wants it now. */
  | { result: 'no_endpoint' };

/**
 * Sends the event again to every endpoint it went to, or to the one endpoint named (its public id). An
 * event that went nowhere (no endpoint wanted it then) goes to the endpoints that want it now.
 */
export async function resendEvent(ctx: UseCaseContext, businessId: number, id: string, endpointId?: string): Promise<ResendOutcome> {
  const event = await getEvent(ctx, businessId, id);
  if (!event) return { result: 'not_found' };
  let endpointRowId: number | undefined;
  if (endpointId !== undefined) {
    const endpoint = await findEndpoint(ctx.db, businessId, endpointId);
    if (!endpoint) return { result: 'unknown_endpoint' };
    // A disabled endpoint would give the delivery up at once: the merchant enables it first.
    if (!endpoint.enabled) return { result: 'disabled_endpoint' };
    endpointRowId = endpoint.id;
  }
  if (endpointRowId === undefined && event.endpoints.length === 0) {
    const wanting = await subscribedEndpoints(ctx.db, businessId, event.type);
    if (wanting.length === 0) return { result: 'no_endpoint' };
    for (const rowId of wanting) await store.resendEvent(ctx.db, businessId, id, rowId);
  } else if ((await store.resendEvent(ctx.db, businessId, id, endpointRowId)) === 0) return { result: 'in_flight' };
  ctx.outbox.nudge();
  return { result: 'queued', event: (await store.findEvent(ctx.db, businessId, id))! };
}
