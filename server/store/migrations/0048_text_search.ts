import type { Knex } from 'knex';

// Finding payments by part of a payer's e-mail or name or of a reference, and links by part of their
// title (`filter[search]`, `filter[title]`; store/text-search.ts), through indexes of trigrams rather
// than a read of every row of the business:
//  - PostgreSQL: pg_trgm's GIN index on each searched column, which serves `ilike '%text%'`.
//  - SQLite: an FTS5 table per searched table with the `trigram` tokenizer (case folded), whose rowid
//    is the table's rowid, filled here from the rows there are and kept by triggers on the table, so
//    every write path of the store keeps it without knowing of it.
// A search by amount reads `payments_amount_page_index`, which holds the amount and then the list's order.
const SEARCHED: Record<string, string[]> = {
  payments: ['payer_email', 'payer_name', 'reference'],
  payment_links: ['title'],
  open_payment_links: ['title'],
};
const TABLES = Object.keys(SEARCHED);

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => t.index(['business_id', 'amount', 'created_at', '_id'], 'payments_amount_page_index'));
  if (knex.client.config.client === 'pg') {
    await knex.raw('create extension if not exists pg_trgm');
    for (const table of TABLES) {
      for (const column of SEARCHED[table]!) await knex.raw(`create index ${table}_${column}_trigram_index on ${table} using gin (${column} gin_trgm_ops)`);
    }
    return;
  }
  for (const table of TABLES) {
    const columns = SEARCHED[table]!;
    const search = `${table}_search`;
    const list = columns.join(', ');
    const values = (row: 'new' | 'old') => columns.map((column) => `${row}.${column}`).join(', ');
    await knex.raw(`create virtual table ${search} using fts5(${list}, tokenize = 'trigram case_sensitive 0')`);
    await knex.raw(`insert into ${search} (rowid, ${list}) select rowid, ${list} from ${table}`);
    await knex.raw(
      `create trigger ${search}_insert after insert on ${table} begin insert into ${search} (rowid, ${list}) values (new.rowid, ${values('new')}); end`,
    );
    await knex.raw(
      `create trigger ${search}_update after update of ${list} on ${table} begin update ${search} set (${list}) = (${values('new')}) where rowid = new.rowid; end`,
    );
    await knex.raw(`create trigger ${search}_delete after delete on ${table} begin delete from ${search} where rowid = old.rowid; end`);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') {
    for (const table of TABLES) for (const column of SEARCHED[table]!) await knex.raw(`drop index ${table}_${column}_trigram_index`);
  } else {
    for (const table of TABLES) {
      for (const event of ['insert', 'update', 'delete']) await knex.raw(`drop trigger ${table}_search_${event}`);
      await knex.raw(`drop table ${table}_search`);
    }
  }
  await knex.schema.alterTable('payments', (t) => t.dropIndex([], 'payments_amount_page_index'));
}
