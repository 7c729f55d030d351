// Verifying the service's webhooks in a receiver. Two signatures travel with every event:
//  - Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), checked with the
//    standardwebhooks library, which also rejects timestamps more than 5 minutes off;
//  - `data.hash`, the seed's legacy signature and Swipe's (shared/webhook-signature.ts): lowercase hex
//    HMAC-SHA256, keyed with the signature key, over the signature key followed by every other `data`
//    value in order (null as empty text), with no separators and no timestamp, so on its own it
//    cannot tell a replay from the original.
import { timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from '../generated/openapi.js';
import { eventHash } from '../shared/webhook-signature.js';

export type PaymentCreatedEvent = components['schemas']['PaymentCreatedEvent'];
export type PaymentFailedEvent = components['schemas']['PaymentFailedEvent'];
export type TokenActivatedEvent = components['schemas']['TokenActivatedEvent'];
export type TokenCardRemovedEvent = components['schemas']['TokenCardRemovedEvent'];
/** `refund.succeeded` and `refund.failed`. */
export type RefundEvent = components['schemas']['RefundEvent'];
export type PaymentLinkExpiredEvent = components['schemas']['PaymentLinkExpiredEvent'];
/** `payout.created`, `payout.paid`, `payout.failed` and `payout.reconciliation_failed`. */
export type PayoutEvent = components['schemas']['PayoutEvent'];
/** Sent to one endpoint on request (POST /api/webhook-endpoints/{id}/test). */
export type PingEvent = components['schemas']['PingEvent'];
export type WebhookEvent =
  PaymentCreatedEvent | PaymentFailedEvent | RefundEvent | PaymentLinkExpiredEvent | TokenActivatedEvent | TokenCardRemovedEvent | PayoutEvent | PingEvent;
export { WebhookVerificationError };

export { eventHash };

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: HeaderBag): Record<string, string> {
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  return out;
}

/**
 * Checks both signatures and the timestamp of a webhook request and returns the event. Pass the raw
 * body exactly as received (not re-serialised JSON). Throws WebhookVerificationError when anything
 * does not match. It remembers nothing: within the 5-minute window a request sent again passes, so
 * the receiver drops a `webhook-id` it has already processed (docs/integrating.md, Webhooks).
 */
export function verifyWebhook(rawBody: string | Buffer, headers: HeaderBag, signatureKey: string): WebhookEvent {
  const record = headerRecord(headers);
  const event = new Webhook(signatureKey).verify(rawBody, record) as WebhookEvent;
  const data = event?.data as Record<string, unknown> | undefined;
  if (!data || typeof data.hash !== 'string') throw new WebhookVerificationError('Missing data.hash');
  const expected = Buffer.from(eventHash(signatureKey, data));
  const received = Buffer.from(data.hash);
  if (expected.length === received.length && timingSafeEqual(expected, received)) return event;
  // During a key rotation's overlap the request is signed with the new key and the one it replaced,
  // and data.hash (one value) with the new key: a receiver still on the old key has verified the
  // signature over the whole body, hash included, and that is what it can check.
  const signatures = (record['webhook-signature'] ?? '').split(' ').filter(Boolean);
  if (signatures.length > 1) return event;
  throw new WebhookVerificationError('data.hash does not match');
}
