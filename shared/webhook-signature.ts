// The legacy `data.hash` of the seed's webhooks, computed by the service when it sends an event and
// by the client's verifyWebhook when a receiver checks one: lowercase hex HMAC-SHA256, keyed with the
// signature key, over the signature key followed by every other `data` value in order (null as empty
// text). It has no separators and no timestamp; the Standard Webhooks headers are the signature to rely on.
import { createHmac } from 'node:crypto';

export function eventHash(signatureKey: string, data: Record<string, unknown>): string {
  const values = Object.entries(data)
    .filter(([name]) => name !== 'hash')
    .map(([, value]) => (value === null || value === undefined ? '' : String(value)));
  return createHmac('sha256', signatureKey)
    .update(signatureKey + values.join(''))
    .digest('hex');
}
