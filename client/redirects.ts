// Verifying the service's redirect to a merchant's redirect_url, on the merchant's server. After
// paying (or saving a card) the payer's browser arrives with the outcome in the query, which a payer
// can also type: `redirect_signature` says the service sent it. What is signed, and how, is in
// shared/redirect-signature.ts and in openapi.yaml (tag Redirects).
import { timingSafeEqual } from 'node:crypto';
import { REDIRECT_PARAMS, REDIRECT_SIGNATURE_PARAM, redirectSignature, redirectSigningText, type RedirectKind } from '../shared/redirect-signature.js';

export { REDIRECT_SIGNATURE_PARAM };

export class RedirectVerificationError extends Error {
  override name = 'RedirectVerificationError';
}

/** A payment's outcome: 1 paid, 2 pending (not paid yet: wait for payment.created), 3 failed. */
export interface PaymentRedirect {
  kind: 'payment';
  payment_id: string;
  payment_link_id: string;
  payment_status: 1 | 2 | 3;
}

/** A card saved on a token. */
export interface TokenRedirect {
  kind: 'token';
  token_id: string;
  token_status: 'active';
}

export type VerifiedRedirect = PaymentRedirect | TokenRedirect;

/** The redirect as it reached your page: its URL (absolute, or a path with its query), its query string, or parsed query parameters. */
export type RedirectQuery = URL | URLSearchParams | string | Readonly<Record<string, string | readonly string[] | undefined>>;

function parametersOf(query: RedirectQuery): URLSearchParams {
  if (query instanceof URLSearchParams) return query;
  if (query instanceof URL) return query.searchParams;
  if (typeof query === 'string') {
    if (query.includes('://')) return new URL(query).searchParams;
    if (query.startsWith('/')) return new URL(query, 'http://localhost').searchParams;
    return new URLSearchParams(query);
  }
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) params.append(name, one);
  }
  return params;
}

const HEX_SIGNATURE = /^[0-9a-f]{64}$/;
/** At most the new key's and the old one's during a rotation, and room to spare. */
const MOST_SIGNATURES = 4;

/** The one value of a parameter; a parameter given twice is refused (which one would a reader take?). */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new RedirectVerificationError(`${name} is given more than once`);
  return values[0];
}

function equalInConstantTime(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks `redirect_signature` with the business's redirect signing key (`keys`: during a rotation,
 * the new key and the old one, in any order) and returns the redirect's parameters. Throws
 * RedirectVerificationError when the signature is missing, malformed or does not match, or when a
 * signed parameter is missing or given twice. The signature carries no time: check that the ids are
 * the ones you expect, and treat payment_status 2 as not paid yet.
 */
export function verifyRedirect(query: RedirectQuery, keys: string | readonly string[]): VerifiedRedirect {
  const keyList = typeof keys === 'string' ? [keys] : [...keys];
  if (keyList.length === 0 || keyList.some((key) => typeof key !== 'string' || key.length === 0))
    throw new TypeError('verifyRedirect needs the redirect signing key');
  const params = parametersOf(query);
  const kind: RedirectKind = params.has('payment_id') ? 'payment' : 'token';
  const values: Record<string, string | undefined> = {};
  for (const name of REDIRECT_PARAMS[kind]) values[name] = single(params, name);
  const text = redirectSigningText(kind, values);
  if (text === undefined) throw new RedirectVerificationError(`the redirect does not carry ${REDIRECT_PARAMS[kind].join(', ')} as the service sends them`);
  const given = single(params, REDIRECT_SIGNATURE_PARAM);
  if (given === undefined) throw new RedirectVerificationError(`the redirect carries no ${REDIRECT_SIGNATURE_PARAM}`);
  const signatures = given.split(',');
  if (signatures.length > MOST_SIGNATURES || !signatures.every((signature) => HEX_SIGNATURE.test(signature))) {
    throw new RedirectVerificationError(`${REDIRECT_SIGNATURE_PARAM} is not lowercase hex HMAC-SHA256 signatures`);
  }
  const expected = keyList.map((key) => redirectSignature(key, text));
  // Every pair is compared, so the time taken says nothing of which (if any) matched.
  let matched = false;
  for (const signature of signatures) for (const mine of expected) matched = equalInConstantTime(signature, mine) || matched;
  if (!matched) throw new RedirectVerificationError(`${REDIRECT_SIGNATURE_PARAM} does not match`);
  if (kind === 'token') {
    if (values.token_status !== 'active') throw new RedirectVerificationError(`token_status ${values.token_status} is not one the service sends`);
    return { kind, token_id: values.token_id!, token_status: 'active' };
  }
  const status = Number(values.payment_status);
  if (status !== 1 && status !== 2 && status !== 3) throw new RedirectVerificationError(`payment_status ${values.payment_status} is not one the service sends`);
  return { kind, payment_id: values.payment_id!, payment_link_id: values.payment_link_id!, payment_status: status };
}
