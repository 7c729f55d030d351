// What the payer pages sign, and the keys they sign it with: the thank-you page's parameters (so only
// the payer redirected there after paying sees the payment's details) and the card fingerprints the
// page rate limits count by. The keys derive from the service's secrets key (server/secrets/), which
// every instance serving the same payers shares, so any instance can read what another signed.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export interface PageKeys {
  /** Signs the thank-you page's query. */
  thankYou: Buffer;
  /** Keys the HMAC that stands for a card number in rate-limit buckets. */
  cardFingerprint: Buffer;
}

function derive(material: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), `payment-collection-service ${purpose}`, 32));
}

/** One key per use, from the pages' own key (the secrets key's 'page-signing' key). */
export function pageKeys(master: Buffer): PageKeys {
  return { thankYou: derive(master, 'thank-you page'), cardFingerprint: derive(master, 'card fingerprint') };
}

/** What the redirect to the thank-you page carries, all signed together. */
export interface ThankYouParams {
  payment_id: string;
  payment_link_id: string;
  payment_status: string;
}

export function signThankYou(key: Buffer, params: ThankYouParams): string {
  // Ids are hex and the status is digits: a separator that none of them can contain keeps the
  // fields apart, so no two parameter sets sign the same text.
  return createHmac('sha256', key).update(`${params.payment_id}\n${params.payment_link_id}\n${params.payment_status}`).digest('base64url');
}

export function verifyThankYou(key: Buffer, params: ThankYouParams, signature: unknown): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(signThankYou(key, params));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The return from an acquirer's page names our payment (or activation attempt): signed, so a guessed
 * or altered id shows nothing of another payment. `purpose` keeps a payment's and an attempt's apart.
 */
export function signReturn(key: Buffer, purpose: 'payment' | 'activation', id: string): string {
  return createHmac('sha256', key).update(`return ${purpose}\n${id}`).digest('base64url');
}

export function verifyReturn(key: Buffer, purpose: 'payment' | 'activation', id: string, signature: unknown): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(signReturn(key, purpose, id));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
