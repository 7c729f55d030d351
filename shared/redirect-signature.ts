// The signature on the payer's redirect to a merchant's redirect_url, made by the service and checked
// by the client package's verifyRedirect (or a merchant's own code, e.g. PHP's hash_hmac). The signed
// text is the redirect's own parameters, in a fixed order, written as a query string writes them:
// `payment_id=<id>&payment_link_id=<id>&payment_status=<1|2|3>` after a payment, and
// `token_id=<id>&token_status=active` after a card is saved. Every value is lowercase letters and
// digits, so nothing needs encoding and the text is what PHP's http_build_query makes of them.
// The signature is lowercase hex HMAC-SHA256 of that text, keyed with the business's redirect signing
// key as it reads (`rsec_...`, its UTF-8 bytes); during a key rotation's overlap the parameter carries
// the new key's signature and the old one's, comma-separated.
import { createHmac } from 'node:crypto';

/** The query parameter that carries the signature (not `signature`, which a merchant's own URL may hold). */
export const REDIRECT_SIGNATURE_PARAM = 'redirect_signature';

/** The parameters each redirect carries, in the order they are signed. */
export const REDIRECT_PARAMS = {
  payment: ['payment_id', 'payment_link_id', 'payment_status'],
  token: ['token_id', 'token_status'],
} as const;

export type RedirectKind = keyof typeof REDIRECT_PARAMS;

/** What may stand in a signed value: ids, statuses. Anything else is not ours. */
const VALUE = /^[0-9a-z_]{1,64}$/;

/** The text signed for a redirect of `kind`, or undefined when a parameter is missing or not of the shape the service sends. */
export function redirectSigningText(kind: RedirectKind, params: Readonly<Record<string, string | undefined>>): string | undefined {
  const parts: string[] = [];
  for (const name of REDIRECT_PARAMS[kind]) {
    const value = params[name];
    if (value === undefined || !VALUE.test(value)) return undefined;
    parts.push(`${name}=${value}`);
  }
  return parts.join('&');
}

/** Lowercase hex HMAC-SHA256 of `text` keyed with `key` as written. */
export function redirectSignature(key: string, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}
