// The collections report (GET /api/reports/collections): a business's payments per day, week or
// month of its own time zone, optionally split by method or state, each bucket with what a
// collections chart shows: how many payments, how many were paid and for how much, how many failed,
// and what has been refunded of them. Read from counters (store/collection-report.ts), so it costs
// the same at a thousand payments or a million.
import { randomUUID } from 'node:crypto';
import { DEFAULT_TIME_ZONE, localDay } from '../../domain/local-days.js';
import { defaultRange, periodPosition, periodsOf, periodStart, rangeProblem, type Interval } from '../../domain/report-intervals.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../../domain/statuses.js';
import { findBusinessTimeZone } from '../../store/business-profile.js';
import { collectionSums } from '../../store/collection-report.js';
import { releaseReportLease, takeReportLease } from '../../store/report-leases.js';
import type { Executor } from '../../store/executor.js';
import type { UseCaseContext } from '../platform/context.js';

export type ReportGroupBy = 'method' | 'status';
/** Whether the buckets of a series without payments travel (the default, for a chart without gaps) or are left out. */
export type EmptyBuckets = 'include' | 'omit';

export interface CollectionsReportRequest {
  /** Days of the business's time zone, both included; the default range of the interval without. */
  range?: { from: string; to: string };
  interval: Interval;
  groupBy?: ReportGroupBy;
  emptyBuckets?: EmptyBuckets;
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

/** The most buckets (periods x series) a report holds, zeros included: past it the request is refused, saying how to narrow it. */
export const MAX_REPORT_BUCKETS = 20_000;
/** How long a report's lease lasts: a report whose process stopped frees its business after it. */
const REPORT_LEASE_MS = 10_000;
/** What a second report of a business is told to wait (Retry-After). */
export const REPORT_RETRY_AFTER_SECONDS = 1;

export type CollectionsReportOutcome =
  { result: 'refused'; message: string } | { result: 'busy'; retryAfterSeconds: number } | { result: 'report'; report: CollectionsReport };

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

const isEmpty = (bucket: CollectionsBucket) =>
  bucket.paymentsCount === 0 && bucket.paidCount === 0 && bucket.failedCount === 0 && bucket.paidAmount === 0 && bucket.refundedAmount === 0;

function tooManyBuckets(interval: Interval, periods: number, series?: number): string {
  const held = series === undefined ? `${periods} ${interval}s, times its series` : `${periods} ${interval}s x ${series} series`;
  const longer = interval === 'month' ? '' : interval === 'day' ? ', ask for interval=week or interval=month' : ', ask for interval=month';
  return (
    `The report would hold more than ${MAX_REPORT_BUCKETS} buckets (${held}). ` +
    `Narrow filter[created_at_between]${longer}, or leave out group_by so that each currency is one series.`
  );
}

/**
 * The report over the range asked (or the interval's default range, ending today in the business's
 * zone). Every series (a currency, and a method or state when split) that has a payment in the range
 * gets a bucket for every period of it, zeros included, so a chart needs no gaps filled (or, with
 * emptyBuckets 'omit', only its buckets that count something); the buckets come by date, then
 * currency, then group. A report holds at most MAX_REPORT_BUCKETS buckets (periods x series, zeros
 * included, whichever buckets travel), and a business runs one at a time (across instances).
 */
export async function collectionsReport(
  ctx: UseCaseContext,
  businessId: number,
  request: CollectionsReportRequest,
  now: Date = new Date(),
): Promise<CollectionsReportOutcome> {
  const timeZone = (await findBusinessTimeZone(ctx.db, businessId)) ?? DEFAULT_TIME_ZONE;
  const { from, to } = request.range ?? defaultRange(localDay(now, timeZone), request.interval);
  const problem = rangeProblem(from, to, request.interval);
  if (problem) return { result: 'refused', message: problem };

  const turn = await waitForTurn(ctx.db, businessId);
  if (!turn) return { result: 'busy', retryAfterSeconds: REPORT_RETRY_AFTER_SECONDS };
  const holder = randomUUID();
  if (!(await takeReportLease(ctx.db, businessId, holder, REPORT_LEASE_MS))) {
    turn();
    return { result: 'busy', retryAfterSeconds: REPORT_RETRY_AFTER_SECONDS };
  }
  try {
    const periods = periodsOf(from, to, request.interval);
    const sums = await collectionSums(ctx.db, businessId, from, to, request.interval, request.groupBy, MAX_REPORT_BUCKETS);
    if (!sums) return { result: 'refused', message: tooManyBuckets(request.interval, periods.count) };
    // Each sum finds its bucket by position (its period's index, its series' column), not by a key built and hashed per sum.
    const series = new Map<string, Map<string | null, { currency: string; group: string | null; buckets: CollectionsBucket[] }>>();
    for (const sum of sums) {
      const period = periodPosition(periods, sum.period);
      if (period === undefined) throw new Error(`the collections counter summed ${sum.period}, not a ${request.interval} of ${from} to ${to}`);
      const group = groupName(sum.group);
      let ofCurrency = series.get(sum.currency);
      if (!ofCurrency) series.set(sum.currency, (ofCurrency = new Map()));
      let one = ofCurrency.get(group);
      if (!one) ofCurrency.set(group, (one = { currency: sum.currency, group, buckets: [] }));
      const bucket = (one.buckets[period] ??= zero(periodStart(periods, period), sum.currency, group));
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
    if (periods.count * ordered.length > MAX_REPORT_BUCKETS)
      return { result: 'refused', message: tooManyBuckets(request.interval, periods.count, ordered.length) };
    const omit = request.emptyBuckets === 'omit';
    const buckets: CollectionsBucket[] = [];
    for (let period = 0; period < periods.count; period += 1) {
      const date = periodStart(periods, period);
      for (const { currency, group, buckets: filled } of ordered) {
        const bucket = filled[period];
        if (!omit) buckets.push(bucket ?? zero(date, currency, group));
        else if (bucket && !isEmpty(bucket)) buckets.push(bucket);
      }
    }
    return { result: 'report', report: { timeZone, interval: request.interval, groupBy: request.groupBy ?? null, from, to, buckets } };
  } finally {
    await releaseReportLease(ctx.db, businessId, holder).finally(turn);
  }
}

/** Reports of a business asked of this instance while one runs that may wait their turn here (a chart asks for two at once). */
const WAITING_PER_BUSINESS = 3;
/** Each business's reports in this instance: the last one's turn, ending when it does, and how many wait. */
const queues = new WeakMap<Executor, Map<number, { last: Promise<void>; waiting: number }>>();

/**
 * Waits for the business's reports asked of this instance before this one, in order, and answers the
 * function that ends this one's turn; undefined (busy) when more than WAITING_PER_BUSINESS already wait.
 * The lease then decides between instances; waiting here costs nothing but a promise.
 */
export async function waitForTurn(db: Executor, businessId: number): Promise<(() => void) | undefined> {
  let byBusiness = queues.get(db);
  if (!byBusiness) queues.set(db, (byBusiness = new Map()));
  const queue = byBusiness.get(businessId) ?? { last: Promise.resolve(), waiting: 0 };
  if (queue.waiting > WAITING_PER_BUSINESS) return undefined;
  let end!: () => void;
  const mine = new Promise<void>((resolve) => (end = resolve));
  const before = queue.last;
  queue.last = mine;
  queue.waiting += 1;
  byBusiness.set(businessId, queue);
  await before;
  return () => {
    queue.waiting -= 1;
    if (queue.waiting === 0) byBusiness.delete(businessId);
    end();
  };
}
