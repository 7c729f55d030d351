import type { Knex } from 'knex';

// Webhook keys are stored sealed (`v1:<key id>:<iv>:<ciphertext>:<tag>`, over 120 characters for a
// whsec_ key), which does not fit the varchar(64) of 0003. SQLite does not enforce varchar lengths,
// and changing a column there means copying the table under its foreign keys, so only PostgreSQL
// changes. Sealing the keys already stored needs the configured key, which migrations do not have:
// sealLegacyWebhookSecrets (server/store/seal-legacy-secrets.ts) does it at start and in the scripts.
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.schema.alterTable('businesses', (table) => {
    table.text('webhook_secret').nullable().alter();
  });
}

// The wider column serves older versions as well; they cannot read sealed keys, though: after a
// downgrade, issue new keys with `set-webhook --rotate`.
export async function down(): Promise<void> {}
