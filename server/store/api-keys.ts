// API keys are shown once and stored as SHA-256 hashes. The keys carry 256 bits of entropy, so a
// fast hash is enough (a slow KDF protects low-entropy passwords, not random keys).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../domain/actors.js';
import { PERMISSIONS, type Permission } from '../domain/permissions.js';
import type { Business } from './businesses.js';
import type { Executor } from './executor.js';
import { nowIso } from './timestamps.js';

const KEY_PATTERN = /^sk_[A-Za-z0-9_-]{43}$/;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export interface IssuedKey {
  key: string;
  prefix: string;
}

export async function issueKey(db: Executor, businessId: number): Promise<IssuedKey> {
  const key = `sk_${randomBytes(32).toString('base64url')}`;
  const prefix = key.slice(0, 10);
  await db.run(db.sql('api_keys').insert({ business_id: businessId, key_hash: hashKey(key), key_prefix: prefix, created_at: nowIso() }));
  return { key, prefix };
}

/** Who is calling with a key: its business, the key, what it may do, and the limiter's count for it. */
export interface Caller {
  business: Business;
  actor: Actor;
  permissions: ReadonlySet<Permission>;
  rateKey: string;
}

const FULL_ACCESS: ReadonlySet<Permission> = new Set(PERMISSIONS);

/** The caller behind a live key. The row is found by hash; the hash is then compared in constant time. */
export async function findCallerByKey(db: Executor, key: string): Promise<Caller | undefined> {
  if (!isWellFormedKey(key)) return undefined;
  const hash = hashKey(key);
  const row = await db.first<{ id: number; name: string; key_id: number; key_hash: string }>(
    db
      .sql('api_keys')
      .join('businesses', 'businesses.id', 'api_keys.business_id')
      .select('businesses.id as id', 'businesses.name as name', 'api_keys.id as key_id', 'api_keys.key_hash as key_hash')
      .where('api_keys.key_hash', hash)
      .whereNull('api_keys.revoked_at'),
  );
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  const keyId = Number(row.key_id);
  return {
    business: { id: Number(row.id), name: row.name },
    actor: { kind: 'api_key', id: String(keyId), name: `key ${keyId}` },
    permissions: FULL_ACCESS,
    rateKey: `key:${keyId}`,
  };
}

/** Revokes by full key or by the prefix shown at creation; returns how many keys were revoked. */
export async function revokeKey(db: Executor, keyOrPrefix: string): Promise<number> {
  const query = db.sql('api_keys').whereNull('revoked_at');
  if (isWellFormedKey(keyOrPrefix)) query.where('key_hash', hashKey(keyOrPrefix));
  else query.where('key_prefix', keyOrPrefix);
  return db.run(query.update({ revoked_at: nowIso() }));
}

export interface KeySummary {
  prefix: string;
  business: string;
  created_at: string;
  revoked_at: string | null;
}

export async function listKeys(db: Executor): Promise<KeySummary[]> {
  return db.all(
    db
      .sql('api_keys')
      .join('businesses', 'businesses.id', 'api_keys.business_id')
      .select('api_keys.key_prefix as prefix', 'businesses.name as business', 'api_keys.created_at', 'api_keys.revoked_at')
      .orderBy('api_keys.id'),
  );
}
