import type { Knex } from 'knex';
import type { Page, PageRequest } from '../domain/paging.js';
import type { DateRange } from '../domain/time.js';
import type { Executor } from './executor.js';

export function whereCreatedBetween(query: Knex.QueryBuilder, range: DateRange | undefined): Knex.QueryBuilder {
  if (range) query.where('created_at', '>=', range.start).andWhere('created_at', '<=', range.end);
  return query;
}

/**
 * One page of a filtered query, newest or oldest first, ties broken by `_id` in the same direction.
 * `total` is given when it is known without counting (an unfiltered list; see record-counts.ts).
 */
export async function fetchPage<Row>(
  db: Executor,
  query: Knex.QueryBuilder,
  request: PageRequest,
  toRecord: (row: Row) => Row,
  total?: number,
): Promise<Page<Row>> {
  const counted = total ?? Number((await db.first<{ count: number | string }>(query.clone().clearSelect().count({ count: '*' })))?.count ?? 0);
  const offset = (request.page - 1) * request.perPage;
  if (offset >= counted) return { rows: [], total: counted };
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
  return { rows: rows.map(toRecord), total: counted };
}
