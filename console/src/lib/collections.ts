// The overview's figures and chart, from the collections report (GET /api/reports/collections): a
// bucket per business day and series (a currency, and a method or state when split), summed from
// the service's counters, so the overview costs the same at ten payments or a million.
import type { components } from '@payment-collection/client';
import { daysBetween } from './dates.js';

export type ReportBucket = components['schemas']['CollectionsBucket'];

export interface Summary {
  /** Cents collected (paid, refunded or not), per currency. */
  collected: Record<string, number>;
  /** Cents refunded of those, per currency. */
  refunded: Record<string, number>;
  collectedCount: number;
  failedCount: number;
  /** Paid attempts over settled ones (paid or failed); null without any settled attempt. */
  successRate: number | null;
}

/** The buckets of the business days `from` to `to` (both included). */
export function withinDays(buckets: readonly ReportBucket[], from: string, to: string): ReportBucket[] {
  return buckets.filter((bucket) => bucket.date >= from && bucket.date <= to);
}

const add = (sums: Record<string, number>, currency: string, cents: number) => {
  if (cents !== 0) sums[currency] = (sums[currency] ?? 0) + cents;
};

export function summarize(buckets: readonly ReportBucket[]): Summary {
  const summary: Summary = { collected: {}, refunded: {}, collectedCount: 0, failedCount: 0, successRate: null };
  for (const bucket of buckets) {
    summary.collectedCount += bucket.paid_count;
    summary.failedCount += bucket.failed_count;
    add(summary.collected, bucket.currency, bucket.paid_amount);
    add(summary.refunded, bucket.currency, bucket.refunded_amount);
  }
  const settled = summary.collectedCount + summary.failedCount;
  summary.successRate = settled === 0 ? null : summary.collectedCount / settled;
  return summary;
}

export type GroupBy = 'method' | 'status';

export interface ChartSeries {
  /** One row per business day: `day` and, per series, the units collected (by method) or the count (by status). */
  rows: Array<Record<string, string | number>>;
  groups: string[];
}

/**
 * The report split by `groupBy` as a chart's rows, every day from `from` to `to` present: by method,
 * what was collected in units of the currency; by status, how many payments ended so. A series is
 * named by its group, and by its currency too when the range holds more than one.
 */
export function perDay(buckets: readonly ReportBucket[], from: string, to: string, groupBy: GroupBy): ChartSeries {
  const currencies = new Set(buckets.map((bucket) => bucket.currency));
  const nameOf = (bucket: ReportBucket) => {
    const group = bucket.group ?? 'all';
    return currencies.size > 1 ? `${group} (${bucket.currency})` : group;
  };
  const table = new Map(daysBetween(from, to).map((day) => [day, new Map<string, number>()]));
  const groups = new Set<string>();
  for (const bucket of buckets) {
    const cells = table.get(bucket.date);
    if (!cells) continue;
    const name = nameOf(bucket);
    const value = groupBy === 'method' ? bucket.paid_amount / 100 : bucket.payments_count;
    if (groupBy === 'method' && bucket.paid_count === 0 && value === 0) continue;
    groups.add(name);
    cells.set(name, (cells.get(name) ?? 0) + value);
  }
  const ordered = [...groups].sort();
  return {
    groups: ordered,
    rows: [...table].map(([day, cells]) => ({ day, ...Object.fromEntries(ordered.map((group) => [group, cells.get(group) ?? 0])) })),
  };
}
