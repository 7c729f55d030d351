// The collections report's figures (GET /api/reports/collections), read from the counter of payments
// by the business's days (COLLECTION_COUNTS, counters/declaration.ts), never from the payments: the
// rows read grow with the range asked and the kinds of payment in it (currencies, states, methods),
// not with how many payments there are. The database sums the days into the report's periods and
// series, so what crosses to the service is a row per bucket, not a row per day and kind (a report
// of hundreds of days spent its time reading and adding those rows on the event loop).
import { PAYMENT_FAILED, PAYMENT_PAID } from '../domain/statuses.js';
import { coverByPeriods } from './count-periods.js';
import { byDay, byYear, COLLECTION_COUNTS, MONTH_COLUMNS } from './counters/declaration.js';
import type { Executor } from './executor.js';

export type CollectionPeriod = 'day' | 'week' | 'month';
/** The column a report is split by, if any. */
export type CollectionSplit = 'method' | 'status' | undefined;

/** The payments of one series (a currency, and a method or state when split) counted in one period. */
export interface CollectionSum {
  /** `YYYY-MM-DD`: the period's first day (the day, the Monday of its week, the 1st of its month). */
  period: string;
  currency: string;
  /** The method, or the state's id, when split by one; null otherwise. */
  group: string | number | null;
  paymentsCount: number;
  paidCount: number;
  failedCount: number;
  paidAmount: number;
  /** Cents refunded so far of the payments made in the period, whatever their state. */
  refundedAmount: number;
}

interface Row {
  period?: string;
  year?: number | string;
  currency: string;
  split?: string | number;
  [sum: string]: unknown;
}

const SPLIT_COLUMN = { method: 'method', status: 'status_id' } as const;

/** The first day of the period a counter row's `day` falls in, as the dialect writes it. */
function periodOfDay(db: Executor, period: CollectionPeriod): string {
  if (period === 'day') return 'day';
  if (db.dialect === 'postgres') return `date_trunc('${period}', day::timestamp)::date`;
  // SQLite: the Sunday on or after the day, less six days, is the Monday of its ISO week.
  return period === 'week' ? `date(day, 'weekday 0', '-6 days')` : `date(day, 'start of month')`;
}

const FIGURES =
  'sum(live) as payments, sum(case when status_id = ? then live else 0 end) as paid, sum(case when status_id = ? then amount else 0 end) as paid_amount, ' +
  'sum(case when status_id = ? then live else 0 end) as failed, sum(amount_refunded) as refunded';

/**
 * The days of `runs` (inclusive pairs) summed per period and series: a row per bucket that has
 * payments, or undefined when there are more than `maxRows` of them.
 */
async function daySums(
  db: Executor,
  businessId: number,
  runs: [string, string][],
  period: CollectionPeriod,
  split: CollectionSplit,
  maxRows: number,
): Promise<CollectionSum[] | undefined> {
  if (runs.length === 0) return [];
  const starts = periodOfDay(db, period);
  const splitColumn = split && SPLIT_COLUMN[split];
  const rows = await db.all<Row>(
    db
      .sql(byDay(COLLECTION_COUNTS))
      .where('business_id', businessId)
      .where((q) => {
        for (const run of runs) q.orWhereBetween('day', run);
      })
      .select(db.sql.raw(`cast(${starts} as text) as period`), 'currency', ...(splitColumn ? [db.sql.ref(splitColumn).as('split')] : []))
      .select(db.sql.raw(FIGURES, [PAYMENT_PAID, PAYMENT_PAID, PAYMENT_FAILED]))
      .groupByRaw(starts)
      .groupBy(['currency', ...(splitColumn ? [splitColumn] : [])])
      .limit(maxRows + 1),
  );
  if (rows.length > maxRows) return undefined;
  return rows.map((row) => ({
    period: String(row.period),
    currency: row.currency,
    group: splitOf(row, split),
    paymentsCount: Number(row.payments ?? 0),
    paidCount: Number(row.paid ?? 0),
    failedCount: Number(row.failed ?? 0),
    paidAmount: Number(row.paid_amount ?? 0),
    refundedAmount: Number(row.refunded ?? 0),
  }));
}

const splitOf = (row: Row, split: CollectionSplit): string | number | null =>
  split === 'status' ? Number(row.split) : split === 'method' ? String(row.split) : null;

/** Months since January of year 0. */
type MonthIndex = number;

const monthOf = (key: string): MonthIndex => Number(key.slice(0, 4)) * 12 + Number(key.slice(5, 7)) - 1;
const firstOfMonth = (index: MonthIndex) => `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;

/**
 * Whole months (inclusive runs of month indexes), from the yearly rows' month columns, summed per
 * year and series by the database (a row per year and series, so a year's rows are never more than
 * the report's series); undefined past `maxRows`. A month without payments of a series gives no sum.
 */
async function monthSums(
  db: Executor,
  businessId: number,
  runs: [MonthIndex, MonthIndex][],
  split: CollectionSplit,
  maxRows: number,
): Promise<CollectionSum[] | undefined> {
  if (runs.length === 0) return [];
  const splitColumn = split && SPLIT_COLUMN[split];
  const figures = MONTH_COLUMNS.map(
    (month) =>
      `sum(${month}) as payments_${month}, sum(case when status_id = ? then ${month} else 0 end) as paid_${month}, ` +
      `sum(case when status_id = ? then amount_${month} else 0 end) as paid_amount_${month}, ` +
      `sum(case when status_id = ? then ${month} else 0 end) as failed_${month}, sum(amount_refunded_${month}) as refunded_${month}`,
  );
  const rows = await db.all<Row>(
    db
      .sql(byYear(COLLECTION_COUNTS))
      .where('business_id', businessId)
      .whereBetween('year', [Math.floor(Math.min(...runs.map(([first]) => first)) / 12), Math.floor(Math.max(...runs.map(([, last]) => last)) / 12)])
      .select('year', 'currency', ...(splitColumn ? [db.sql.ref(splitColumn).as('split')] : []))
      .select(
        db.sql.raw(
          figures.join(', '),
          MONTH_COLUMNS.flatMap(() => [PAYMENT_PAID, PAYMENT_PAID, PAYMENT_FAILED]),
        ),
      )
      .groupBy(['year', 'currency', ...(splitColumn ? [splitColumn] : [])])
      .limit(maxRows + 1),
  );
  if (rows.length > maxRows) return undefined;
  const within = (index: MonthIndex) => runs.some(([first, last]) => index >= first && index <= last);
  return rows.flatMap((row) =>
    MONTH_COLUMNS.flatMap((month, i) => {
      const index = Number(row.year) * 12 + i;
      const sum = {
        period: firstOfMonth(index),
        currency: row.currency,
        group: splitOf(row, split),
        paymentsCount: Number(row[`payments_${month}`] ?? 0),
        paidCount: Number(row[`paid_${month}`] ?? 0),
        failedCount: Number(row[`failed_${month}`] ?? 0),
        paidAmount: Number(row[`paid_amount_${month}`] ?? 0),
        refundedAmount: Number(row[`refunded_${month}`] ?? 0),
      };
      return within(index) && (sum.paymentsCount !== 0 || sum.refundedAmount !== 0) ? [sum] : [];
    }),
  );
}

/**
 * A business's payments made on its days `from` to `to` (inclusive), summed per period and series.
 * By day or week the daily rows are summed into periods; by month, the months the range holds whole
 * come from the yearly rows and the days at its edges from the daily rows. Series with nothing
 * counted are absent; a bucket may come in more than one sum (a whole month's and its edge days'),
 * which the reader adds up. Undefined when a statement would return more than `maxRows` rows: each
 * row is a bucket of the report (or, by month, a year of a series), so the report would hold more.
 */
export async function collectionSums(
  db: Executor,
  businessId: number,
  from: string,
  to: string,
  period: CollectionPeriod,
  split: CollectionSplit,
  maxRows: number,
): Promise<CollectionSum[] | undefined> {
  if (period !== 'month') return daySums(db, businessId, [[from, to]], period, split, maxRows);
  const cover = coverByPeriods(from, to);
  const runs: [MonthIndex, MonthIndex][] = [
    ...cover.years.map(([first, last]): [MonthIndex, MonthIndex] => [Number(first) * 12, Number(last) * 12 + 11]),
    ...cover.months.map(([first, last]): [MonthIndex, MonthIndex] => [monthOf(first), monthOf(last)]),
  ];
  const [whole, edges] = await Promise.all([monthSums(db, businessId, runs, split, maxRows), daySums(db, businessId, cover.days, 'month', split, maxRows)]);
  return whole && edges && [...whole, ...edges];
}
