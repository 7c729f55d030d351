// Stripe's list answers: newest first, `limit` items a page (1 to 100, 10 unless asked), a cursor
// (`starting_after` for the page after an item, `ending_before` for the page before one) and
// `has_more`, which is how the SDK's auto-pagination walks every page; and the `created[gte]`-style
// range filters.
import type Stripe from 'stripe';
import { invalidRequest, resourceMissing } from './errors.js';

export interface PageParams {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/** A timestamp filter as Stripe takes it: one exact value, or bounds. */
export type RangeParam = number | { gt?: number; gte?: number; lt?: number; lte?: number };

export function inRange(value: number, range: RangeParam | undefined): boolean {
  if (range === undefined) return true;
  if (typeof range === 'number') return value === range;
  return (
    (range.gt === undefined || value > range.gt) &&
    (range.gte === undefined || value >= range.gte) &&
    (range.lt === undefined || value < range.lt) &&
    (range.lte === undefined || value <= range.lte)
  );
}

/** One page of `newestFirst` (the items the filters kept, newest first); `kind` names a cursor's object in Stripe's "No such ..." answer. */
export function pageOf<T extends { id: string }>(newestFirst: T[], params: PageParams, url: string, kind: string): Stripe.ApiList<T> {
  const limit = params.limit ?? 10;
  if (limit < 1) throw invalidRequest('This value must be greater than or equal to 1.', 'limit');
  if (limit > 100) throw invalidRequest('This value must be less than or equal to 100.', 'limit');
  if (params.starting_after !== undefined && params.ending_before !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: ending_before, starting_after.', 'ending_before');
  }
  const indexOf = (id: string, param: string) => {
    const index = newestFirst.findIndex((item) => item.id === id);
    if (index < 0) throw resourceMissing(kind, id, param);
    return index;
  };
  let start: number;
  let end: number;
  let hasMore: boolean;
  if (params.ending_before !== undefined) {
    end = indexOf(params.ending_before, 'ending_before');
    start = Math.max(0, end - limit);
    hasMore = start > 0;
  } else {
    start = params.starting_after === undefined ? 0 : indexOf(params.starting_after, 'starting_after') + 1;
    end = Math.min(newestFirst.length, start + limit);
    hasMore = end < newestFirst.length;
  }
  return { object: 'list', data: newestFirst.slice(start, end).map((item) => structuredClone(item)), has_more: hasMore, url };
}
