// The signature on a payer's redirect to the merchant's redirect_url (shared/redirect-signature.ts):
// without it a payer could type `payment_status=1` into the merchant's return address. Each business
// has its own key, which it reads through the API (GET /api/redirect-signing-key) and rotates with a
// day's overlap, during which redirects carry the signatures of both keys. The key is made when first
// needed: read, rotated, or a redirect to sign.
import { randomBytes } from 'node:crypto';
import { REDIRECT_SIGNATURE_PARAM, redirectSignature, redirectSigningText, type RedirectKind } from '../../../shared/redirect-signature.js';
import { findRedirectSigningKeys, insertRedirectSigningKey, rotateRedirectSigningKey, type RedirectSigningKeys } from '../../store/redirect-signing-keys.js';
import type { UseCaseContext } from '../platform/context.js';

export type { RedirectSigningKeys };

/** How long a rotated-out key keeps signing beside the new one, as for webhook keys. */
export const REDIRECT_KEY_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** `rsec_` and 32 random bytes in base64url: used as written (its UTF-8 bytes) as the HMAC key. */
export function newRedirectSigningKey(): string {
  return `rsec_${randomBytes(32).toString('base64url')}`;
}

/** The business's keys, made now if it has none. */
export async function redirectSigningKeys(ctx: UseCaseContext, businessId: number): Promise<RedirectSigningKeys> {
  const found = await findRedirectSigningKeys(ctx.db, businessId, ctx.secretsKey);
  if (found) return found;
  // Two first uses at once each offer a key; the one stored first is the key, and both read it back.
  await insertRedirectSigningKey(ctx.db, businessId, newRedirectSigningKey(), ctx.secretsKey);
  return (await findRedirectSigningKeys(ctx.db, businessId, ctx.secretsKey))!;
}

export async function rotateRedirectKey(ctx: UseCaseContext, businessId: number, now = new Date()): Promise<RedirectSigningKeys> {
  await rotateRedirectSigningKey(ctx.db, businessId, newRedirectSigningKey(), ctx.secretsKey, new Date(now.getTime() + REDIRECT_KEY_OVERLAP_MS));
  return (await findRedirectSigningKeys(ctx.db, businessId, ctx.secretsKey))!;
}

/**
 * The redirect's parameters with their signature added (`redirect_signature`: the current key's, then
 * during an overlap the previous key's, comma-separated).
 */
export async function signedRedirectParams<P extends Record<string, string>>(
  ctx: UseCaseContext,
  businessId: number,
  kind: RedirectKind,
  params: P,
): Promise<P & { [REDIRECT_SIGNATURE_PARAM]: string }> {
  const text = redirectSigningText(kind, params);
  if (text === undefined) throw new Error(`a ${kind} redirect's parameters are not what the service sends: ${Object.keys(params).join(', ')}`);
  const keys = await redirectSigningKeys(ctx, businessId);
  const signatures = [keys.key, ...(keys.previousKey ? [keys.previousKey] : [])].map((key) => redirectSignature(key, text));
  return { ...params, [REDIRECT_SIGNATURE_PARAM]: signatures.join(',') };
}
