// Webhook endpoints a business manages through the API: registered under the same URL rules as
// every delivery (public addresses only, never the service itself), several per business, each with
// its own event filter and signing key, shown once; a rotation keeps the old key signing beside the
// new one for a day, so receivers can switch without missing an event.
import { randomBytes } from 'node:crypto';
import { newId } from '../../domain/ids.js';
import { pingEvent } from '../../outbox/messages.js';
import { checkWebhookUrl } from '../../outbox/webhook-target.js';
import { lockBusiness } from '../../store/businesses.js';
import * as store from '../../store/webhook-endpoints.js';
import type { EndpointFields, WebhookEndpointRecord } from '../../store/webhook-endpoints.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import { findEvent, listEndpointDeliveries, type EndpointDeliveryAttempt, type EndpointDeliveryFilters, type EventDetail } from '../../store/events.js';
import type { UseCaseContext } from '../platform/context.js';
import { enqueueWebhook } from '../platform/notify.js';

export type { EndpointDeliveryAttempt, EndpointDeliveryFilters, EndpointFields, WebhookEndpointRecord };

/** As many as Stripe allows an account. */
export const MAX_ENDPOINTS_PER_BUSINESS = 16;

/** How long a rotated-out key keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A Standard Webhooks signing key: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const ENDPOINT_ID = /^we_[0-9a-f]{24}$/;

type Invalid = { outcome: 'invalid'; errors: Record<string, string[]> };

/**
 * The one answer to every refused URL. Which reason applied would tell a business what the service's
 * own network holds: that `http://vm/` is a name that resolves here, and to a loopback address, while
 * another name does not resolve at all.
 */
export const URL_NOT_ALLOWED = 'The url is not allowed: this address is not allowed for webhooks.';

/** `url` as a field error when it cannot be an endpoint (the reason goes to the log), or undefined. */
async function urlProblem(ctx: UseCaseContext, businessId: number, url: string): Promise<Invalid | undefined> {
  const check = await checkWebhookUrl(url, ctx.webhooks.policy);
  if (check.ok) return undefined;
  // The reason names the host and what it resolved to; the URL's path and query stay out of the log.
  ctx.webhooks.log?.warn({ business_id: businessId, webhook_origin: originOf(url), reason: check.problem }, 'webhook URL refused');
  return { outcome: 'invalid', errors: { url: [URL_NOT_ALLOWED] } };
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export async function listWebhookEndpoints(ctx: UseCaseContext, businessId: number): Promise<WebhookEndpointRecord[]> {
  return store.listEndpoints(ctx.db, businessId);
}

export async function getWebhookEndpoint(ctx: UseCaseContext, businessId: number, id: string): Promise<WebhookEndpointRecord | undefined> {
  return ENDPOINT_ID.test(id) ? store.findEndpoint(ctx.db, businessId, id) : undefined;
}

/** A page of the endpoint's delivery attempts; undefined when the business has no such endpoint. */
export async function listWebhookEndpointDeliveries(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
  filters: EndpointDeliveryFilters,
  page: PageRequest,
): Promise<Page<EndpointDeliveryAttempt> | undefined> {
  const endpoint = await getWebhookEndpoint(ctx, businessId, id);
  return endpoint && listEndpointDeliveries(ctx.db, businessId, endpoint, filters, page);
}

export async function createWebhookEndpoint(
  ctx: UseCaseContext,
  businessId: number,
  fields: EndpointFields,
): Promise<Invalid | { outcome: 'full' } | { outcome: 'created'; record: WebhookEndpointRecord; secret: string }> {
  const invalid = await urlProblem(ctx, businessId, fields.url);
  if (invalid) return invalid;
  const secret = newWebhookSecret();
  return ctx.db.transaction(async (tx) => {
    // Two registrations at once must not both find room for one more.
    await lockBusiness(tx, businessId);
    if ((await store.countEndpoints(tx, businessId)) >= MAX_ENDPOINTS_PER_BUSINESS) return { outcome: 'full' as const };
    return { outcome: 'created' as const, record: await store.createEndpoint(tx, businessId, fields, secret, ctx.secretsKey), secret };
  });
}

export async function updateWebhookEndpoint(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
  fields: Partial<EndpointFields>,
): Promise<Invalid | { outcome: 'missing' } | { outcome: 'updated'; record: WebhookEndpointRecord }> {
  if (!ENDPOINT_ID.test(id)) return { outcome: 'missing' };
  if (fields.url !== undefined) {
    const invalid = await urlProblem(ctx, businessId, fields.url);
    if (invalid) return invalid;
  }
  const record = await store.updateEndpoint(ctx.db, businessId, id, fields);
  return record ? { outcome: 'updated', record } : { outcome: 'missing' };
}

/** Deletes the endpoint; deliveries still waiting for it are given up (they stay listed in /api/events). */
export async function deleteWebhookEndpoint(ctx: UseCaseContext, businessId: number, id: string): Promise<WebhookEndpointRecord | undefined> {
  return ENDPOINT_ID.test(id) ? store.deleteEndpoint(ctx.db, businessId, id) : undefined;
}

export async function rotateWebhookEndpointSecret(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
  now = new Date(),
): Promise<{ record: WebhookEndpointRecord; secret: string } | undefined> {
  if (!ENDPOINT_ID.test(id)) return undefined;
  const secret = newWebhookSecret();
  const record = await store.rotateEndpointSecret(ctx.db, businessId, id, secret, ctx.secretsKey, new Date(now.getTime() + ROTATION_OVERLAP_MS));
  return record && { record, secret };
}

/** Queues a `ping` event to this endpoint alone, whatever events it wants. */
export async function testWebhookEndpoint(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
): Promise<{ outcome: 'missing' } | { outcome: 'disabled' } | { outcome: 'queued'; event: EventDetail }> {
  const endpoint = await getWebhookEndpoint(ctx, businessId, id);
  if (!endpoint) return { outcome: 'missing' };
  if (!endpoint.enabled) return { outcome: 'disabled' };
  const event = pingEvent(`evt_${newId()}`, endpoint);
  await enqueueWebhook(ctx.db, businessId, event, [endpoint.id]);
  ctx.outbox.nudge();
  return { outcome: 'queued', event: (await findEvent(ctx.db, businessId, event.id))! };
}
