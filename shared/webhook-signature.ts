// The legacy `data.hash` of the seed's webhooks, computed by the service when it sends an event and
// by the client's verifyWebhook when a receiver checks one. It is Swipe's: lowercase hex HMAC-SHA256,
// keyed with the signature key, over the signature key followed by every other `data` value in the
// order sent, joined with nothing between, each written as PHP's string conversion writes it, because
// Swipe's receivers are PHP (`implode('', array_values($data))` in its plugins' verify_hash). A Swipe
// receiver hashes whatever `data` holds, so fields of our own after Swipe's are covered the same way.
// It has no separators and no timestamp; the Standard Webhooks headers are the signature to rely on.
import { createHmac } from 'node:crypto';

/** A value as PHP writes it: null and false empty, true `1`, numbers as JSON has them, a nested value `Array`. */
function asPhpText(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value === true) return '1';
  if (typeof value === 'object') return 'Array';
  return String(value);
}

export function eventHash(signatureKey: string, data: Record<string, unknown>): string {
  const values = Object.entries(data)
    .filter(([name]) => name !== 'hash')
    .map(([, value]) => asPhpText(value));
  return createHmac('sha256', signatureKey)
    .update(signatureKey + values.join(''))
    .digest('hex');
}
