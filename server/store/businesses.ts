import type { MasterKey } from '../secrets/master-key.js';
import { openSecret, sealSecret, type OpeningKeys } from '../secrets/seal.js';
import type { Executor } from './executor.js';
import { isUniqueViolation } from './errors.js';
import { nowIso } from './timestamps.js';

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

export async function findBusinessName(db: Executor, id: number): Promise<string | undefined> {
  return (await db.first<{ name: string }>(db.sql('businesses').select('name').where({ id })))?.name;
}

export async function countBusinesses(db: Executor): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('businesses').count({ count: '*' }));
  return Number(row?.count ?? 0);
}

export interface WebhookSettings {
  url: string;
  /** The signing key in clear; the column holds it sealed (server/secrets/seal.ts). */
  secret: string;
}

/** Binds a sealed key to its row: copied into another business's row, it does not open. */
export const webhookSecretContext = (businessId: number) => `businesses.webhook_secret:${businessId}`;

export async function hasWebhook(db: Executor, businessId: number): Promise<boolean> {
  const row = await db.first<{ webhook_url: string | null; webhook_secret: string | null }>(
    db.sql('businesses').select('webhook_url', 'webhook_secret').where({ id: businessId }),
  );
  return Boolean(row?.webhook_url && row.webhook_secret);
}

/** Throws SecretUnreadableError when the stored key does not open with `keys`. */
export async function findWebhook(db: Executor, businessId: number, keys: OpeningKeys): Promise<WebhookSettings | undefined> {
  const row = await db.first<{ webhook_url: string | null; webhook_secret: string | null }>(
    db.sql('businesses').select('webhook_url', 'webhook_secret').where({ id: businessId }),
  );
  if (!row?.webhook_url || !row.webhook_secret) return undefined;
  return { url: row.webhook_url, secret: openSecret(keys, row.webhook_secret, webhookSecretContext(businessId)) };
}

export async function setWebhook(db: Executor, businessId: number, settings: WebhookSettings | null, key: MasterKey): Promise<void> {
  await db.run(
    db
      .sql('businesses')
      .where({ id: businessId })
      .update({ webhook_url: settings?.url ?? null, webhook_secret: settings ? sealSecret(key, settings.secret, webhookSecretContext(businessId)) : null }),
  );
}
