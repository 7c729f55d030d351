// The index endpoints' shared query parameters, read once: page, per_page, sort and the date filter,
// and the page they answer with.
import { parseDateRange, type DateRange } from '../domain/time.js';
import type { Page, PageRequest } from '../usecases/listing.js';
import { paginator } from './paginator.js';

export const DEFAULT_PER_PAGE = 15;

export interface ListQuery {
  page?: number;
  per_page?: number;
  sort?: 'created_at' | '-created_at';
}

export function pageRequest(query: ListQuery): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? DEFAULT_PER_PAGE, direction: query.sort === 'created_at' ? 'asc' : 'desc' };
}

/** The spec's `date-range` format has already accepted the text, so this only converts it. */
export function createdBetween(text: string | undefined): DateRange | undefined {
  return text === undefined ? undefined : (parseDateRange(text) ?? undefined);
}

/** A Laravel paginator over one page of records, each presented as the API shows it. */
export function pageOf<Row, Item>(path: string, rawQuery: string, request: PageRequest, page: Page<Row>, present: (row: Row) => Item) {
  return paginator({ path, rawQuery, page: request.page, perPage: request.perPage, total: page.total, count: page.rows.length }, page.rows.map(present));
}
