// The collections report's figures (GET /api/reports/collections), read from the counter of payments
// by the business's days (COLLECTION_COUNTS, counters/declaration.ts), never from the payments: the
// rows read grow with the range asked and the kinds of payment in it (currencies, states, methods),
// not with how many payments there are.
import { coverByPeriods } from './count-periods.js';
import { byDay, byYear, COLLECTION_COUNTS, MONTH_COLUMNS } from './counters/declaration.js';
import type { Executor } from './executor.js';

/** The payments of one kind counted on one day (or, read by month, in one month: its 1st). */
export interface CollectionPiece {
  /** `YYYY-MM-DD`, a day of the business's; the 1st of the month for a month read whole. */
  day: string;
  currency: string;
  statusId: number;
  method: string;
  /** Payments. */
  count: number;
  /** Cents: their amounts. */
  amount: number;
  /** Cents: what has been refunded of them so far. */
  refunded: number;
}

interface Row {
  on_day?: string;
  year?: number | string;
  currency: string;
  status_id: number | string;
  method: string;
  [sum: string]: unknown;
}

const KIND = ['currency', 'status_id', 'method'];
const piece = (row: Row, day: string, count: unknown, amount: unknown, refunded: unknown): CollectionPiece => ({
  day,
  currency: row.currency,
  statusId: Number(row.status_id),
  method: row.method,
  count: Number(count ?? 0),
  amount: Number(amount ?? 0),
  refunded: Number(refunded ?? 0),
});

/** The days `runs` (inclusive pairs), each kind of payment a row per day: at most a row per day, currency, state and method. */
async function dayPieces(db: Executor, businessId: number, runs: [string, string][]): Promise<CollectionPiece[]> {
  if (runs.length === 0) return [];
  const rows = await db.all<Row>(
    db
      .sql(byDay(COLLECTION_COUNTS))
      .where('business_id', businessId)
      .where((q) => {
        for (const run of runs) q.orWhereBetween('day', run);
      })
      .select(db.sql.raw('cast(day as text) as on_day'), ...KIND)
      .sum({ live: 'live', amount: 'amount', amount_refunded: 'amount_refunded' })
      .groupBy('day', ...KIND),
  );
  return rows.map((row) => piece(row, String(row.on_day), row.live, row.amount, row.amount_refunded));
}

/** Whole months `YYYY-MM`, from the yearly rows' month columns: a row per year and kind of payment. */
async function monthPieces(db: Executor, businessId: number, months: Set<string>): Promise<CollectionPiece[]> {
  if (months.size === 0) return [];
  const years = [...months].map((month) => Number(month.slice(0, 4)));
  const sums: Record<string, string> = {};
  for (const column of ['live', 'amount', 'amount_refunded'])
    for (const month of MONTH_COLUMNS) {
      const name = column === 'live' ? month : `${column}_${month}`;
      sums[name] = name;
    }
  const rows = await db.all<Row>(
    db
      .sql(byYear(COLLECTION_COUNTS))
      .where('business_id', businessId)
      .whereBetween('year', [Math.min(...years), Math.max(...years)])
      .select('year', ...KIND)
      .sum(sums)
      .groupBy('year', ...KIND),
  );
  return rows.flatMap((row) =>
    MONTH_COLUMNS.flatMap((month, i) => {
      const key = `${String(row.year).padStart(4, '0')}-${String(i + 1).padStart(2, '0')}`;
      return months.has(key) ? [piece(row, `${key}-01`, row[month], row[`amount_${month}`], row[`amount_refunded_${month}`])] : [];
    }),
  );
}

/**
 * A business's payments made on its days `from` to `to` (inclusive), by kind: per day, or with
 * `byMonth`, the months the range holds whole per month (from the yearly rows) and the days at its
 * edges per day. Kinds with nothing counted are absent.
 */
export async function collectionPieces(db: Executor, businessId: number, from: string, to: string, byMonth: boolean): Promise<CollectionPiece[]> {
  if (!byMonth) return dayPieces(db, businessId, [[from, to]]);
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
  const [whole, edges] = await Promise.all([monthPieces(db, businessId, months), dayPieces(db, businessId, cover.days)]);
  return [...whole, ...edges];
}
