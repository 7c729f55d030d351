import type { Knex } from 'knex';
import type { Page, PageRequest } from '../domain/paging.js';
import type { DateRange } from '../domain/time.js';
import type { Executor } from './executor.js';

/**
 * Where counting the matches of a filtered list stops: one past the first 10,000 records a list
 * reaches (handlers/listing.ts), so a total tells whether the list goes beyond them, while a count
 * holds the event loop no longer than reading that many index entries, whatever the table's size.
 */
export const COUNT_CAP = 10_001;

/** How many rows `query` matches, counting no further than COUNT_CAP. */
export async function cappedCount(db: Executor, query: Knex.QueryBuilder): Promise<{ total: number; totalAtLeast: boolean }> {
  const capped = query.clone().clearSelect().clearOrder().select(db.sql.raw('1 as one')).limit(COUNT_CAP);
  const row = await db.first<{ count: number | string }>(db.sql.count({ count: '*' }).from(capped.as('capped')));
  const total = Number(row?.count ?? 0);
  return { total, totalAtLeast: total >= COUNT_CAP };
}

/**
 * The table a list reads, on SQLite through the index its filters call for. The embedded database
 * gathers no statistics, and without them SQLite took the index of a filter that matches most rows
 * (a status, a date range) over one that matches a few (an e-mail), and read the business's rows one
 * by one to find none. PostgreSQL chooses from its statistics. The index holds the filters' equalities
 * first and then the list's order, so a page, a capped count and an export batch all seek it.
 */
export function listedThrough(db: Executor, table: string, index: string): Knex.QueryBuilder {
  return db.dialect === 'sqlite' ? db.sql.from(db.sql.raw('?? indexed by ??', [table, index])) : db.sql(table);
}

export function whereCreatedBetween(query: Knex.QueryBuilder, range: DateRange | undefined): Knex.QueryBuilder {
  if (range) query.where('created_at', '>=', range.start).andWhere('created_at', '<=', range.end);
  return query;
}

/**
 * One page of a filtered query, newest or oldest first, ties broken by `_id` in the same direction.
 * `total` is given when it is known without counting (an unfiltered list; see record-counts.ts);
 * otherwise the matches are counted up to COUNT_CAP.
 */
export async function fetchPage<Row>(
  db: Executor,
  query: Knex.QueryBuilder,
  request: PageRequest,
  toRecord: (row: Row) => Row,
  total?: number,
): Promise<Page<Row>> {
  const { total: counted, totalAtLeast } = total === undefined ? await cappedCount(db, query) : { total, totalAtLeast: false };
  const offset = (request.page - 1) * request.perPage;
  if (offset >= counted) return { rows: [], total: counted, totalAtLeast };
  const rows = await db.all<Row>(
    query
      .clone()
      .orderBy([
        { column: 'created_at', order: request.direction },
        { column: '_id', order: request.direction },
      ])
      // Written into the SQL rather than bound, which SQLite ran faster (docs/performance.md). per_page
      // is a validated integer of at most 100 (Knex parses it as one), so each query shape has at most
      // 100 such statements to prepare and cache.
      .limit(request.perPage, { skipBinding: true })
      .offset(offset),
  );
  return { rows: rows.map(toRecord), total: counted, totalAtLeast };
}
