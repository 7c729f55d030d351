// A receiver of Swipe's payment webhooks, written from Swipe's own public material and nothing of
// ours, so that "a Swipe receiver accepts it" is a check the service can fail:
//  - the payload, from Swipe's webhook page (https://dev-api.swipego.io/docs/1.0/webhook/webhook):
//    `{trigger_at, event, data}`, `data` holding the payment.created fields below, in that order,
//    `payment_time` as `d-m-Y h:i:s a` (Malaysia time), `payment_amount` a positive integer;
//  - the hash, from the check Swipe's own integrations run on it (swipe-engineer/swipe-for-woocommerce,
//    libraries/swipego/includes/abstracts/abstract-swipego-client.php, `verify_hash`; the GiveWP and
//    Gravity Forms plugins carry the same code): take `hash` out of `data`, join every other value in
//    the order received with nothing between them (PHP's `implode('', array_values($data))`), put the
//    signature key in front, and HMAC-SHA256 that with the signature key, as lowercase hex.
// The page's own "How To Generate Signature" section was not in reach; the plugins' code is Swipe's word
// on it. Those plugins treat `payment.failed` like `payment.created` (same data, `payment_status` 3),
// so this receiver reads both. It answers what it could not read, so a test can say why.
import { createHmac } from 'node:crypto';

/** Swipe's payment.created data fields, in the order Swipe lists them. */
export const SWIPE_PAYMENT_FIELDS = [
  'attempt_id',
  'charge_amount',
  'payment_id',
  'payment_time',
  'payment_amount',
  'payment_status',
  'payment_link_id',
  'payment_link_reference',
  'payment_link_reference_2',
  'payment_message',
  'payment_reference_model',
  'payment_reference_id',
  'payment_currency',
  'payment_method',
  'payment_provider',
] as const;

/** The fields Swipe's plugins refuse a webhook without (PHP `isset`: present and not null). */
export const SWIPE_PLUGIN_REQUIRED = [
  'attempt_id',
  'payment_id',
  'payment_time',
  'payment_amount',
  'payment_status',
  'payment_link_id',
  'payment_link_reference',
  'payment_link_reference_2',
  'payment_message',
  'payment_currency',
  'hash',
] as const;

export interface SwipePayment {
  event: 'payment.created' | 'payment.failed';
  paymentId: string;
  /** Parsed from `d-m-Y h:i:s a` (Malaysia time) into an instant. */
  paidAt: Date;
  /** `payment_amount`, the payer's amount as a positive integer (cents). */
  amount: number;
  chargeAmount: number;
  status: number;
  currency: string;
  message: string;
}

/**
 * A decoded JSON value as PHP's string conversion writes it, which is what `implode` does to each:
 * null and false are empty, true is `1`, an array (a JSON object or list) is `Array`.
 */
function phpString(value: unknown): string {
  if (value === null || value === false) return '';
  if (value === true) return '1';
  if (typeof value === 'object') return 'Array';
  return String(value);
}

/** The hash a Swipe receiver expects for `data` (its `hash` member, wherever it is, left out). */
export function swipeHash(signatureKey: string, data: Record<string, unknown>): string {
  const joined = Object.entries(data)
    .filter(([name]) => name !== 'hash')
    .map(([, value]) => phpString(value))
    .join('');
  return createHmac('sha256', signatureKey)
    .update(signatureKey + joined, 'utf8')
    .digest('hex');
}

/** `02-12-2021 12:08:50 pm` in Malaysia time (UTC+8) to an instant; undefined if it is not that format. */
export function parseSwipeTime(text: unknown): Date | undefined {
  const match = typeof text === 'string' ? /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2}) (am|pm)$/.exec(text) : null;
  if (!match) return undefined;
  const [, day, month, year, hour12, minute, second, half] = match;
  if (Number(hour12) < 1 || Number(hour12) > 12) return undefined;
  const hour = (Number(hour12) % 12) + (half === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), hour - 8, Number(minute), Number(second)));
}

const isInteger = (value: unknown, least: number) => typeof value === 'number' && Number.isInteger(value) && value >= least;

/** Reads a webhook's raw body as a Swipe receiver would; `signatureKey` is the key the hash is checked with. */
export function receiveSwipePayment(rawBody: string, signatureKey: string): { ok: true; payment: SwipePayment } | { ok: false; problems: string[] } {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { ok: false, problems: ['the body is not JSON'] };
  }
  const problems: string[] = [];
  const envelope = body as { trigger_at?: unknown; event?: unknown; data?: unknown };
  if (typeof envelope?.trigger_at !== 'string') problems.push('trigger_at is missing');
  const event = envelope?.event;
  if (event !== 'payment.created' && event !== 'payment.failed') problems.push(`event is ${String(event)}, not payment.created or payment.failed`);
  const data = (typeof envelope?.data === 'object' && envelope.data !== null ? envelope.data : {}) as Record<string, unknown>;

  const names = Object.keys(data).filter((name) => (SWIPE_PAYMENT_FIELDS as readonly string[]).includes(name));
  for (const field of SWIPE_PAYMENT_FIELDS) if (!(field in data)) problems.push(`data.${field} is missing`);
  if (names.join() !== SWIPE_PAYMENT_FIELDS.filter((field) => field in data).join()) problems.push(`data fields are not in Swipe's order: ${names.join(', ')}`);

  if (!isInteger(data.payment_amount, 1)) problems.push('data.payment_amount is not a positive integer');
  const paid = event === 'payment.created';
  if (!isInteger(data.charge_amount, paid ? 1 : 0)) problems.push(`data.charge_amount is not ${paid ? 'a positive' : 'a non-negative'} integer`);
  if (data.payment_status !== (paid ? 1 : 3)) problems.push(`data.payment_status is ${String(data.payment_status)}, not ${paid ? 1 : 3} for ${String(event)}`);
  const paidAt = parseSwipeTime(data.payment_time);
  if (!paidAt) problems.push(`data.payment_time ${JSON.stringify(data.payment_time)} is not d-m-Y h:i:s a`);
  for (const field of ['attempt_id', 'payment_id', 'payment_message', 'payment_currency', 'payment_method', 'payment_provider'] as const) {
    if (typeof data[field] !== 'string' || data[field] === '') problems.push(`data.${field} is not text`);
  }
  if (typeof data.hash !== 'string' || data.hash !== swipeHash(signatureKey, data)) problems.push('data.hash does not match');
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    payment: {
      event: event as SwipePayment['event'],
      paymentId: data.payment_id as string,
      paidAt: paidAt!,
      amount: data.payment_amount as number,
      chargeAmount: data.charge_amount as number,
      status: data.payment_status as number,
      currency: data.payment_currency as string,
      message: data.payment_message as string,
    },
  };
}
