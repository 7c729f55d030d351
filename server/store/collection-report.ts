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

/** The days of `runs` (inclusive pairs) summed per period and series: a row per bucket that has payments. */
async function daySums(db: Executor, businessId: number, runs: [string, string][], period: CollectionPeriod, split: CollectionSplit): Promise<CollectionSum[]> {
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
      .select(
        db.sql.raw(
          'sum(live) as payments, sum(case when status_id = ? then live else 0 end) as paid, sum(case when status_id = ? then amount else 0 end) as paid_amount, ' +
            'sum(case when status_id = ? then live else 0 end) as failed, sum(amount_refunded) as refunded',
          [PAYMENT_PAID, PAYMENT_PAID, PAYMENT_FAILED],
        ),
      )
      .groupByRaw(starts)
      .groupBy(['currency', ...(splitColumn ? [splitColumn] : [])]),
  );
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

/** Whole months `YYYY-MM`, from the yearly rows' month columns: a row per year and kind of payment, few enough to sum here. */
async function monthSums(db: Executor, businessId: number, months: Set<string>, split: CollectionSplit): Promise<CollectionSum[]> {
  if (months.size === 0) return [];
  const years = [...months].map((month) => Number(month.slice(0, 4)));
  const sums: Record<string, string> = {};
  for (const column of ['live', 'amount', 'amount_refunded'])
    for (const month of MONTH_COLUMNS) {
      const name = column === 'live' ? month : `${column}_${month}`;
      sums[name] = name;
    }
  const rows = await db.all<Row & { status_id: number | string; method: string }>(
    db
      .sql(byYear(COLLECTION_COUNTS))
      .where('business_id', businessId)
      .whereBetween('year', [Math.min(...years), Math.max(...years)])
      .select('year', 'currency', 'status_id', 'method')
      .sum(sums)
      .groupBy('year', 'currency', 'status_id', 'method'),
  );
  return rows.flatMap((row) => {
    const statusId = Number(row.status_id);
    const group = split === 'status' ? statusId : split === 'method' ? row.method : null;
    return MONTH_COLUMNS.flatMap((month, i) => {
      const key = `${String(row.year).padStart(4, '0')}-${String(i + 1).padStart(2, '0')}`;
      if (!months.has(key)) return [];
      const count = Number(row[month] ?? 0);
      const amount = Number(row[`amount_${month}`] ?? 0);
      return [
        {
          period: `${key}-01`,
          currency: row.currency,
          group,
          paymentsCount: count,
          paidCount: statusId === PAYMENT_PAID ? count : 0,
          failedCount: statusId === PAYMENT_FAILED ? count : 0,
          paidAmount: statusId === PAYMENT_PAID ? amount : 0,
          refundedAmount: Number(row[`amount_refunded_${month}`] ?? 0),
        },
      ];
    });
  });
}

/**
 * A business's payments made on its days `from` to `to` (inclusive), summed per period and series.
 * By day or week the daily rows are summed into periods; by month, the months the range holds whole
 * come from the yearly rows and the days at its edges from the daily rows. Series with nothing
 * counted are absent; a bucket may come in more than one sum (a month's yearly rows of several
 * kinds), which the reader adds up.
 */
export async function collectionSums(
  db: Executor,
  businessId: number,
  from: string,
  to: string,
  period: CollectionPeriod,
  split: CollectionSplit,
): Promise<CollectionSum[]> {
  if (period !== 'month') return daySums(db, businessId, [[from, to]], period, split);
  const cover = coverByPeriods(from, to);
  const months = new Set<string>();
  const monthKey = (year: number, month: number) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
  const addMonths = (first: string, last: string) => {
    let [year, month] = first.split('-').map(Number) as [number, number];
    while (monthKey(year, month) <= last) {
      months.add(monthKey(year, month));
      [year, month] = month === 12 ? [year + 1, 1] : [year, month + 1];
    }
  };
  for (const [first, last] of cover.years) addMonths(`${first}-01`, `${last}-12`);
  for (const [first, last] of cover.months) addMonths(first, last);
  const [whole, edges] = await Promise.all([monthSums(db, businessId, months, split), daySums(db, businessId, cover.days, 'month', split)]);
  return [...whole, ...edges];
}
