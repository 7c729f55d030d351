import type { Knex } from 'knex';

// A filtered list page orders by created_at, _id. With (business_id, reference) alone, SQLite without
// statistics (the embedded default never gathers any) walked the (business_id, created_at, _id) index
// instead and read every link of the business (docs/performance.md). Indexes that hold the filter
// and then the order serve both, with or without statistics, on both databases.
const FILTERS: Record<string, string[]> = {
  payment_links: ['reference', 'reference_2', 'email', 'status'],
  open_payment_links: ['reference', 'reference_2', 'status_id'],
};

export async function up(knex: Knex): Promise<void> {
  for (const [table, columns] of Object.entries(FILTERS)) {
    await knex.schema.alterTable(table, (t) => {
      for (const column of columns) {
        t.index(['business_id', column, 'created_at', '_id'], `${table}_${column}_page_index`);
        if (column !== 'status_id') t.dropIndex(['business_id', column]);
      }
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, columns] of Object.entries(FILTERS)) {
    await knex.schema.alterTable(table, (t) => {
      for (const column of columns) {
        t.dropIndex([], `${table}_${column}_page_index`);
        if (column !== 'status_id') t.index(['business_id', column]);
      }
    });
  }
}
