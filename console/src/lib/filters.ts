// A list's filters live in the page's address (so a filtered list can be bookmarked and shared) and
// go to the API as its `filter[...]` parameters, empty ones left out. A list's days
// (`created_at_between`) are the business's days; the API reads UTC days, so the console asks for the
// UTC days around them and keeps the records of the days picked.
import { onDays, utcRangeCovering } from './dates.js';

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

/** The API's query for filters: days of the business read as the UTC days that cover them. */
export function apiQuery(filters: Filters): Record<string, string> {
  return Object.fromEntries(
    Object.entries(filters).map(([name, value]) => {
      if (name !== CREATED_DAYS) return [`filter[${name}]`, value];
      const [from = '', to = ''] = value.split(',');
      return [`filter[${name}]`, utcRangeCovering(from, to)];
    }),
  );
}

/** The records of a page that fall on the business days picked (all of them when no days are). */
export function onPickedDays<Row extends { created_at: string }>(rows: readonly Row[], filters: Filters, timeZone: string | undefined): readonly Row[] {
  const days = filters[CREATED_DAYS];
  if (days === undefined || timeZone === undefined) return rows;
  return rows.filter((row) => onDays(row.created_at, days, timeZone));
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
