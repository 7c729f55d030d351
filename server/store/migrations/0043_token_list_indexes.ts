import type { Knex } from 'knex';

// The list of a business's tokens (`GET /api/tokenizations`, store/tokens.ts `listTokens`): each filter
// reads through an index that holds it and then the list's order, as the other lists do.
const FILTERS = ['status', 'email'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tokens', (t) => {
    t.index(['business_id', 'created_at', '_id'], 'tokens_page_index');
    for (const column of FILTERS) t.index(['business_id', column, 'created_at', '_id'], `tokens_${column}_page_index`);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tokens', (t) => {
    t.dropIndex([], 'tokens_page_index');
    for (const column of FILTERS) t.dropIndex([], `tokens_${column}_page_index`);
  });
}
