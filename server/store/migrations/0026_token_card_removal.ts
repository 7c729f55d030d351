import type { Knex } from 'knex';

// When a token's saved card was removed (DELETE /api/tokenizations/{id}/card): the card's brand, last
// four, expiry and the acquirer's reference are cleared then, and this says that there was one.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tokens', (table) => {
    table.timestamp('card_removed_at', { useTz: true, precision: 6 }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tokens', (table) => {
    table.dropColumn('card_removed_at');
  });
}
