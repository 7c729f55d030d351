// API keys are shown once and stored as SHA-256 hashes. The keys carry 256 bits of entropy, so a
// fast hash is enough (a slow KDF protects low-entropy passwords, not random keys). A key made with
// the CLI, or before permissions existed, holds every permission (`permissions` null); a restricted
// key (`rk_`) holds the list it was made with. A key bound to a member (`created_by_user_id`) holds,
// at each lookup, only what both its list and the member's current role hold, and nothing while the
// two-factor rule it is under is not met; a member no longer in the business has no live key there.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Actor, KeyHolder } from '../domain/actors.js';
import { newId } from '../domain/ids.js';
import { PERMISSIONS, isPermission, permissionsOf, type Permission, type Role } from '../domain/permissions.js';
import type { Business } from './businesses.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';

const KEY_PATTERN = /^[sr]k_[A-Za-z0-9_-]{43}$/;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** A key as the API shows it: never the secret nor its hash. */
export interface ApiKeyRecord {
  _id: string;
  name: string | null;
  prefix: string;
  last_four: string | null;
  /** Null: every permission. */
  permissions: Permission[] | null;
  created_by: string | null;
  created_by_user_id: string | null;
  parent_key_id: string | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface NewKey {
  name?: string | null;
  /** A restricted key's permissions; null or absent: every permission. */
  permissions?: readonly Permission[] | null;
  expiresAt?: string | null;
  /** Who made it, as the audit log names them; `cli` for the operator's command line. */
  createdBy?: string | null;
  /** The member the key is bound to; null for the operator's. */
  createdByUserId?: string | null;
  /** The key that made it: its row id and public id. */
  parent?: { rowId: number; publicId: string } | null;
  /** Holds nothing while its maker lacks two-factor (the business required it when the key was made). */
  makerTwoFactorRequired?: boolean;
}

export interface IssuedKey {
  key: string;
  prefix: string;
  record: ApiKeyRecord;
}

interface KeyRow {
  id: number;
  public_id: string;
  name: string | null;
  key_prefix: string;
  last_four: string | null;
  permissions: string | null;
  created_by: string | null;
  created_by_user_id: string | null;
  parent_public_id: string | null;
  created_at: string | Date;
  last_used_at: string | Date | null;
  expires_at: string | Date | null;
  revoked_at: string | Date | null;
}

const KEY_COLUMNS = [
  'api_keys.id',
  'api_keys.public_id',
  'api_keys.name',
  'api_keys.key_prefix',
  'api_keys.last_four',
  'api_keys.permissions',
  'api_keys.created_by',
  'api_keys.created_by_user_id',
  'parent.public_id as parent_public_id',
  'api_keys.created_at',
  'api_keys.last_used_at',
  'api_keys.expires_at',
  'api_keys.revoked_at',
];

/** The keys with the public id of the key that made each. */
function keysWithParents(db: Executor) {
  return db.sql('api_keys').leftJoin('api_keys as parent', 'parent.id', 'api_keys.parent_key_id').select(KEY_COLUMNS);
}

/** Stored as a JSON list; a name no longer known (a permission since removed) grants nothing. */
function parsePermissions(text: string | null): Permission[] | null {
  if (text === null) return null;
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed.filter(isPermission) : [];
}

function toRecord(row: KeyRow): ApiKeyRecord {
  const time = (value: string | Date | null) => (value === null ? null : toIsoMicros(value));
  return {
    _id: row.public_id,
    name: row.name,
    prefix: row.key_prefix,
    last_four: row.last_four,
    permissions: parsePermissions(row.permissions),
    created_by: row.created_by,
    created_by_user_id: row.created_by_user_id,
    parent_key_id: row.parent_public_id,
    created_at: toIsoMicros(row.created_at),
    last_used_at: time(row.last_used_at),
    expires_at: time(row.expires_at),
    revoked_at: time(row.revoked_at),
  };
}

export async function issueKey(db: Executor, businessId: number, options: NewKey = {}): Promise<IssuedKey> {
  const restricted = options.permissions !== undefined && options.permissions !== null;
  const key = `${restricted ? 'rk' : 'sk'}_${randomBytes(32).toString('base64url')}`;
  const prefix = key.slice(0, 10);
  const row: KeyRow = {
    id: 0,
    public_id: newId(),
    name: options.name ?? null,
    key_prefix: prefix,
    last_four: key.slice(-4),
    permissions: restricted ? JSON.stringify(PERMISSIONS.filter((permission) => options.permissions!.includes(permission))) : null,
    created_by: options.createdBy ?? null,
    created_by_user_id: options.createdByUserId ?? null,
    parent_public_id: options.parent?.publicId ?? null,
    created_at: nowIso(),
    last_used_at: null,
    expires_at: options.expiresAt ?? null,
    revoked_at: null,
  };
  const { id: _, parent_public_id: __, ...columns } = row;
  await db.run(
    db.sql('api_keys').insert({
      ...columns,
      parent_key_id: options.parent?.rowId ?? null,
      maker_two_factor_required: options.makerTwoFactorRequired ?? false,
      business_id: businessId,
      key_hash: hashKey(key),
    }),
  );
  return { key, prefix, record: toRecord(row) };
}

/** Who is calling with a key: its business, the key, what it may do, and the limiter's count for it. */
export interface Caller {
  business: Business;
  actor: Actor;
  permissions: ReadonlySet<Permission>;
  rateKey: string;
  key: KeyHolder;
}

const FULL_ACCESS: ReadonlySet<Permission> = new Set(PERMISSIONS);
const NOTHING: ReadonlySet<Permission> = new Set();

interface BoundKeyRow {
  permissions: string | null;
  created_by_user_id: string | null;
  maker_two_factor_required: boolean | number;
  maker_role: Role | null;
  maker_totp_enabled_at: unknown;
  require_two_factor: boolean | number;
}

/**
 * What a key may do now: its own list (every permission for a full key), cut to what its maker's role
 * holds where it is bound to a member, and nothing while the two-factor rule it is under (its own, or
 * the business's now) is not met by the maker. Undefined: the maker is no longer a member.
 */
export function keyPermissions(row: BoundKeyRow): ReadonlySet<Permission> | undefined {
  const own = parsePermissions(row.permissions);
  if (row.created_by_user_id === null) return own === null ? FULL_ACCESS : new Set(own);
  if (row.maker_role === null) return undefined;
  const twoFactorRequired = Boolean(row.maker_two_factor_required) || Boolean(row.require_two_factor);
  if (twoFactorRequired && (row.maker_totp_enabled_at === null || row.maker_totp_enabled_at === undefined)) return NOTHING;
  const role = permissionsOf(row.maker_role);
  return new Set((own ?? PERMISSIONS).filter((permission) => role.has(permission)));
}

/** The caller behind a live key. The row is found by hash; the hash is then compared in constant time. */
export async function findCallerByKey(db: Executor, key: string, now = Date.now()): Promise<Caller | undefined> {
  if (!isWellFormedKey(key)) return undefined;
  const hash = hashKey(key);
  const row = await db.first<
    BoundKeyRow & {
      id: number;
      name: string;
      key_id: number;
      key_hash: string;
      public_id: string;
      key_name: string | null;
      key_prefix: string;
      expires_at: string | Date | null;
    }
  >(
    db
      .sql('api_keys')
      .join('businesses', 'businesses.id', 'api_keys.business_id')
      .leftJoin('memberships', function () {
        this.on('memberships.business_id', '=', 'api_keys.business_id').andOn('memberships.user_id', '=', 'api_keys.created_by_user_id');
      })
      .leftJoin('users', 'users._id', 'api_keys.created_by_user_id')
      .select(
        'businesses.id as id',
        'businesses.name as name',
        'businesses.require_two_factor as require_two_factor',
        'api_keys.id as key_id',
        'api_keys.key_hash as key_hash',
        'api_keys.public_id as public_id',
        'api_keys.name as key_name',
        'api_keys.key_prefix as key_prefix',
        'api_keys.permissions as permissions',
        'api_keys.expires_at as expires_at',
        'api_keys.created_by_user_id as created_by_user_id',
        'api_keys.maker_two_factor_required as maker_two_factor_required',
        'memberships.role as maker_role',
        'users.totp_enabled_at as maker_totp_enabled_at',
      )
      .where('api_keys.key_hash', hash)
      .whereNull('api_keys.revoked_at'),
  );
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  const expiresAtMs = row.expires_at === null ? undefined : Date.parse(toIsoMicros(row.expires_at));
  if (expiresAtMs !== undefined && expiresAtMs <= now) return undefined;
  const permissions = keyPermissions(row);
  if (!permissions) return undefined;
  const rowId = Number(row.key_id);
  return {
    business: { id: Number(row.id), name: row.name },
    actor: { kind: 'api_key', id: row.public_id, name: row.key_name ?? row.key_prefix },
    permissions,
    rateKey: `key:${rowId}`,
    key: { rowId, expiresAtMs, madeByUserId: row.created_by_user_id, twoFactorRule: Boolean(row.maker_two_factor_required) },
  };
}

/** Notes a key's use, unless one was noted within `sinceMs`: several instances write it at most once a span each. */
export async function markKeyUsed(db: Executor, keyId: number, sinceMs: number, now = new Date()): Promise<void> {
  const earlier = new Date(now.getTime() - sinceMs).toISOString();
  await db.run(
    db
      .sql('api_keys')
      .where('id', keyId)
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', earlier))
      .update({ last_used_at: now.toISOString() }),
  );
}

/** Revokes by full key or by the prefix shown at creation; returns how many keys were revoked. */
export async function revokeKey(db: Executor, keyOrPrefix: string): Promise<number> {
  const query = db.sql('api_keys').select('id').whereNull('revoked_at');
  if (isWellFormedKey(keyOrPrefix)) query.where('key_hash', hashKey(keyOrPrefix));
  else query.where('key_prefix', keyOrPrefix);
  const keys = await db.all<{ id: number }>(query);
  return (
    await revokeWithDescendants(
      db,
      keys.map((key) => Number(key.id)),
    )
  ).length;
}

/** The business's keys not revoked, newest first. */
export async function listBusinessKeys(db: Executor, businessId: number): Promise<ApiKeyRecord[]> {
  const rows = await db.all<KeyRow>(
    keysWithParents(db)
      .where('api_keys.business_id', businessId)
      .whereNull('api_keys.revoked_at')
      .orderBy([
        { column: 'api_keys.created_at', order: 'desc' },
        { column: 'api_keys.id', order: 'desc' },
      ]),
  );
  return rows.map(toRecord);
}

export async function countLiveKeys(db: Executor, businessId: number): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('api_keys').where('business_id', businessId).whereNull('revoked_at').count({ count: '*' }));
  return Number(row?.count ?? 0);
}

/** A live key of the business, by its public id. */
export async function findLiveKey(db: Executor, businessId: number, publicId: string): Promise<ApiKeyRecord | undefined> {
  const row = await db.first<KeyRow>(
    keysWithParents(db).where({ 'api_keys.business_id': businessId, 'api_keys.public_id': publicId }).whereNull('api_keys.revoked_at'),
  );
  return row && toRecord(row);
}

/**
 * Revokes the live keys with these row ids and every live key they made, down the line (a key cannot
 * outlive its parent); the public ids of the keys revoked, parents first.
 */
async function revokeWithDescendants(db: Executor, rowIds: number[]): Promise<string[]> {
  const revoked: string[] = [];
  const now = nowIso();
  for (let generation = rowIds; generation.length > 0;) {
    const live = await db.all<{ id: number; public_id: string }>(
      db.sql('api_keys').select('id', 'public_id').whereIn('id', generation).whereNull('revoked_at'),
    );
    if (live.length === 0) break;
    await db.run(
      db
        .sql('api_keys')
        .whereIn(
          'id',
          live.map((key) => key.id),
        )
        .update({ revoked_at: now }),
    );
    revoked.push(...live.map((key) => key.public_id));
    generation = (
      await db.all<{ id: number }>(
        db
          .sql('api_keys')
          .select('id')
          .whereIn(
            'parent_key_id',
            live.map((key) => key.id),
          )
          .whereNull('revoked_at'),
      )
    ).map((key) => Number(key.id));
  }
  return revoked;
}

/** Revokes one of the business's live keys by its id, with the keys it made; the key as it is now (undefined if none was live) and every key revoked. */
export async function revokeKeyById(db: Executor, businessId: number, publicId: string): Promise<{ record: ApiKeyRecord; revokedIds: string[] } | undefined> {
  const key = await db.first<{ id: number }>(db.sql('api_keys').select('id').where({ business_id: businessId, public_id: publicId }).whereNull('revoked_at'));
  if (!key) return undefined;
  const revokedIds = await revokeWithDescendants(db, [Number(key.id)]);
  const row = await db.first<KeyRow>(keysWithParents(db).where({ 'api_keys.business_id': businessId, 'api_keys.public_id': publicId }));
  return row && { record: toRecord(row), revokedIds };
}

/** Revokes every live key of the business bound to the member (and the keys those made); their public ids. */
export async function revokeKeysOfMember(db: Executor, businessId: number, userId: string): Promise<string[]> {
  const keys = await db.all<{ id: number }>(
    db.sql('api_keys').select('id').where({ business_id: businessId, created_by_user_id: userId }).whereNull('revoked_at'),
  );
  return revokeWithDescendants(
    db,
    keys.map((key) => Number(key.id)),
  );
}

export interface KeySummary {
  prefix: string;
  business: string;
  name: string | null;
  restricted: boolean;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export async function listKeys(db: Executor): Promise<KeySummary[]> {
  const rows = await db.all<KeySummary & { permissions: string | null }>(
    db
      .sql('api_keys')
      .join('businesses', 'businesses.id', 'api_keys.business_id')
      .select(
        'api_keys.key_prefix as prefix',
        'businesses.name as business',
        'api_keys.name as name',
        'api_keys.permissions as permissions',
        'api_keys.created_at',
        'api_keys.expires_at',
        'api_keys.revoked_at',
      )
      .orderBy('api_keys.id'),
  );
  return rows.map(({ permissions, ...row }) => ({ ...row, restricted: permissions !== null }));
}
