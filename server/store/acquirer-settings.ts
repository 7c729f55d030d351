// Which acquirer takes a business's payments, and the Stripe account's secrets. The secrets are sealed
// at rest (server/secrets/seal.ts) and bound to their business and column: copied into another row,
// they do not open. Only a hint of the secret key (its mode prefix and last four) is kept in clear.
import type { MasterKey } from '../secrets/master-key.js';
import { openSecret, sealSecret, type OpeningKeys } from '../secrets/seal.js';
import type { Executor } from './executor.js';
import { nowIso } from './timestamps.js';

export type AcquirerName = 'sandbox' | 'stripe';

export interface StripeSecrets {
  secretKey: string;
  webhookSecret: string | null;
}

export interface AcquirerSettings {
  /** The acquirer that takes new payments and saves cards. */
  acquirer: AcquirerName;
  /** Kept when the business moves back to the sandbox: its Stripe payments are still refunded through Stripe. */
  stripe: StripeSecrets | null;
}

export interface AcquirerSummary {
  business_id: number;
  name: string;
  provider: AcquirerName;
  /** e.g. `sk_test_…4242`; null when no Stripe key is stored. */
  stripe_key_hint: string | null;
  stripe_webhook_secret_set: boolean;
}

const secretContext = (column: 'stripe_secret_key' | 'stripe_webhook_secret', businessId: number) => `businesses.${column}:${businessId}`;

/** `sk_live_…abcd`: which account and mode, never enough of the key to use it. */
export function stripeKeyHint(secretKey: string): string {
  const mode = /^(?:sk|rk)_(?:live|test)_/.exec(secretKey)?.[0] ?? `${secretKey.slice(0, 3)}`;
  return `${mode}…${secretKey.slice(-4)}`;
}

interface SettingsRow {
  provider: string;
  stripe_secret_key: string | null;
  stripe_webhook_secret: string | null;
}

/** Undefined for an unknown business. Throws SecretUnreadableError when a stored secret does not open with `keys`. */
export async function findAcquirerSettings(db: Executor, businessId: number, keys: OpeningKeys): Promise<AcquirerSettings | undefined> {
  const row = await db.first<SettingsRow>(db.sql('businesses').select('provider', 'stripe_secret_key', 'stripe_webhook_secret').where({ id: businessId }));
  if (!row) return undefined;
  const stripe = row.stripe_secret_key
    ? {
        secretKey: openSecret(keys, row.stripe_secret_key, secretContext('stripe_secret_key', businessId)),
        webhookSecret: row.stripe_webhook_secret ? openSecret(keys, row.stripe_webhook_secret, secretContext('stripe_webhook_secret', businessId)) : null,
      }
    : null;
  return { acquirer: row.provider === 'stripe' ? 'stripe' : 'sandbox', stripe };
}

/** The acquirer that takes the business's new payments, read without opening any secret; undefined for an unknown business. */
export async function findAcquirerName(db: Executor, businessId: number): Promise<AcquirerName | undefined> {
  const row = await db.first<{ provider: string }>(db.sql('businesses').select('provider').where({ id: businessId }));
  if (!row) return undefined;
  return row.provider === 'stripe' ? 'stripe' : 'sandbox';
}

/** How far a business is set up to take Stripe's notifications (whichever acquirer takes its new payments). */
export type StripeAccountState = 'no_business' | 'no_secret_key' | 'no_webhook_secret' | 'ready';

/** Which secrets of a Stripe account the business has stored, without opening any. */
export async function stripeAccountState(db: Executor, businessId: number): Promise<StripeAccountState> {
  const row = await db.first<{ key_set: number | string; webhook_set: number | string }>(
    db
      .sql('businesses')
      .select(
        db.sql.raw('case when stripe_secret_key is null then 0 else 1 end as key_set'),
        db.sql.raw('case when stripe_webhook_secret is null then 0 else 1 end as webhook_set'),
      )
      .where({ id: businessId }),
  );
  if (!row) return 'no_business';
  if (Number(row.key_set) !== 1) return 'no_secret_key';
  return Number(row.webhook_set) === 1 ? 'ready' : 'no_webhook_secret';
}

/**
 * Chooses the business's acquirer. Stripe secrets given are sealed and replace the stored ones; those
 * not given are kept (moving back to the sandbox keeps them for refunds of earlier Stripe payments).
 */
export async function setAcquirer(
  db: Executor,
  businessId: number,
  acquirer: AcquirerName,
  stripe: { secretKey?: string; webhookSecret?: string },
  key: MasterKey,
): Promise<void> {
  const changes: Record<string, string> = { provider: acquirer };
  if (stripe.secretKey) {
    changes.stripe_secret_key = sealSecret(key, stripe.secretKey, secretContext('stripe_secret_key', businessId));
    changes.stripe_key_hint = stripeKeyHint(stripe.secretKey);
  }
  if (stripe.webhookSecret) changes.stripe_webhook_secret = sealSecret(key, stripe.webhookSecret, secretContext('stripe_webhook_secret', businessId));
  await db.run(db.sql('businesses').where({ id: businessId }).update(changes));
}

export async function listAcquirers(db: Executor, businessId?: number): Promise<AcquirerSummary[]> {
  const query = db
    .sql('businesses')
    .select('id', 'name', 'provider', 'stripe_key_hint', db.sql.raw('case when stripe_webhook_secret is null then 0 else 1 end as webhook_set'))
    .orderBy('id');
  if (businessId !== undefined) query.where({ id: businessId });
  const rows = await db.all<{ id: number; name: string; provider: string; stripe_key_hint: string | null; webhook_set: number | string }>(query);
  return rows.map((row) => ({
    business_id: Number(row.id),
    name: row.name,
    provider: row.provider === 'stripe' ? 'stripe' : 'sandbox',
    stripe_key_hint: row.stripe_key_hint,
    stripe_webhook_secret_set: Number(row.webhook_set) === 1,
  }));
}

/**
 * Notes an acquirer's notification as handled; false when it was noted before (a delivery repeated
 * by the acquirer), so it is acted on once.
 */
export async function noteAcquirerEvent(db: Executor, event: { business_id: number; provider: string; event_id: string; type: string }): Promise<boolean> {
  const inserted = await db.all(
    db
      .sql('provider_events')
      .insert({ ...event, received_at: nowIso() })
      .onConflict(['business_id', 'provider', 'event_id'])
      .ignore()
      .returning('event_id'),
  );
  return inserted.length === 1;
}

export async function acquirerEventSeen(db: Executor, businessId: number, acquirer: string, eventId: string): Promise<boolean> {
  return (await db.first(db.sql('provider_events').select('event_id').where({ business_id: businessId, provider: acquirer, event_id: eventId }))) !== undefined;
}
