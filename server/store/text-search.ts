// Finding rows by part of their text, any case, through an index of trigrams on both databases
// (`migrations/0048_text_search.ts`): on PostgreSQL pg_trgm's GIN indexes serve ILIKE on the columns
// themselves; on SQLite an FTS5 table per searched table (`<table>_search`, its `trigram` tokenizer
// folding case), kept by the table's triggers and keyed by the table's rowid.
import type { Knex } from 'knex';
import type { Dialect, Executor } from './executor.js';

/** The tables searched by text, and their searched columns (the migration's). */
export const SEARCHED = {
  payments: ['payer_email', 'payer_name', 'reference'],
  payment_links: ['title'],
  open_payment_links: ['title'],
} as const;

export type SearchedTable = keyof typeof SEARCHED;

/** The value `whereTextFound` binds for `text`: a LIKE pattern of it on PostgreSQL, an FTS5 phrase of it on SQLite. */
export function textSearchValue(dialect: Dialect, text: string): string {
  if (dialect === 'sqlite') return `"${text.replace(/"/g, '""')}"`;
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The rowids of the table's rows whose searched text holds the phrase `value` (SQLite only), read from its FTS5 index. */
export function rowidsFound(sql: Knex, table: SearchedTable, value: Knex.Value): Knex.QueryBuilder {
  return sql
    .select('rowid')
    .from(`${table}_search`)
    .whereRaw('?? match ?', [`${table}_search`, value]);
}

/**
 * Keeps the rows of `query` (on `table`) whose searched columns hold the text that `value` (made by
 * textSearchValue) stands for. `sql` is the executor's builder (a fixed query's, in its template).
 */
export function whereTextFound(dialect: Dialect, sql: Knex, query: Knex.QueryBuilder, table: SearchedTable, value: Knex.Value): Knex.QueryBuilder {
  if (dialect === 'sqlite') return query.whereIn(`${table}.rowid`, rowidsFound(sql, table, value));
  return query.where((any) => {
    for (const column of SEARCHED[table]) any.orWhere(column, 'ilike', value);
  });
}

/**
 * The table read when a text search leads: on SQLite by rowid only, from the rows the search index
 * found, never through one of the table's indexes (which would walk the business's rows to test each).
 */
export function readThroughSearch(db: Executor, table: SearchedTable): Knex.QueryBuilder {
  return db.dialect === 'sqlite' ? db.sql.from(db.sql.raw('?? not indexed', [table])) : db.sql(table);
}
