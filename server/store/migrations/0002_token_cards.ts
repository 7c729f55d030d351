import type { Knex } from 'knex';

// The provider's reference for a saved card, so the token can be charged later; never card data.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tokens', (table) => {
    table.string('card_reference', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tokens', (table) => {
    table.dropColumn('card_reference');
  });
}
