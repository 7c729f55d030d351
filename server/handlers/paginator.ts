// Laravel's LengthAwarePaginator, as merchants' integrations already read it. Page URLs keep the
// request's other query parameters (Laravel's withQueryString), so next_page_url can be followed as is.
import type { components } from '../../generated/openapi.js';

type Paginator = components['schemas']['Paginator'];

export interface PaginatorInput {
  /** Absolute URL of the collection, without query. */
  path: string;
  /** The raw query string of the request. */
  rawQuery: string;
  page: number;
  perPage: number;
  total: number;
  /** `total` is a lower bound (the store stopped counting). */
  totalIsLowerBound?: boolean;
  count: number;
}

export function paginator<T>(input: PaginatorInput, data: T[]): Paginator & { data: T[] } {
  const lastPage = Math.max(1, Math.ceil(input.total / input.perPage));
  const url = (page: number) => {
    const params = new URLSearchParams(input.rawQuery);
    params.delete('page');
    params.append('page', String(page));
    return `${input.path}?${params.toString()}`;
  };
  const from = input.count > 0 ? (input.page - 1) * input.perPage + 1 : null;
  return {
    current_page: input.page,
    data,
    first_page_url: url(1),
    from,
    last_page: lastPage,
    last_page_url: url(lastPage),
    next_page_url: input.page < lastPage ? url(input.page + 1) : null,
    path: input.path,
    per_page: input.perPage,
    prev_page_url: input.page > 1 ? url(input.page - 1) : null,
    to: from === null ? null : from + input.count - 1,
    total: input.total,
    // Only when true, so that an exact answer reads as it did before the field was added.
    ...(input.totalIsLowerBound && { total_is_lower_bound: true }),
  };
}
