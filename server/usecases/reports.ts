// The collections report (GET /api/reports/collections): a business's payments per day, week or
// month of its own time zone, optionally split by method or state, each bucket with what a
// collections chart shows: how many payments, how many were paid and for how much, how many failed,
// and what has been refunded of them. Read from counters (store/collection-report.ts), so it costs
// the same at a thousand payments or a million.
import { DEFAULT_TIME_ZONE, localDay } from '../domain/local-days.js';
import { bucketStart, bucketStarts, defaultRange, rangeTooLong, type Interval } from '../domain/report-intervals.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING } from '../domain/statuses.js';
import { findBusinessTimeZone } from '../store/business-profile.js';
import { collectionPieces, type CollectionPiece } from '../store/collection-report.js';
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

function groupOf(piece: CollectionPiece, groupBy: ReportGroupBy | undefined): string | null {
  if (groupBy === 'method') return piece.method;
  if (groupBy === 'status') return STATUS_NAMES[piece.statusId] ?? String(piece.statusId);
  return null;
}

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

  const pieces = await collectionPieces(ctx.db, businessId, from, to, request.interval === 'month');
  const series = new Map<string, { currency: string; group: string | null }>();
  const filled = new Map<string, CollectionsBucket>();
  // A range's pieces share a few hundred days and a few series: each day's bucket and each series' key
  // is worked out once, not once a piece (a long range's report spent most of its time there).
  const startOfDay = new Map<string, string>();
  const seriesKeys = new Map<string, Map<string | null, string>>();
  for (const piece of pieces) {
    const group = groupOf(piece, request.groupBy);
    let keysOfCurrency = seriesKeys.get(piece.currency);
    if (!keysOfCurrency) seriesKeys.set(piece.currency, (keysOfCurrency = new Map()));
    let seriesKey = keysOfCurrency.get(group);
    if (seriesKey === undefined) {
      seriesKey = JSON.stringify([piece.currency, group]);
      keysOfCurrency.set(group, seriesKey);
      series.set(seriesKey, { currency: piece.currency, group });
    }
    let date = startOfDay.get(piece.day);
    if (date === undefined) startOfDay.set(piece.day, (date = bucketStart(piece.day, request.interval)));
    const key = `${date} ${seriesKey}`;
    const bucket = filled.get(key) ?? zero(date, piece.currency, group);
    bucket.paymentsCount += piece.count;
    if (piece.statusId === PAYMENT_PAID) {
      bucket.paidCount += piece.count;
      bucket.paidAmount += piece.amount;
    }
    if (piece.statusId === PAYMENT_FAILED) bucket.failedCount += piece.count;
    bucket.refundedAmount += piece.refunded;
    filled.set(key, bucket);
  }
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const ordered = [...series.entries()].sort(([, a], [, b]) => compare(a.currency, b.currency) || compare(a.group ?? '', b.group ?? ''));
  const buckets = bucketStarts(from, to, request.interval).flatMap((date) =>
    ordered.map(([seriesKey, { currency, group }]) => filled.get(`${date} ${seriesKey}`) ?? zero(date, currency, group)),
  );
  return { result: 'report', report: { timeZone, interval: request.interval, groupBy: request.groupBy ?? null, from, to, buckets } };
}
