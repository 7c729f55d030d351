import type { Knex } from 'knex';

// Two reads of the ledger that walked more of it than they return (docs/performance.md, the scale run):
// - a list filtered by available days comes in available-day order (store/balance-transactions.ts), which
//   the available_on index holds; with a type as well it needs the type before the day;
// - the settlement sweep looks for businesses with unpaid entries available by a day across every
//   business: entries no payout took are the last few days' of each business, so an index of those alone
//   stays small however long the ledger grows.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('balance_transactions', (t) => {
    t.index(['business_id', 'type', 'available_on', 'created_at', '_id'], 'balance_transactions_type_available_on_page_index');
  });
  await knex.raw(`create index balance_transactions_unpaid_by_day_index on balance_transactions (available_on, business_id) where payout_id is null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index balance_transactions_unpaid_by_day_index');
  await knex.schema.alterTable('balance_transactions', (t) => {
    t.dropIndex([], 'balance_transactions_type_available_on_page_index');
  });
}
