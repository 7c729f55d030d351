// The index endpoints' shared query parameters, read once: page, per_page, sort and the date filter.
import { parseDateRange, type DateRange } from '../domain/time.js';
import type { PageRequest } from '../store/pages.js';

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
