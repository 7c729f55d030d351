import type { Knex } from 'knex';

// The sweep that settles what a stopped process left pending (usecases/settlement/pending-sweep.ts) looks only
// at pending rows: partial indexes keep its minute-by-minute look as cheap at a million payments as
// at ten, without adding to the indexes every other write maintains.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index payments_pending_index on payments (created_at) where status_id = 2');
  await knex.raw(`create index refunds_pending_index on refunds (updated_at) where status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payments_pending_index');
  await knex.raw('drop index refunds_pending_index');
}
