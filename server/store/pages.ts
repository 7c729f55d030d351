import type { Knex } from 'knex';
import type { DateRange } from '../domain/time.js';

export interface PageRequest {
  page: number;
  perPage: number;
  /** Newest first unless the caller asked for `sort=created_at`. */
  direction: 'asc' | 'desc';
}

export interface Page<T> {
  rows: T[];
  total: number;
}

export function whereCreatedBetween(query: Knex.QueryBuilder, range: DateRange | undefined): Knex.QueryBuilder {
  if (range) query.where('created_at', '>=', range.start).andWhere('created_at', '<=', range.end);
  return query;
}

/** One page of a filtered query, newest or oldest first, ties broken by `_id` in the same direction. */
export async function fetchPage<Row>(query: Knex.QueryBuilder, request: PageRequest, toRecord: (row: Row) => Row): Promise<Page<Row>> {
  const countRow = await query.clone().clearSelect().count({ count: '*' }).first();
  const total = Number(countRow?.count ?? 0);
  const offset = (request.page - 1) * request.perPage;
  if (offset >= total) return { rows: [], total };
  const rows: Row[] = await query
    .clone()
    .orderBy([
      { column: 'created_at', order: request.direction },
      { column: '_id', order: request.direction },
    ])
    .limit(request.perPage)
    .offset(offset);
  return { rows: rows.map(toRecord), total };
}
