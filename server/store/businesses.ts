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
  secret: string;
}

export async function findWebhook(db: Executor, businessId: number): Promise<WebhookSettings | undefined> {
  const row = await db.first<{ webhook_url: string | null; webhook_secret: string | null }>(db.sql('businesses').select('webhook_url', 'webhook_secret').where({ id: businessId }));
  return row?.webhook_url && row.webhook_secret ? { url: row.webhook_url, secret: row.webhook_secret } : undefined;
}

export async function setWebhook(db: Executor, businessId: number, settings: WebhookSettings | null): Promise<void> {
  await db.run(db.sql('businesses').where({ id: businessId }).update({ webhook_url: settings?.url ?? null, webhook_secret: settings?.secret ?? null }));
}
