// A list's filters live in the page's address (so a filtered list can be bookmarked and shared) and
// go to the API as its `filter[...]` parameters, empty ones left out. A list's days
// (`created_at_between` in the address) are the business's days: the API's `filter[created_on_between]`.

export type Filters = Record<string, string>;

/** The filter of the days a record was created, on every list. */
export const CREATED_DAYS = 'created_at_between';

export function filtersFrom(search: URLSearchParams, names: readonly string[]): Filters {
  const filters: Filters = {};
  for (const name of names) {
    const value = search.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** The API's query for filters: the days picked are the business's, as `filter[created_on_between]` takes them. */
export function apiQuery(filters: Filters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).map(([name, value]) => [`filter[${name === CREATED_DAYS ? 'created_on_between' : name}]`, value]));
}

/** The page's search string for filters (empty ones dropped); a change of filter goes back to page 1. */
export function searchFor(filters: Filters, page = 1): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value.trim() !== '') params.set(name, value.trim());
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function hasFilters(filters: Filters): boolean {
  return Object.values(filters).some((value) => value.trim() !== '');
}
