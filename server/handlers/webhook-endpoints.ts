// The webhook-endpoint operations: the business's own webhook endpoints, their keys, and a test event.
import type { components } from '../../generated/openapi.js';
import type { SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpointDeliveries,
  listWebhookEndpoints,
  MAX_ENDPOINTS_PER_BUSINESS,
  rotateWebhookEndpointSecret,
  testWebhookEndpoint,
  updateWebhookEndpoint,
  type EndpointDeliveryAttempt as EndpointDeliveryAttemptRecord,
  type EndpointFields,
  type WebhookEndpointRecord,
} from '../usecases/merchant/webhook-endpoints.js';
import { ok } from './envelope.js';
import { presentDeliveryAttempt, presentEventDetail } from './events.js';
import { createdBetween, pageOf, pageRequest, pageTooDeep } from './listing.js';

type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
type WebhookEndpointUpdate = components['schemas']['WebhookEndpointUpdate'];
type EventType = components['schemas']['EventType'];
type EndpointDeliveryAttempt = components['schemas']['EndpointDeliveryAttempt'];

export function presentWebhookEndpoint(record: WebhookEndpointRecord): WebhookEndpoint {
  return {
    _id: record._id,
    url: record.url,
    description: record.description,
    enabled_events: record.enabled_events as EventType[],
    enabled: record.enabled,
    previous_secret_expires_at: record.previous_secret_expires_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

function presentEndpointDeliveryAttempt(record: EndpointDeliveryAttemptRecord): EndpointDeliveryAttempt {
  return { event_id: record.event_id, event_type: record.event_type, ...presentDeliveryAttempt(record) };
}

/** The writable fields present in the body, copied by name. */
function changedFields(body: WebhookEndpointUpdate): Partial<EndpointFields> {
  const fields: Partial<EndpointFields> = {};
  if (body.url !== undefined) fields.url = body.url;
  if (body.description !== undefined) fields.description = body.description;
  if (body.enabled_events !== undefined) fields.enabled_events = body.enabled_events;
  if (body.enabled !== undefined) fields.enabled = body.enabled;
  return fields;
}

const NOT_FOUND = { message: 'Webhook endpoint not found.' };
const invalid = (errors: Record<string, string[]>) => ({ message: 'The given data was invalid.' as const, errors });

export const webhookEndpointHandlers = {
  createWebhookEndpoint: {
    async handle({ body, business }, ctx, respond) {
      const result = await createWebhookEndpoint(ctx, business.id, {
        url: body.url,
        description: body.description ?? null,
        enabled_events: body.enabled_events ?? ['*'],
        enabled: body.enabled ?? true,
      });
      if (result.outcome === 'invalid') return respond.with422(invalid(result.errors));
      if (result.outcome === 'full')
        return respond.with409({
          message: `The business already has ${MAX_ENDPOINTS_PER_BUSINESS} webhook endpoints, the most it can have; delete one first.`,
        });
      return respond.with200(ok({ ...presentWebhookEndpoint(result.record), secret: result.secret }));
    },
  },
  listWebhookEndpoints: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok((await listWebhookEndpoints(ctx, business.id)).map(presentWebhookEndpoint)));
    },
  },
  getWebhookEndpoint: {
    async handle({ path, business }, ctx, respond) {
      const record = await getWebhookEndpoint(ctx, business.id, path.webhook_endpoint_id);
      return record ? respond.with200(ok(presentWebhookEndpoint(record))) : respond.with404(NOT_FOUND);
    },
  },
  updateWebhookEndpoint: {
    async handle({ path, body, business }, ctx, respond) {
      const result = await updateWebhookEndpoint(ctx, business.id, path.webhook_endpoint_id, changedFields(body));
      if (result.outcome === 'invalid') return respond.with422(invalid(result.errors));
      if (result.outcome === 'missing') return respond.with404(NOT_FOUND);
      return respond.with200(ok(presentWebhookEndpoint(result.record)));
    },
  },
  deleteWebhookEndpoint: {
    async handle({ path, business }, ctx, respond) {
      const record = await deleteWebhookEndpoint(ctx, business.id, path.webhook_endpoint_id);
      return record ? respond.with200(ok(presentWebhookEndpoint(record))) : respond.with404(NOT_FOUND);
    },
  },
  rotateWebhookEndpointSecret: {
    async handle({ path, business }, ctx, respond) {
      const result = await rotateWebhookEndpointSecret(ctx, business.id, path.webhook_endpoint_id);
      return result ? respond.with200(ok({ ...presentWebhookEndpoint(result.record), secret: result.secret })) : respond.with404(NOT_FOUND);
    },
  },
  listWebhookEndpointDeliveries: {
    async handle({ path, query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const filters = { outcome: query['filter[outcome]'], createdBetween: createdBetween(query['filter[created_at_between]']) };
      const result = await listWebhookEndpointDeliveries(ctx, business.id, path.webhook_endpoint_id, filters, page);
      if (!result) return respond.with404(NOT_FOUND);
      // The id was found among the business's endpoints, so it is one of ours to put in a URL.
      const listPath = `${ctx.publicUrl}/api/webhook-endpoints/${path.webhook_endpoint_id}/deliveries`;
      return respond.with200(ok(pageOf(listPath, rawQuery, page, result, presentEndpointDeliveryAttempt)));
    },
  },
  testWebhookEndpoint: {
    async handle({ path, business }, ctx, respond) {
      const result = await testWebhookEndpoint(ctx, business.id, path.webhook_endpoint_id);
      if (result.outcome === 'missing') return respond.with404(NOT_FOUND);
      if (result.outcome === 'disabled') return respond.with409({ message: 'The webhook endpoint is disabled; enable it first.' });
      return respond.with200(ok(presentEventDetail(result.event)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
