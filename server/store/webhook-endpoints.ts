// A business's webhook endpoints: where its events go, which events each one wants, and the keys
// that sign them. Keys are sealed at rest (server/secrets/seal.ts) and bound to their business: a
// sealed key copied into another business's endpoint does not open there. A rotated-out key keeps
// signing beside the new one until `previous_secret_expires_at`.
import { newId } from '../domain/ids.js';
import { isoMicros } from '../domain/time.js';
import type { MasterKey } from '../secrets/master-key.js';
import { openSecret, sealSecret, type OpeningKeys } from '../secrets/seal.js';
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';

/** Binds a sealed key to its business: copied into another business's endpoint, it does not open. */
export const webhookSecretContext = (businessId: number) => `businesses.webhook_secret:${businessId}`;

/** Every event, present and future. */
export const ALL_EVENTS = '*';

export interface EndpointFields {
  url: string;
  description: string | null;
  enabled_events: string[];
  enabled: boolean;
}

export interface WebhookEndpointRecord extends EndpointFields {
  /** The row's key, which outbox entries name. */
  id: number;
  _id: string;
  business_id: number;
  /** Until when the key replaced by the last rotation still signs; null when none does. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

interface EndpointRow {
  id: number | string;
  _id: string;
  business_id: number | string;
  url: string;
  description: string | null;
  enabled_events: string;
  enabled: boolean | number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

function toRecord(row: EndpointRow, now = Date.now()): WebhookEndpointRecord {
  const previousUntil = row.previous_secret_expires_at ? toIsoMicros(row.previous_secret_expires_at) : null;
  return {
    id: Number(row.id),
    _id: row._id,
    business_id: Number(row.business_id),
    url: row.url,
    description: row.description,
    enabled_events: JSON.parse(row.enabled_events) as string[],
    enabled: Boolean(row.enabled),
    previous_secret_expires_at: previousUntil && Date.parse(previousUntil) > now ? previousUntil : null,
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

const endpoints = (db: Executor, businessId: number) => db.sql('webhook_endpoints').where({ business_id: businessId });

export async function countEndpoints(db: Executor, businessId: number): Promise<number> {
  return Number((await db.first<{ n: number | string }>(endpoints(db, businessId).count({ n: '*' })))?.n ?? 0);
}

export async function listEndpoints(db: Executor, businessId: number): Promise<WebhookEndpointRecord[]> {
  return (await db.all<EndpointRow>(endpoints(db, businessId).select('*').orderBy('id'))).map((row) => toRecord(row));
}

export async function findEndpoint(db: Executor, businessId: number, endpointId: string): Promise<WebhookEndpointRecord | undefined> {
  const row = await db.first<EndpointRow>(endpoints(db, businessId).select('*').where({ _id: endpointId }));
  return row && toRecord(row);
}

export async function createEndpoint(db: Executor, businessId: number, fields: EndpointFields, secret: string, key: MasterKey): Promise<WebhookEndpointRecord> {
  const now = nowIso();
  const [row] = await db.all<EndpointRow>(
    db
      .sql('webhook_endpoints')
      .insert({
        _id: `we_${newId()}`,
        business_id: businessId,
        ...fields,
        enabled_events: JSON.stringify(fields.enabled_events),
        secret: sealSecret(key, secret, webhookSecretContext(businessId)),
        created_at: now,
        updated_at: now,
      })
      .returning('*'),
  );
  return toRecord(row!);
}

export async function updateEndpoint(
  db: Executor,
  businessId: number,
  endpointId: string,
  fields: Partial<EndpointFields>,
): Promise<WebhookEndpointRecord | undefined> {
  const changes: Record<string, unknown> = { ...fields, updated_at: nowIso() };
  if (fields.enabled_events) changes.enabled_events = JSON.stringify(fields.enabled_events);
  const [row] = await db.all<EndpointRow>(endpoints(db, businessId).where({ _id: endpointId }).update(changes).returning('*'));
  return row && toRecord(row);
}

export async function deleteEndpoint(db: Executor, businessId: number, endpointId: string): Promise<WebhookEndpointRecord | undefined> {
  // Read, then deleted only if it is still there: Knex drops RETURNING from a DELETE on SQLite.
  return db.transaction(async (tx) => {
    const row = await tx.first<EndpointRow>(endpoints(tx, businessId).select('*').where({ _id: endpointId }));
    if (!row || (await tx.run(tx.sql('webhook_endpoints').where({ id: row.id }).delete())) === 0) return undefined;
    return toRecord(row);
  });
}

/**
 * Puts `secret` in as the endpoint's key; the key it replaces keeps signing beside it until
 * `overlapUntil`. A key rotated out earlier and still in its overlap stops signing now.
 */
export async function rotateEndpointSecret(
  db: Executor,
  businessId: number,
  endpointId: string,
  secret: string,
  key: MasterKey,
  overlapUntil: Date,
): Promise<WebhookEndpointRecord | undefined> {
  const [row] = await db.all<EndpointRow>(
    endpoints(db, businessId)
      .where({ _id: endpointId })
      .update({
        previous_secret: db.sql.ref('secret'),
        previous_secret_expires_at: isoMicros(overlapUntil),
        secret: sealSecret(key, secret, webhookSecretContext(businessId)),
        updated_at: nowIso(),
      })
      .returning('*'),
  );
  return row && toRecord(row);
}

/** The enabled endpoints of the business that want `eventType`, by row key. */
export async function subscribedEndpoints(db: Executor, businessId: number, eventType: string): Promise<number[]> {
  const rows = await db.all<Pick<EndpointRow, 'id' | 'enabled_events'>>(
    endpoints(db, businessId).select('id', 'enabled_events').where({ enabled: true }).orderBy('id'),
  );
  return rows
    .filter((row) => {
      const wanted = JSON.parse(row.enabled_events) as string[];
      return wanted.includes(ALL_EVENTS) || wanted.includes(eventType);
    })
    .map((row) => Number(row.id));
}

export interface DeliveryTarget {
  url: string;
  enabled: boolean;
  /** The keys that sign a delivery now: the current one first, then one rotated out and still in its overlap. */
  secrets: string[];
}

/** Where an outbox entry goes and with which keys. Throws SecretUnreadableError when a key does not open with `keys`. */
export async function findDeliveryTarget(db: Executor, endpointRowId: number, keys: OpeningKeys, now = new Date()): Promise<DeliveryTarget | undefined> {
  const row = await db.first<EndpointRow>(db.sql('webhook_endpoints').select('*').where({ id: endpointRowId }));
  if (!row) return undefined;
  const context = webhookSecretContext(Number(row.business_id));
  const secrets = [openSecret(keys, row.secret, context)];
  const previousUntil = row.previous_secret_expires_at ? Date.parse(toIsoMicros(row.previous_secret_expires_at)) : 0;
  if (row.previous_secret && previousUntil > now.getTime()) secrets.push(openSecret(keys, row.previous_secret, context));
  return { url: row.url, enabled: Boolean(row.enabled), secrets };
}

/** The row key of the business's first endpoint. */
export async function firstEndpointId(db: Executor, businessId: number): Promise<number | undefined> {
  const row = await db.first<{ id: number | string }>(endpoints(db, businessId).select('id').orderBy('id').limit(1));
  return row && Number(row.id);
}

/** The business's first endpoint, which `set-webhook` manages. */
async function firstEndpoint(db: Executor, businessId: number): Promise<EndpointRow | undefined> {
  return db.first<EndpointRow>(endpoints(db, businessId).select('*').orderBy('id').limit(1));
}

export interface WebhookSettings {
  url: string;
  /** The signing key in clear; the column holds it sealed. */
  secret: string;
}

/** The first endpoint's URL and key. Throws SecretUnreadableError when the key does not open with `keys`. */
export async function findFirstEndpointSettings(db: Executor, businessId: number, keys: OpeningKeys): Promise<WebhookSettings | undefined> {
  const row = await firstEndpoint(db, businessId);
  return row && { url: row.url, secret: openSecret(keys, row.secret, webhookSecretContext(businessId)) };
}

/** Sets the first endpoint's URL and key (creating it, for every event, when there is none), or deletes it. */
export async function setFirstEndpoint(db: Executor, businessId: number, settings: WebhookSettings | null, key: MasterKey): Promise<void> {
  await db.transaction(async (tx) => {
    const first = await firstEndpoint(tx, businessId);
    if (!settings) {
      if (first) await tx.run(tx.sql('webhook_endpoints').where({ id: first.id }).delete());
      return;
    }
    if (!first) {
      await createEndpoint(tx, businessId, { url: settings.url, description: null, enabled_events: [ALL_EVENTS], enabled: true }, settings.secret, key);
      return;
    }
    await tx.run(
      tx
        .sql('webhook_endpoints')
        .where({ id: first.id })
        .update({
          url: settings.url,
          secret: sealSecret(key, settings.secret, webhookSecretContext(businessId)),
          previous_secret: null,
          previous_secret_expires_at: null,
          updated_at: nowIso(),
        }),
    );
  });
}
