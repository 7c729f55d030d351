import type { Knex } from 'knex';

// One collections report per business at a time, across every instance on the database, as exports
// run (0030): a report holds its business's row while it sums, and one whose process stopped frees
// the business once its lease has run out.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('report_leases', (t) => {
    t.integer('business_id').primary().references('id').inTable('businesses');
    t.string('holder', 64).notNullable();
    t.timestamp('expires_at', { useTz: true, precision: 6 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('report_leases');
}
