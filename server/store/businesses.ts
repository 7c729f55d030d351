import type { Executor } from './db.js';
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
  secret: string;
}

export async function findWebhook(db: Executor, businessId: number): Promise<WebhookSettings | undefined> {
  const row = await db('businesses').select('webhook_url', 'webhook_secret').where({ id: businessId }).first();
  return row?.webhook_url && row.webhook_secret ? { url: row.webhook_url, secret: row.webhook_secret } : undefined;
}

export async function setWebhook(db: Executor, businessId: number, settings: WebhookSettings | null): Promise<void> {
  await db('businesses').where({ id: businessId }).update({ webhook_url: settings?.url ?? null, webhook_secret: settings?.secret ?? null });
}
