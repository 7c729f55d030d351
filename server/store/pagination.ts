import type { Knex } from 'knex';
import type { Page, PageRequest } from '../domain/paging.js';
import type { DateRange } from '../domain/time.js';
import { fixedQuery, type CompiledQuery, type Executor } from './executor.js';

/**
 * Where counting the matches of a filtered list stops: one past the first 10,000 records a list
 * reaches (handlers/listing.ts), so a total tells whether the list goes beyond them, while a count
 * holds the event loop no longer than reading that many index entries, whatever the table's size.
 */
export const COUNT_CAP = 10_001;

/** How many rows `query` matches, counting no further than COUNT_CAP. */
export async function cappedCount(db: Executor, query: Knex.QueryBuilder | CompiledQuery): Promise<{ total: number; totalAtLeast: boolean }> {
  const row = await db.first<{ count: number | string }>('toSQL' in query ? cappedCountOf(db.sql, query) : query);
  const total = Number(row?.count ?? 0);
  return { total, totalAtLeast: total >= COUNT_CAP };
}

/** The statement that counts `query`'s matches up to COUNT_CAP. */
function cappedCountOf(sql: Knex, query: Knex.QueryBuilder): Knex.QueryBuilder {
  const capped = query.clone().clearSelect().clearOrder().select(sql.raw('1 as one')).limit(COUNT_CAP);
  return sql.count({ count: '*' }).from(capped.as('capped'));
}

/**
 * One page of `query`: ordered by creation (ties by `_id`) in the page's direction, `offset` rows in;
 * by `orderedFirstBy` before that where a list's range filter on another column asks for it.
 */
function pageOf(query: Knex.QueryBuilder, request: PageRequest, offset: number | Knex.Raw, orderedFirstBy?: string): Knex.QueryBuilder {
  return (
    query
      .clone()
      .orderBy([
        ...(orderedFirstBy ? [{ column: orderedFirstBy, order: request.direction }] : []),
        { column: 'created_at', order: request.direction },
        { column: '_id', order: request.direction },
      ])
      // Written into the SQL rather than bound, which SQLite ran faster (docs/performance.md). per_page
      // is a validated integer of at most 100 (Knex parses it as one), so each query shape has at most
      // 100 such statements to prepare and cache.
      .limit(request.perPage, { skipBinding: true })
      // Knex's types take a number only; it takes a raw one too (a bound parameter of a fixed query).
      .offset(offset as number)
  );
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
  const rows = await db.all<Row>(pageOf(query, request, offset));
  return { rows: rows.map(toRecord), total: counted, totalAtLeast };
}

/**
 * `fetchPage` for a list whose query is a fixed query (executor.ts): `shape` names which filters
 * `build` sets, and `values` are the request's values for its parameters. Its count and page
 * statements are compiled once per shape, page size and direction.
 */
export async function fetchFixedPage<Row, P extends string>(
  db: Executor,
  shape: string,
  build: (sql: Knex, param: (name: P) => Knex.Value) => Knex.QueryBuilder,
  values: Readonly<Record<P, unknown>>,
  request: PageRequest,
  toRecord: (row: Row) => Row,
  total?: number,
  orderedFirstBy?: string,
): Promise<Page<Row>> {
  const { total: counted, totalAtLeast } =
    total === undefined
      ? await cappedCount(
          db,
          fixedQuery(db, `${shape} count`, (sql, param) => cappedCountOf(sql, build(sql, param)), values),
        )
      : { total, totalAtLeast: false };
  const offset = (request.page - 1) * request.perPage;
  if (offset >= counted) return { rows: [], total: counted, totalAtLeast };
  const rows = await db.all<Row>(
    fixedQuery<P | 'offset'>(
      db,
      `${shape} page ${request.direction} ${request.perPage}`,
      (sql, param) => pageOf(build(sql, param), request, sql.raw('?', [param('offset')]), orderedFirstBy),
      { ...values, offset } as Record<P | 'offset', unknown>,
    ),
  );
  return { rows: rows.map(toRecord), total: counted, totalAtLeast };
}
