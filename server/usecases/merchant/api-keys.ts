// A business's own API keys: made, listed and revoked through the API. A key hands on no power its
// maker lacks: a caller without some permission makes restricted keys only, within its own, and
// revokes only keys within its own (else a restricted key could cut off the owner's full key). Full
// keys are an owner's alone (and the operator's CLI's). Every key is bound to the person behind it:
// the member who made it, or who made the key that made it (store/api-keys.ts cuts what it may do to
// that member's role at each use); a key made by a key expires with it at the latest, and is revoked
// with it.
import { actorLabel, type Actor, type KeyHolder, type SignedIn } from '../../domain/actors.js';
import { PERMISSIONS, type Permission } from '../../domain/permissions.js';
import type { FieldErrors } from '../../domain/rules.js';
import * as store from '../../store/api-keys.js';
import { membershipIn, requiresTwoFactor } from '../../store/users.js';
import type { UseCaseContext } from '../platform/context.js';

export type { ApiKeyRecord } from '../../store/api-keys.js';

export const MAX_LIVE_KEYS_PER_BUSINESS = 100;

export interface KeyRequest {
  name: string;
  permissions: readonly Permission[] | null;
  expiresAt: string | null;
}

export interface KeyMaker {
  actor: Actor;
  permissions: ReadonlySet<Permission>;
  /** The member's session, when a member makes it. */
  signedIn?: SignedIn;
  /** The key, when a key makes it. */
  key?: KeyHolder;
}

export type KeyCreation = { outcome: 'created'; key: string; record: store.ApiKeyRecord } | { outcome: 'invalid'; errors: FieldErrors } | { outcome: 'full' };

const OWNERS_ONLY = 'The permissions field is required: only an owner, signed in, makes a full key. List the permissions this key needs.';

/** What the maker would hand on beyond its own permissions, by the rules above. */
export function powerProblems(maker: KeyMaker, requested: readonly Permission[] | null, makerIsOwner: boolean): FieldErrors {
  if (requested === null && !makerIsOwner) return { permissions: [OWNERS_ONLY] };
  const lacking = (requested ?? PERMISSIONS).filter((permission) => !maker.permissions.has(permission));
  if (lacking.length === 0) return {};
  if (requested === null)
    return { permissions: ['The permissions field is required when this key or role lacks some permissions: a key it makes must be restricted to its own.'] };
  return { permissions: [`The permissions may not include a permission this key or role lacks: ${lacking.join(', ')}.`] };
}

/** A child key's expiry: its parent's when it asks for none, refused when it asks for a later one. */
function expiryWithin(maker: KeyMaker, requested: string | null): { expiresAt: string | null } | { errors: FieldErrors } {
  const parentMs = maker.key?.expiresAtMs;
  if (parentMs === undefined) return { expiresAt: requested };
  if (requested === null) return { expiresAt: new Date(parentMs).toISOString() };
  if (Date.parse(requested) > parentMs)
    return {
      errors: { expires_at: [`The expires at must be a date before or equal to ${new Date(parentMs).toISOString()}, when the key making it expires.`] },
    };
  return { expiresAt: requested };
}

export async function createApiKey(ctx: UseCaseContext, businessId: number, maker: KeyMaker, request: KeyRequest): Promise<KeyCreation> {
  return ctx.db.transaction(async (tx) => {
    const role = maker.signedIn ? (await membershipIn(tx, maker.signedIn.userId, businessId))?.role : undefined;
    const expiry = expiryWithin(maker, request.expiresAt);
    const errors = { ...powerProblems(maker, request.permissions, role === 'owner'), ...('errors' in expiry ? expiry.errors : {}) };
    if (Object.keys(errors).length > 0 || 'errors' in expiry) return { outcome: 'invalid' as const, errors };
    if ((await store.countLiveKeys(tx, businessId)) >= MAX_LIVE_KEYS_PER_BUSINESS) return { outcome: 'full' as const };
    const issued = await store.issueKey(tx, businessId, {
      name: request.name,
      permissions: request.permissions,
      expiresAt: expiry.expiresAt,
      createdBy: actorLabel(maker.actor),
      createdByUserId: maker.signedIn?.userId ?? maker.key?.madeByUserId ?? null,
      parent: maker.key ? { rowId: maker.key.rowId, publicId: maker.actor.kind === 'api_key' ? maker.actor.id : '' } : null,
      // The rule the key is made under stays with it, even if the business stops requiring two-factor.
      makerTwoFactorRequired: maker.key ? maker.key.twoFactorRule : maker.signedIn ? await requiresTwoFactor(tx, businessId) : false,
    });
    return { outcome: 'created' as const, key: issued.key, record: issued.record };
  });
}

export function listApiKeys(ctx: UseCaseContext, businessId: number): Promise<store.ApiKeyRecord[]> {
  return store.listBusinessKeys(ctx.db, businessId);
}

const KEY_ID = /^[0-9a-f]{24}$/;

export type KeyRevocation =
  | { outcome: 'revoked'; record: store.ApiKeyRecord }
  | { outcome: 'not_found' }
  /** The key holds permissions the revoker lacks, in PERMISSIONS order. */
  | { outcome: 'too_powerful'; lacking: Permission[] };

/** Revokes the key and every key it made; once committed, no instance honours any of them. */
export async function revokeApiKey(ctx: UseCaseContext, businessId: number, revoker: Pick<KeyMaker, 'permissions'>, id: string): Promise<KeyRevocation> {
  if (!KEY_ID.test(id)) return { outcome: 'not_found' };
  const revocation = await ctx.db.transaction(async (db): Promise<KeyRevocation> => {
    const key = await store.findLiveKey(db, businessId, id);
    if (!key) return { outcome: 'not_found' };
    const lacking = (key.permissions ?? PERMISSIONS).filter((permission) => !revoker.permissions.has(permission));
    if (lacking.length > 0) return { outcome: 'too_powerful', lacking };
    const revoked = await store.revokeKeyById(db, businessId, id);
    if (!revoked) return { outcome: 'not_found' };
    ctx.audit?.note({ revoked_api_key_ids: revoked.revokedIds });
    return { outcome: 'revoked', record: revoked.record };
  });
  if (revocation.outcome === 'revoked') ctx.apiKeys?.changed();
  return revocation;
}
