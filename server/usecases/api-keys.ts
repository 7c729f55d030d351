// A business's own API keys: made, listed and revoked through the API. A key hands on no power its
// maker lacks: a caller without some permission makes restricted keys only, within its own, and
// revokes only keys within its own (else a restricted key could cut off the owner's full key).
import { actorLabel, type Actor } from '../domain/actors.js';
import { PERMISSIONS, type Permission } from '../domain/permissions.js';
import type { FieldErrors } from '../domain/rules.js';
import * as store from '../store/api-keys.js';
import type { UseCaseContext } from './context.js';

export type { ApiKeyRecord } from '../store/api-keys.js';

export const MAX_LIVE_KEYS_PER_BUSINESS = 100;

export interface KeyRequest {
  name: string;
  permissions: readonly Permission[] | null;
  expiresAt: string | null;
}

export interface KeyMaker {
  actor: Actor;
  permissions: ReadonlySet<Permission>;
}

export type KeyCreation = { outcome: 'created'; key: string; record: store.ApiKeyRecord } | { outcome: 'invalid'; errors: FieldErrors } | { outcome: 'full' };

/** What the maker would hand on beyond its own permissions, by the rule above. */
export function powerProblems(maker: KeyMaker, requested: readonly Permission[] | null): FieldErrors {
  const wanted = requested ?? PERMISSIONS;
  const lacking = wanted.filter((permission) => !maker.permissions.has(permission));
  if (lacking.length === 0) return {};
  if (requested === null)
    return { permissions: ['The permissions field is required when this key or role lacks some permissions: a key it makes must be restricted to its own.'] };
  return { permissions: [`The permissions may not include a permission this key or role lacks: ${lacking.join(', ')}.`] };
}

export async function createApiKey(ctx: UseCaseContext, businessId: number, maker: KeyMaker, request: KeyRequest): Promise<KeyCreation> {
  const errors = powerProblems(maker, request.permissions);
  if (Object.keys(errors).length > 0) return { outcome: 'invalid', errors };
  return ctx.db.transaction(async (tx) => {
    if ((await store.countLiveKeys(tx, businessId)) >= MAX_LIVE_KEYS_PER_BUSINESS) return { outcome: 'full' as const };
    const issued = await store.issueKey(tx, businessId, {
      name: request.name,
      permissions: request.permissions,
      expiresAt: request.expiresAt,
      createdBy: actorLabel(maker.actor),
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

export async function revokeApiKey(ctx: UseCaseContext, businessId: number, revoker: Pick<KeyMaker, 'permissions'>, id: string): Promise<KeyRevocation> {
  if (!KEY_ID.test(id)) return { outcome: 'not_found' };
  return ctx.db.transaction(async (db) => {
    const key = await store.findLiveKey(db, businessId, id);
    if (!key) return { outcome: 'not_found' };
    const lacking = (key.permissions ?? PERMISSIONS).filter((permission) => !revoker.permissions.has(permission));
    if (lacking.length > 0) return { outcome: 'too_powerful', lacking };
    const record = await store.revokeKeyById(db, businessId, id);
    return record ? { outcome: 'revoked', record } : { outcome: 'not_found' };
  });
}
