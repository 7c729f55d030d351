// Migrations are listed here rather than discovered on disk, so they run the same under tsx, vitest
// and a compiled build, and their order is explicit. There is no 0021: that number was never used in
// this repository (three migrations written together skipped it). Knex records
// migrations by name, so the gap changes nothing, and no number after it is moved down, since
// databases already record them under theirs.
import type { Knex } from 'knex';
import * as initial from './migrations/0001_initial.js';
import * as tokenCards from './migrations/0002_token_cards.js';
import * as outbox from './migrations/0003_outbox.js';
import * as idempotencyAndRateLimits from './migrations/0004_idempotency_and_rate_limits.js';
import * as recordCounts from './migrations/0005_record_counts.js';
import * as filterIndexes from './migrations/0006_filter_indexes.js';
import * as dailyCounts from './migrations/0007_daily_counts.js';
import * as sealedWebhookSecrets from './migrations/0008_sealed_webhook_secrets.js';
import * as rateLimitWindowLength from './migrations/0009_rate_limit_window_length.js';
import * as tokenActivationAttempts from './migrations/0010_token_activation_attempts.js';
import * as paymentFilters from './migrations/0011_payment_filters.js';
import * as refundsAndCharges from './migrations/0012_refunds_and_charges.js';
import * as paymentCounts from './migrations/0013_payment_counts.js';
import * as linkLifecycle from './migrations/0014_link_lifecycle.js';
import * as eventLog from './migrations/0015_event_log.js';
import * as webhookEndpoints from './migrations/0016_webhook_endpoints.js';
import * as pendingSweep from './migrations/0017_pending_sweep.js';
import * as acquirers from './migrations/0018_acquirers.js';
import * as oneRowPerAcquirerRefund from './migrations/0019_one_row_per_acquirer_refund.js';
import * as chargeRetries from './migrations/0020_charge_retries.js';
import * as periodCounts from './migrations/0022_period_counts.js';
import * as openLinkPaymentCounts from './migrations/0023_open_link_payment_counts.js';
import * as hostedCheckoutSlots from './migrations/0024_hosted_checkout_slots.js';
import * as payerEmailCounts from './migrations/0025_payer_email_counts.js';
import * as tokenCardRemoval from './migrations/0026_token_card_removal.js';
import * as redirectSigningKeys from './migrations/0027_redirect_signing_keys.js';
import * as webhookEvents from './migrations/0028_webhook_events.js';
import * as statusMethodIndex from './migrations/0029_status_method_index.js';
import * as exportLeases from './migrations/0030_export_leases.js';
import * as declaredCounters from './migrations/0031_declared_counters.js';
import * as auditEvents from './migrations/0032_audit_events.js';
import * as usersAndSessions from './migrations/0033_users_and_sessions.js';
import * as apiKeyAccess from './migrations/0034_api_key_access.js';
import * as businessProfile from './migrations/0035_business_profile.js';
import * as collectionCounts from './migrations/0036_collection_counts.js';
import * as cardLast4Index from './migrations/0037_card_last4_index.js';
import * as endpointDeliveries from './migrations/0038_endpoint_deliveries.js';
import * as memberBoundKeys from './migrations/0039_member_bound_keys.js';
import * as secretChecks from './migrations/0040_secret_checks.js';
import * as reportLeases from './migrations/0041_report_leases.js';
import * as redrawnLogos from './migrations/0042_redrawn_logos.js';
import * as tokenListIndexes from './migrations/0043_token_list_indexes.js';
import * as settlementLedger from './migrations/0044_settlement_ledger.js';
import * as backupRuns from './migrations/0045_backup_runs.js';
import * as ledgerBackfill from './migrations/0046_ledger_backfill.js';
import * as ledgerListIndexes from './migrations/0047_ledger_list_indexes.js';
import * as textSearch from './migrations/0048_text_search.js';
import * as businessWebsite from './migrations/0049_business_website.js';

const migrations: Record<string, Knex.Migration> = {
  '0001_initial': initial,
  '0002_token_cards': tokenCards,
  '0003_outbox': outbox,
  '0004_idempotency_and_rate_limits': idempotencyAndRateLimits,
  '0005_record_counts': recordCounts,
  '0006_filter_indexes': filterIndexes,
  '0007_daily_counts': dailyCounts,
  '0008_sealed_webhook_secrets': sealedWebhookSecrets,
  '0009_rate_limit_window_length': rateLimitWindowLength,
  '0010_token_activation_attempts': tokenActivationAttempts,
  '0011_payment_filters': paymentFilters,
  '0012_refunds_and_charges': refundsAndCharges,
  '0013_payment_counts': paymentCounts,
  '0014_link_lifecycle': linkLifecycle,
  '0015_event_log': eventLog,
  '0016_webhook_endpoints': webhookEndpoints,
  '0017_pending_sweep': pendingSweep,
  '0018_acquirers': acquirers,
  '0019_one_row_per_acquirer_refund': oneRowPerAcquirerRefund,
  '0020_charge_retries': chargeRetries,
  '0022_period_counts': periodCounts,
  '0023_open_link_payment_counts': openLinkPaymentCounts,
  '0024_hosted_checkout_slots': hostedCheckoutSlots,
  '0025_payer_email_counts': payerEmailCounts,
  '0026_token_card_removal': tokenCardRemoval,
  '0027_redirect_signing_keys': redirectSigningKeys,
  '0028_webhook_events': webhookEvents,
  '0029_status_method_index': statusMethodIndex,
  '0030_export_leases': exportLeases,
  '0031_declared_counters': declaredCounters,
  '0032_audit_events': auditEvents,
  '0033_users_and_sessions': usersAndSessions,
  '0034_api_key_access': apiKeyAccess,
  '0035_business_profile': businessProfile,
  '0036_collection_counts': collectionCounts,
  '0037_card_last4_index': cardLast4Index,
  '0038_endpoint_deliveries': endpointDeliveries,
  '0039_member_bound_keys': memberBoundKeys,
  '0040_secret_checks': secretChecks,
  '0041_report_leases': reportLeases,
  '0042_redrawn_logos': redrawnLogos,
  '0043_token_list_indexes': tokenListIndexes,
  '0044_settlement_ledger': settlementLedger,
  '0045_backup_runs': backupRuns,
  '0046_ledger_backfill': ledgerBackfill,
  '0047_ledger_list_indexes': ledgerListIndexes,
  '0048_text_search': textSearch,
  '0049_business_website': businessWebsite,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name] as Knex.Migration,
};

/** Another instance is migrating the same database right now (Knex's lock, or its own tables being created). */
function isConcurrentMigration(error: unknown): boolean {
  const e = error as { name?: string; message?: string; code?: string };
  return e?.name === 'MigrationLocked' || e?.code === '23505' || e?.code === '42P07' || /already exists/.test(e?.message ?? '');
}

/**
 * Brings the schema up to date. Instances started together on one database take turns: Knex's lock
 * refuses the second at once rather than making it wait, so it waits here and tries again.
 */
export async function migrateLatest(db: Knex, patienceMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    try {
      const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
      return applied;
    } catch (error) {
      if (!isConcurrentMigration(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 300));
    }
  }
}

/** The migrations this version knows, in order: a backup names the last it was taken at. */
export function knownMigrations(): string[] {
  return Object.keys(migrations);
}

/** Applies the migrations up to and including `last` only: for tests of a migration over existing rows. */
export async function migrateUpTo(db: Knex, last: string): Promise<void> {
  const names = Object.keys(migrations);
  if (!names.includes(last)) throw new Error(`no migration ${last}`);
  for (const name of names.slice(0, names.indexOf(last) + 1)) await db.migrate.up({ migrationSource: source, name });
}
