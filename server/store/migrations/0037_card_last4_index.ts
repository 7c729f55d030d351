import type { Knex } from 'knex';

// GET /api/payments?filter[card_last4]=...: a payer's card is searched for by its last four digits.
// Like every filter of the list (0011), it gets an index that holds it and then the list's order, so
// a page, its capped count and an export batch seek that card's payments rather than read the
// business's.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.index(['business_id', 'card_last4', 'created_at', '_id'], 'payments_card_last4_page_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => t.dropIndex([], 'payments_card_last4_page_index'));
}
