import type { Knex } from 'knex';

// A charge on a saved card whose acquirer call threw (or whose process stopped mid-call) may have
// taken the money: it stays pending and the pending sweep asks the acquirer again under the same
// reference, backing off between looks. `retry_at` is when it looks next (null until the first look,
// which waits the sweep's grace). The partial index keeps that look to the few charges concerned.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (table) => {
    table.timestamp('retry_at', { useTz: true, precision: 6 }).nullable();
  });
  await knex.raw(
    'create index payments_unanswered_charges_index on payments (created_at) where status_id = 2 and tokenization_id is not null and provider_reference is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payments_unanswered_charges_index');
  await knex.schema.alterTable('payments', (table) => table.dropColumn('retry_at'));
}
