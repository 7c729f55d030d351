import type { Knex } from 'knex';

// One payments export per business at a time, across every instance on the database: an export holds
// its business's row until it ends, renewing `expires_at` as it goes, so that one whose process
// stopped (or whose reader stalled) frees the business once its lease has run out.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('export_leases', (t) => {
    t.integer('business_id').primary().references('id').inTable('businesses');
    t.string('holder', 64).notNullable();
    t.timestamp('expires_at', { useTz: true, precision: 6 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('export_leases');
}
