// Each business's redirect signing key (`migrations/0027_redirect_signing_keys.ts`): sealed at rest (server/secrets/seal.ts) and
// bound to its business, so a sealed key copied to another business's row does not open there. A
// rotated-out key keeps signing beside the new one until `previous_key_expires_at`.
import { isoMicros } from '../domain/time.js';
import type { MasterKey } from '../secrets/master-key.js';
import { openSecret, sealSecret, type OpeningKeys } from '../secrets/seal.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';

const context = (businessId: number) => `redirect_signing_keys.key:${businessId}`;

export interface RedirectSigningKeys {
  /** The key in clear. */
  key: string;
  /** The key the last rotation replaced, while it still signs; null otherwise. */
  previousKey: string | null;
  previousKeyExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  key: string;
  previous_key: string | null;
  previous_key_expires_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

/** The business's keys, opened; undefined when it has none yet. Throws SecretUnreadableError when a key does not open with `keys`. */
export async function findRedirectSigningKeys(db: Executor, businessId: number, keys: OpeningKeys, now = new Date()): Promise<RedirectSigningKeys | undefined> {
  const row = await db.first<Row>(db.sql('redirect_signing_keys').select('*').where({ business_id: businessId }));
  if (!row) return undefined;
  const until = row.previous_key_expires_at ? toIsoMicros(row.previous_key_expires_at) : null;
  const overlapping = row.previous_key !== null && until !== null && Date.parse(until) > now.getTime();
  return {
    key: openSecret(keys, row.key, context(businessId)),
    previousKey: overlapping ? openSecret(keys, row.previous_key!, context(businessId)) : null,
    previousKeyExpiresAt: overlapping ? until : null,
    createdAt: toIsoMicros(row.created_at),
    updatedAt: toIsoMicros(row.updated_at),
  };
}

/** Stores `key` as the business's first key, unless another request stored one meanwhile (theirs stands). */
export async function insertRedirectSigningKey(db: Executor, businessId: number, key: string, master: MasterKey): Promise<void> {
  const now = nowIso();
  await db.run(
    db
      .sql('redirect_signing_keys')
      .insert({ business_id: businessId, key: sealSecret(master, key, context(businessId)), created_at: now, updated_at: now })
      .onConflict('business_id')
      .ignore(),
  );
}

/**
 * Puts `key` in; the key it replaces keeps signing beside it until `overlapUntil` (a key rotated out
 * earlier and still in its overlap stops at once). A business without a key gets `key` as its first.
 */
export async function rotateRedirectSigningKey(db: Executor, businessId: number, key: string, master: MasterKey, overlapUntil: Date): Promise<void> {
  const changed = await db.run(
    db
      .sql('redirect_signing_keys')
      .where({ business_id: businessId })
      .update({
        previous_key: db.sql.ref('key'),
        previous_key_expires_at: isoMicros(overlapUntil),
        key: sealSecret(master, key, context(businessId)),
        updated_at: nowIso(),
      }),
  );
  if (changed === 0) await insertRedirectSigningKey(db, businessId, key, master);
}
