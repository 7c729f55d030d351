import type { Knex } from 'knex';

// The merchant's own website (`website_url` of the business profile): where the thank-you page and the
// receipt lead a payer back to when the link has no redirect_url of its own.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('businesses', (t) => t.string('website_url', 2048).nullable());
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('businesses', (t) => t.dropColumn('website_url'));
}
