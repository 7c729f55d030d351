import type { Knex } from 'knex';

// GET /api/payments orders by created_at, _id within a business, filtered or not: each filter gets an
// index that holds it and then the order (as 0006 does for the links), so a page reads its own rows
// and no more on both databases.
const COLUMNS = ['status_id', 'payment_link_id', 'open_payment_link_id', 'method', 'payer_email'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.index(['business_id', 'created_at', '_id'], 'payments_page_index');
    for (const column of COLUMNS) t.index(['business_id', column, 'created_at', '_id'], `payments_${column}_page_index`);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.dropIndex([], 'payments_page_index');
    for (const column of COLUMNS) t.dropIndex([], `payments_${column}_page_index`);
  });
}
