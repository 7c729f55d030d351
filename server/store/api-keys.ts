// API keys are shown once and stored as SHA-256 hashes. The keys carry 256 bits of entropy, so a
// fast hash is enough (a slow KDF protects low-entropy passwords, not random keys). A key made with
// the CLI, or before permissions existed, holds every permission (`permissions` null); a restricted
// key (`rk_`) holds the list it was made with.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../domain/actors.js';
import { newId } from '../domain/ids.js';
import { PERMISSIONS, isPermission, type Permission } from '../domain/permissions.js';
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
  created_at: string | Date;
  last_used_at: string | Date | null;
  expires_at: string | Date | null;
  revoked_at: string | Date | null;
}

const KEY_COLUMNS = [
  'id',
  'public_id',
  'name',
  'key_prefix',
  'last_four',
  'permissions',
  'created_by',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
];

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
    created_at: nowIso(),
    last_used_at: null,
    expires_at: options.expiresAt ?? null,
    revoked_at: null,
  };
  const { id: _, ...columns } = row;
  await db.run(db.sql('api_keys').insert({ ...columns, business_id: businessId, key_hash: hashKey(key) }));
  return { key, prefix, record: toRecord(row) };
}

/** Who is calling with a key: its business, the key, what it may do, and the limiter's count for it. */
export interface Caller {
  business: Business;
  actor: Actor;
  permissions: ReadonlySet<Permission>;
  rateKey: string;
  /** When the key stops working (ms since the epoch), if it expires. */
  expiresAtMs?: number;
  /** The key's row, for its last use. */
  keyId?: number;
}

const FULL_ACCESS: ReadonlySet<Permission> = new Set(PERMISSIONS);

/** The caller behind a live key. The row is found by hash; the hash is then compared in constant time. */
export async function findCallerByKey(db: Executor, key: string, now = Date.now()): Promise<Caller | undefined> {
  if (!isWellFormedKey(key)) return undefined;
  const hash = hashKey(key);
  const row = await db.first<{
    id: number;
    name: string;
    key_id: number;
    key_hash: string;
    public_id: string;
    key_name: string | null;
    key_prefix: string;
    permissions: string | null;
    expires_at: string | Date | null;
  }>(
    db
      .sql('api_keys')
      .join('businesses', 'businesses.id', 'api_keys.business_id')
      .select(
        'businesses.id as id',
        'businesses.name as name',
        'api_keys.id as key_id',
        'api_keys.key_hash as key_hash',
        'api_keys.public_id as public_id',
        'api_keys.name as key_name',
        'api_keys.key_prefix as key_prefix',
        'api_keys.permissions as permissions',
        'api_keys.expires_at as expires_at',
      )
      .where('api_keys.key_hash', hash)
      .whereNull('api_keys.revoked_at'),
  );
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  const expiresAtMs = row.expires_at === null ? undefined : Date.parse(toIsoMicros(row.expires_at));
  if (expiresAtMs !== undefined && expiresAtMs <= now) return undefined;
  const keyId = Number(row.key_id);
  const permissions = parsePermissions(row.permissions);
  return {
    business: { id: Number(row.id), name: row.name },
    actor: { kind: 'api_key', id: row.public_id, name: row.key_name ?? row.key_prefix },
    permissions: permissions === null ? FULL_ACCESS : new Set(permissions),
    rateKey: `key:${keyId}`,
    expiresAtMs,
    keyId,
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
  const query = db.sql('api_keys').whereNull('revoked_at');
  if (isWellFormedKey(keyOrPrefix)) query.where('key_hash', hashKey(keyOrPrefix));
  else query.where('key_prefix', keyOrPrefix);
  return db.run(query.update({ revoked_at: nowIso() }));
}

/** The business's keys not revoked, newest first. */
export async function listBusinessKeys(db: Executor, businessId: number): Promise<ApiKeyRecord[]> {
  const rows = await db.all<KeyRow>(
    db
      .sql('api_keys')
      .select(KEY_COLUMNS)
      .where('business_id', businessId)
      .whereNull('revoked_at')
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]),
  );
  return rows.map(toRecord);
}

export async function countLiveKeys(db: Executor, businessId: number): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('api_keys').where('business_id', businessId).whereNull('revoked_at').count({ count: '*' }));
  return Number(row?.count ?? 0);
}

/** Revokes one of the business's live keys by its id; the key as it is now, or undefined. */
/** A live key of the business, by its public id. */
export async function findLiveKey(db: Executor, businessId: number, publicId: string): Promise<ApiKeyRecord | undefined> {
  const row = await db.first<KeyRow>(db.sql('api_keys').select(KEY_COLUMNS).where({ business_id: businessId, public_id: publicId }).whereNull('revoked_at'));
  return row && toRecord(row);
}

export async function revokeKeyById(db: Executor, businessId: number, publicId: string): Promise<ApiKeyRecord | undefined> {
  const revoked = await db.run(
    db.sql('api_keys').where({ business_id: businessId, public_id: publicId }).whereNull('revoked_at').update({ revoked_at: nowIso() }),
  );
  if (revoked === 0) return undefined;
  const row = await db.first<KeyRow>(db.sql('api_keys').select(KEY_COLUMNS).where({ business_id: businessId, public_id: publicId }));
  return row && toRecord(row);
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
