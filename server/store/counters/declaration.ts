// Which totals the database keeps, declared once. Each counter counts the rows of one table by
// business, by the typed columns it names (a status, a method, a refund state, an open link) and by
// the UTC day, month and year the row was created, so that a list's total, unfiltered or filtered by
// those columns and a created_at range, is a sum of a bounded number of counter rows, never a count
// of the table (see record-counts.ts for the reading, count-periods.ts for the periods).
//
// Every counter keeps two tables, both written directly by the triggers generated from this
// declaration (triggers.ts), never from each other:
//   <name>_by_day:  one row per business, column values, UTC day and slot;
//   <name>_by_year: one row per business, column values, UTC year and slot, holding the year's total
//                   (`live`) and each month's (`m01` to `m12`), so a month and its year are one row.
// A counted insert therefore writes two counter rows per counter, a change that moves a row between
// counted values four (its old values down, its new ones up), a change that moves nothing none.
//
// Slots: on PostgreSQL a counter row every payment of a business writes would be a lock all of them
// queue on until their transactions commit. Each counted row is counted in one of `slots` rows, chosen
// from its id, so concurrent writers mostly meet different rows, and a total sums the slots. SQLite
// has one writer at a time: one slot.
//
// The triggers live now (installed by `migrations/0031_declared_counters.ts`, which replaced the earlier
// per-period triggers, and `migrations/0036_collection_counts.ts`, which made the payments' again with
// the collections report's counter among them):
// on PostgreSQL one trigger per counted table, `<table>_counters`, running the function of the same
// name; on SQLite `<table>_counters_insert`, `_update` and `_delete`. `liveTriggers` lists them and
// test/store/counters.test.ts checks that the database holds exactly those, beside the triggers that
// keep the events list's row per event and its count (`migrations/0028_webhook_events.ts`).
//
// Changing a counter is a new migration that calls `removeCounters` and `installCounters` (triggers.ts):
// the counts are made again from the rows, so it holds whatever an earlier migration installed.
//
// A counter may also sum columns of its rows beside counting them (`sums`: amounts), and count a row
// on a day of its own instead of its UTC day of creation (`day`): the collections report's counter
// (COLLECTION_COUNTS, `migrations/0036_collection_counts.ts`) sums payments' amounts and refunds by the day they were made on
// in the business's time zone. A summed column changed without moving its row (a refund) adds the
// difference to the row's two counter rows.
import { DEFAULT_TIME_ZONE } from '../../domain/local-days.js';

export interface CountedColumn {
  /** The column of the counted table, copied as it is into the counter's rows. */
  name: string;
  type: 'string' | 'integer';
  /** Characters, for a string column. */
  length?: number;
}

export interface Counter {
  /** The counter's tables are `<name>_by_day` and `<name>_by_year`. */
  name: string;
  /** The table whose rows are counted. */
  table: string;
  /**
   * Columns every read of the counter names (an open link's id): they come first in the key, after
   * business_id and before the period, so one link's rows of a range are read together.
   */
  within?: CountedColumn[];
  /** Columns a read may filter on or not: they come after the period in the key. */
  by: CountedColumn[];
  /** The rows counted, as an SQL condition on `row`, and the columns it reads; every row without one. */
  counts?: { columns: string[]; where: (row: string) => string };
  /**
   * Integer columns of the counted rows summed beside the count: each a column of the counter's
   * rows (the day's, the year's), and of the yearly rows one per month too (`<column>_m01` to `_m12`).
   */
  sums?: string[];
  /**
   * The day a row is counted on, as SQL on `row` for each database (a `YYYY-MM-DD` day), and the
   * columns it reads; its UTC day of creation without one. Its year and month are those of that day.
   */
  day?: { columns: string[]; sql: (row: string, dialect: Dialect) => string };
}

const live = { columns: ['deleted_at'], where: (row: string) => `${row}.deleted_at is null` };

export const PAYMENT_LINK_COUNTS: Counter = {
  name: 'payment_link_counts',
  table: 'payment_links',
  by: [{ name: 'status', type: 'string', length: 16 }],
  counts: live,
};

export const OPEN_PAYMENT_LINK_COUNTS: Counter = {
  name: 'open_payment_link_counts',
  table: 'open_payment_links',
  by: [{ name: 'status_id', type: 'integer' }],
  counts: live,
};

const PAYMENT_STATE: CountedColumn[] = [
  { name: 'status_id', type: 'integer' },
  { name: 'refund_state', type: 'integer' },
  { name: 'method', type: 'string', length: 20 },
];

export const PAYMENT_COUNTS: Counter = { name: 'payment_counts', table: 'payments', by: PAYMENT_STATE };

/** A busy open link's payments, which a filter on the link matches all of. */
export const OPEN_LINK_PAYMENT_COUNTS: Counter = {
  name: 'open_link_payment_counts',
  table: 'payments',
  within: [{ name: 'open_payment_link_id', type: 'string', length: 24 }],
  by: PAYMENT_STATE,
  counts: { columns: ['open_payment_link_id'], where: (row) => `${row}.open_payment_link_id is not null` },
};

/** The row counters, keyed by UTC day, as `migrations/0031_declared_counters.ts` installed them: the lists' totals. */
export const COUNTERS: readonly Counter[] = [PAYMENT_LINK_COUNTS, OPEN_PAYMENT_LINK_COUNTS, PAYMENT_COUNTS, OPEN_LINK_PAYMENT_COUNTS];

/**
 * A business's payments by the day they were made on in its time zone (`local_day`, set when the
 * payment is recorded, `migrations/0036_collection_counts.ts`), by currency, state and method, with their amounts and what
 * has been refunded of them: the collections report (store/collection-report.ts). A row inserted
 * without its local day (only by hand: the store always sets it) is counted on its day in the default
 * zone, Malaysia's, which has kept UTC+8 all year since 1982 (SQLite has no time zones to ask).
 */
export const COLLECTION_COUNTS: Counter = {
  name: 'collection_counts',
  table: 'payments',
  by: [
    { name: 'currency', type: 'string', length: 3 },
    { name: 'status_id', type: 'integer' },
    { name: 'method', type: 'string', length: 20 },
  ],
  sums: ['amount', 'amount_refunded'],
  day: {
    columns: ['local_day', 'created_at'],
    sql: (row, dialect) =>
      dialect === 'postgres'
        ? `coalesce(${row}.local_day, (${row}.created_at at time zone '${DEFAULT_TIME_ZONE}')::date)`
        : `coalesce(${row}.local_day, date(${row}.created_at, '+8 hours'))`,
  },
};

/** Every counter the database keeps now (0031's and 0036's). */
export const LIVE_COUNTERS: readonly Counter[] = [...COUNTERS, COLLECTION_COUNTS];

export type Dialect = 'sqlite' | 'postgres';

/**
 * Rows each counted row may be counted in; a power of two (the slot is a byte of a hash modulo this).
 * The triggers are made with it: a new value takes a migration that makes them again, but no change to
 * the rows, since a total sums whatever slots hold counts.
 */
export const SLOTS: Record<Dialect, number> = { sqlite: 1, postgres: 16 };

export const MONTH_COLUMNS = Array.from({ length: 12 }, (_, i) => `m${String(i + 1).padStart(2, '0')}`);

export const byDay = (counter: Counter) => `${counter.name}_by_day`;
export const byYear = (counter: Counter) => `${counter.name}_by_year`;

/** The counted tables, each with its counters: one trigger (set) per table runs them all. */
export function countedTables(counters: readonly Counter[] = LIVE_COUNTERS): Map<string, Counter[]> {
  const tables = new Map<string, Counter[]>();
  for (const counter of counters) tables.set(counter.table, [...(tables.get(counter.table) ?? []), counter]);
  return tables;
}

/** The names of the counting triggers the declaration makes on a database. */
export function liveTriggers(dialect: Dialect, counters: readonly Counter[] = LIVE_COUNTERS): string[] {
  return [...countedTables(counters).keys()]
    .flatMap((table) => (dialect === 'postgres' ? [`${table}_counters`] : ['insert', 'update', 'delete'].map((op) => `${table}_counters_${op}`)))
    .sort();
}
