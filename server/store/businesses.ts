import type { MasterKey } from '../secrets/master-key.js';
import type { OpeningKeys } from '../secrets/seal.js';
import type { Executor } from './executor.js';
import { isUniqueViolation } from './errors.js';
import { nowIso } from './timestamps.js';
import { findFirstEndpointSettings, setFirstEndpoint, type WebhookSettings } from './webhook-endpoints.js';

export interface Business {
  id: number;
  name: string;
}

export async function findBusinessByName(db: Executor, name: string): Promise<Business | undefined> {
  return db.first<Business>(db.sql('businesses').select('id', 'name').where({ name }));
}

export async function findOrCreateBusiness(db: Executor, name: string): Promise<Business> {
  const existing = await findBusinessByName(db, name);
  if (existing) return existing;
  try {
    const [row] = await db.all<Business>(db.sql('businesses').insert({ name, created_at: nowIso() }).returning(['id', 'name']));
    if (!row) throw new Error('the business insert returned no row');
    return { id: Number(row.id), name: row.name };
  } catch (error) {
    // Created by someone else between our look and our insert (two instances starting together).
    const created = isUniqueViolation(error) ? await findBusinessByName(db, name) : undefined;
    if (!created) throw error;
    return created;
  }
}

/**
 * Makes writers that count a business's rows before adding one take turns, until the transaction
 * ends: a row lock on PostgreSQL; SQLite's write transactions already run one at a time.
 */
export async function lockBusiness(db: Executor, businessId: number): Promise<void> {
  if (db.dialect === 'postgres') await db.all(db.sql('businesses').select('id').where({ id: businessId }).forUpdate());
}

export async function findBusinessName(db: Executor, id: number): Promise<string | undefined> {
  return (await db.first<{ name: string }>(db.sql('businesses').select('name').where({ id })))?.name;
}

export async function countBusinesses(db: Executor): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('businesses').count({ count: '*' }));
  return Number(row?.count ?? 0);
}

// The business's webhook, as the `set-webhook` command sees it: its first endpoint.
export { webhookSecretContext, type WebhookSettings } from './webhook-endpoints.js';

/** The first endpoint's URL and key. Throws SecretUnreadableError when the stored key does not open with `keys`. */
export async function findWebhook(db: Executor, businessId: number, keys: OpeningKeys): Promise<WebhookSettings | undefined> {
  return findFirstEndpointSettings(db, businessId, keys);
}

/** Sets the first endpoint's URL and key, creating it for every event when there is none; null deletes it. */
export async function setWebhook(db: Executor, businessId: number, settings: WebhookSettings | null, key: MasterKey): Promise<void> {
  await setFirstEndpoint(db, businessId, settings, key);
}

/** Businesses taking payments through an acquirer (`stripe`), by id, for the settlement sync. */
export async function businessesOnAcquirer(db: Executor, provider: string, afterId: number, limit: number): Promise<number[]> {
  const rows = await db.all<{ id: number | string }>(
    db.sql('businesses').where({ provider }).andWhere('id', '>', afterId).orderBy('id').limit(limit).select('id'),
  );
  return rows.map((row) => Number(row.id));
}
