// The event operations: the business's webhook events, their delivery attempts, and a resend.
import type { components } from '../../generated/openapi.js';
import type { SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import {
  getEvent,
  listEvents,
  resendEvent,
  type DeliveryAttempt as DeliveryAttemptRecord,
  type EventDetail as EventDetailRecord,
  type EventRecord,
} from '../usecases/merchant/events.js';
import { ok } from './envelope.js';
import { createdRange, pageOf, pageRequest, pageTooDeep } from './listing.js';

type Event = components['schemas']['Event'];
type EventDetail = components['schemas']['EventDetail'];
type DeliveryAttempt = components['schemas']['DeliveryAttempt'];

export function presentEvent(record: EventRecord): Event {
  return {
    id: record.id,
    type: record.type,
    trigger_at: record.trigger_at,
    data: record.data,
    status: record.status,
    delivery_success: record.status === 'delivered',
    attempts: record.attempts,
    next_attempt_at: record.next_attempt_at,
    delivered_at: record.delivered_at,
    last_error: record.last_error,
    created_at: record.created_at,
  };
}

export function presentEventDetail(record: EventDetailRecord): EventDetail {
  return {
    ...presentEvent(record),
    endpoints: record.endpoints,
    deliveries: record.deliveries.map(presentDeliveryAttempt),
  };
}

export function presentDeliveryAttempt(attempt: DeliveryAttemptRecord): DeliveryAttempt {
  return {
    webhook_endpoint_id: attempt.webhook_endpoint_id,
    url: attempt.url,
    attempt: attempt.attempt,
    started_at: attempt.started_at,
    finished_at: attempt.finished_at,
    duration_ms: Math.max(0, Date.parse(attempt.finished_at) - Date.parse(attempt.started_at)),
    outcome: attempt.outcome,
    http_status: attempt.http_status,
    error: attempt.error,
  };
}

const NOT_FOUND = { message: 'Event not found.' };

export const eventHandlers = {
  listEvents: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const result = await listEvents(
        ctx,
        business.id,
        {
          type: query['filter[type]'],
          createdBetween: await createdRange(ctx, business.id, query),
          deliverySuccess: query['filter[delivery_success]'],
        },
        page,
      );
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/events`, rawQuery, page, result, presentEvent)));
    },
  },
  getEvent: {
    async handle({ path, business }, ctx, respond) {
      const event = await getEvent(ctx, business.id, path.event_id);
      return event ? respond.with200(ok(presentEventDetail(event))) : respond.with404(NOT_FOUND);
    },
  },
  resendEvent: {
    async handle({ path, body, business }, ctx, respond) {
      const outcome = await resendEvent(ctx, business.id, path.event_id, body?.webhook_endpoint_id);
      if (outcome.result === 'not_found') return respond.with404(NOT_FOUND);
      if (outcome.result === 'unknown_endpoint')
        return respond.with422({ message: 'The given data was invalid.', errors: { webhook_endpoint_id: ['The selected webhook endpoint id is invalid.'] } });
      if (outcome.result === 'disabled_endpoint') return respond.with409({ message: 'The webhook endpoint is disabled; enable it first.' });
      if (outcome.result === 'in_flight') return respond.with409({ message: 'This event is being delivered right now; try again in a moment.' });
      if (outcome.result === 'no_endpoint')
        return respond.with409({ message: 'No webhook endpoint wants this event: add one, or name one in webhook_endpoint_id.' });
      return respond.with200(ok(presentEventDetail(outcome.event)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
