// The index endpoints' shared query parameters, read once: page, per_page, sort and the date filter,
// and the page they answer with.
import type { components } from '../../generated/openapi.js';
import { parseDateRange, withinBoth, type DateRange } from '../domain/time.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { businessDays } from '../usecases/merchant/business-days.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { paginator } from './paginator.js';

export const DEFAULT_PER_PAGE = 15;
/**
 * How deep a list can be paged: the first record of a page must be among the first 10,000. An
 * OFFSET costs as many index steps as it skips, so a deep page of a large list held SQLite's one
 * thread for a tenth of a second or more; a date range reaches any record instead.
 */
export const LIST_WINDOW = 10_000;

export interface ListQuery {
  page?: number;
  per_page?: number;
  sort?: 'created_at' | '-created_at';
}

export function pageRequest(query: ListQuery): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? DEFAULT_PER_PAGE, direction: query.sort === 'created_at' ? 'asc' : 'desc' };
}

/** The 422 for a page past the window, or undefined. */
export function pageTooDeep(request: PageRequest): components['schemas']['ValidationError'] | undefined {
  if ((request.page - 1) * request.perPage < LIST_WINDOW) return undefined;
  const last = Math.ceil(LIST_WINDOW / request.perPage);
  return {
    message: 'The given data was invalid.',
    errors: {
      page: [
        `The page must not be greater than ${last} at ${request.perPage} per page: a list reaches its first ${LIST_WINDOW} records. Narrow it with filter[created_at_between], or sort=created_at to start from the oldest.`,
      ],
    },
  };
}

/** The spec's `date-range` format has already accepted the text, so this only converts it. */
export function createdBetween(text: string | undefined): DateRange | undefined {
  return text === undefined ? undefined : (parseDateRange(text) ?? undefined);
}

/**
 * The instants a list's records were created in: UTC days (`filter[created_at_between]`), days of the
 * business's time zone (`filter[created_on_between]`), or both at once.
 */
export async function createdRange(
  ctx: UseCaseContext,
  businessId: number,
  query: { 'filter[created_at_between]'?: string; 'filter[created_on_between]'?: string },
): Promise<DateRange | undefined> {
  return withinBoth(createdBetween(query['filter[created_at_between]']), await businessDays(ctx, businessId, query['filter[created_on_between]']));
}

/** A Laravel paginator over one page of records, each presented as the API shows it. */
export function pageOf<Row, Item>(path: string, rawQuery: string, request: PageRequest, page: Page<Row>, present: (row: Row) => Item) {
  return paginator(
    { path, rawQuery, page: request.page, perPage: request.perPage, total: page.total, totalIsLowerBound: page.totalAtLeast, count: page.rows.length },
    page.rows.map(present),
  );
}
