import type { MasterKey } from '../secrets/master-key.js';
import { openSecret, sealSecret, type OpeningKeys } from '../secrets/seal.js';
import { isPostgres, type Db, type Executor } from './db.js';
import { isUniqueViolation } from './errors.js';
import { nowIso } from './timestamps.js';

export interface Business {
  id: number;
  name: string;
}

export async function findBusinessByName(db: Executor, name: string): Promise<Business | undefined> {
  return db<Business>('businesses').select('id', 'name').where({ name }).first();
}

export async function findOrCreateBusiness(db: Executor, name: string): Promise<Business> {
  const existing = await findBusinessByName(db, name);
  if (existing) return existing;
  try {
    const [row] = await db('businesses').insert({ name, created_at: nowIso() }).returning(['id', 'name']);
    return { id: Number(row.id), name: row.name };
  } catch (error) {
    // Created by someone else between our look and our insert (two instances starting together).
    const created = isUniqueViolation(error) ? await findBusinessByName(db, name) : undefined;
    if (!created) throw error;
    return created;
  }
}

export async function countBusinesses(db: Executor): Promise<number> {
  const row = await db('businesses').count({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

export interface WebhookSettings {
  url: string;
  /** The signing key in clear; the column holds it sealed (server/secrets/seal.ts). */
  secret: string;
}

/** Binds a sealed key to its row: copied into another business's row, it does not open. */
const secretContext = (businessId: number) => `businesses.webhook_secret:${businessId}`;

export async function hasWebhook(db: Executor, businessId: number): Promise<boolean> {
  const row = await db('businesses').select('webhook_url', 'webhook_secret').where({ id: businessId }).first();
  return Boolean(row?.webhook_url && row.webhook_secret);
}

/** Throws SecretUnreadableError when the stored key does not open with `keys`. */
export async function findWebhook(db: Executor, businessId: number, keys: OpeningKeys): Promise<WebhookSettings | undefined> {
  const row = await db('businesses').select('webhook_url', 'webhook_secret').where({ id: businessId }).first();
  if (!row?.webhook_url || !row.webhook_secret) return undefined;
  return { url: row.webhook_url, secret: openSecret(keys, row.webhook_secret, secretContext(businessId)) };
}

export async function setWebhook(db: Executor, businessId: number, settings: WebhookSettings | null, key: MasterKey): Promise<void> {
  await db('businesses')
    .where({ id: businessId })
    .update({ webhook_url: settings?.url ?? null, webhook_secret: settings ? sealSecret(key, settings.secret, secretContext(businessId)) : null });
}

/**
 * On SQLite, runs `work` with freed space zeroed and then empties the write-ahead log, so text that
 * `work` replaces leaves no copy in the database files. (On PostgreSQL, vacuum reclaims old row versions.)
 */
async function wipingReplacedText<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (isPostgres(db)) return work();
  const [{ secure_delete: before }] = (await db.raw('PRAGMA secure_delete')) as [{ secure_delete: number }];
  await db.raw('PRAGMA secure_delete = ON');
  try {
    return await work();
  } finally {
    await db.raw(`PRAGMA secure_delete = ${before ? 'ON' : 'OFF'}`);
    await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  }
}

/**
 * Seals the keys that versions before sealing stored in clear, once the database and the key are at
 * hand (at start and in the scripts; migrations run without configuration). Each row is replaced
 * only if it still holds the value read, so a key set meanwhile is never overwritten. Resolves with
 * how many keys it sealed.
 */
export async function sealLegacyWebhookSecrets(db: Db, key: MasterKey): Promise<number> {
  const legacy: { id: number; webhook_secret: string }[] = await db('businesses').select('id', 'webhook_secret').whereNotNull('webhook_secret').andWhereNot('webhook_secret', 'like', 'v1:%');
  if (legacy.length === 0) return 0;
  return wipingReplacedText(db, async () => {
    let sealed = 0;
    for (const row of legacy) {
      const id = Number(row.id);
      sealed += await db('businesses')
        .where({ id, webhook_secret: row.webhook_secret })
        .update({ webhook_secret: sealSecret(key, row.webhook_secret, secretContext(id)) });
    }
    return sealed;
  });
}
