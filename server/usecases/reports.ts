// The collections report (GET /api/reports/collections): a business's payments per day, week or
// month of its own time zone, optionally split by method or state, each bucket with what a
// collections chart shows: how many payments, how many were paid and for how much, how many failed,
// and what has been refunded of them. Read from counters (store/collection-report.ts), so it costs
// the same at a thousand payments or a million.
import { DEFAULT_TIME_ZONE, localDay } from '../domain/local-days.js';
import { bucketStarts, defaultRange, rangeTooLong, type Interval } from '../domain/report-intervals.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../domain/statuses.js';
import { findBusinessTimeZone } from '../store/business-profile.js';
import { collectionSums } from '../store/collection-report.js';
import type { UseCaseContext } from './context.js';

export type ReportGroupBy = 'method' | 'status';

export interface CollectionsReportRequest {
  /** Days of the business's time zone, both included; the default range of the interval without. */
  range?: { from: string; to: string };
  interval: Interval;
  groupBy?: ReportGroupBy;
}

export interface CollectionsBucket {
  /** The bucket's first day: the day, the Monday of the week, the 1st of the month. */
  date: string;
  currency: string;
  /** The method or state the bucket holds, when the report is split by one; null otherwise. */
  group: string | null;
  paymentsCount: number;
  paidCount: number;
  failedCount: number;
  paidAmount: number;
  refundedAmount: number;
}

export interface CollectionsReport {
  timeZone: string;
  interval: Interval;
  groupBy: ReportGroupBy | null;
  from: string;
  to: string;
  buckets: CollectionsBucket[];
}

export type CollectionsReportOutcome = { result: 'too_long'; message: string } | { result: 'report'; report: CollectionsReport };

const STATUS_NAMES: Record<number, string> = { [PAYMENT_PAID]: 'paid', [PAYMENT_PENDING]: 'pending', [PAYMENT_FAILED]: 'failed' };

const groupName = (group: string | number | null): string | null => (typeof group === 'number' ? (STATUS_NAMES[group] ?? String(group)) : group);

const zero = (date: string, currency: string, group: string | null): CollectionsBucket => ({
  date,
  currency,
  group,
  paymentsCount: 0,
  paidCount: 0,
  failedCount: 0,
  paidAmount: 0,
  refundedAmount: 0,
});

/**
 * The report over the range asked (or the interval's default range, ending today in the business's
 * zone). Every series (a currency, and a method or state when split) that has a payment in the range
 * gets a bucket for every period of it, zeros included, so a chart needs no gaps filled; the buckets
 * come by date, then currency, then group.
 */
export async function collectionsReport(
  ctx: UseCaseContext,
  businessId: number,
  request: CollectionsReportRequest,
  now: Date = new Date(),
): Promise<CollectionsReportOutcome> {
  const timeZone = (await findBusinessTimeZone(ctx.db, businessId)) ?? DEFAULT_TIME_ZONE;
  const { from, to } = request.range ?? defaultRange(localDay(now, timeZone), request.interval);
  const tooLong = rangeTooLong(from, to, request.interval);
  if (tooLong) return { result: 'too_long', message: tooLong };

  const sums = await collectionSums(ctx.db, businessId, from, to, request.interval, request.groupBy);
  // A long range holds hundreds of periods: each sum finds its bucket by position (its period's index,
  // its series' column), not by a key built and hashed per sum.
  const dates = bucketStarts(from, to, request.interval);
  const periodOf = new Map(dates.map((date, index) => [date, index]));
  const series = new Map<string, Map<string | null, { currency: string; group: string | null; buckets: CollectionsBucket[] }>>();
  for (const sum of sums) {
    const period = periodOf.get(sum.period);
    if (period === undefined) throw new Error(`the collections counter summed ${sum.period}, not a ${request.interval} of ${from} to ${to}`);
    const group = groupName(sum.group);
    let ofCurrency = series.get(sum.currency);
    if (!ofCurrency) series.set(sum.currency, (ofCurrency = new Map()));
    let one = ofCurrency.get(group);
    if (!one) ofCurrency.set(group, (one = { currency: sum.currency, group, buckets: [] }));
    const bucket = (one.buckets[period] ??= zero(dates[period]!, sum.currency, group));
    bucket.paymentsCount += sum.paymentsCount;
    bucket.paidCount += sum.paidCount;
    bucket.paidAmount += sum.paidAmount;
    bucket.failedCount += sum.failedCount;
    bucket.refundedAmount += sum.refundedAmount;
  }
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const ordered = [...series.values()]
    .flatMap((ofCurrency) => [...ofCurrency.values()])
    .sort((a, b) => compare(a.currency, b.currency) || compare(a.group ?? '', b.group ?? ''));
  const buckets = dates.flatMap((date, period) => ordered.map(({ currency, group, buckets: filled }) => filled[period] ?? zero(date, currency, group)));
  return { result: 'report', report: { timeZone, interval: request.interval, groupBy: request.groupBy ?? null, from, to, buckets } };
}
