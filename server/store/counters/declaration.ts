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
// The triggers live now (migration 0031, which replaced those of 0005, 0007, 0013, 0022 and 0023):
// on PostgreSQL one trigger per counted table, `<table>_counters`, running the function of the same
// name; on SQLite `<table>_counters_insert`, `_update` and `_delete`. `liveTriggers` lists them and
// test/store/counters.test.ts checks that the database holds exactly those, beside the triggers that
// keep the events list's row per event and its count (migration 0028).
//
// Changing a counter is a new migration that calls `removeCounters` and `installCounters` (triggers.ts):
// the counts are made again from the rows, so it holds whatever an earlier migration installed.

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

export const COUNTERS: readonly Counter[] = [PAYMENT_LINK_COUNTS, OPEN_PAYMENT_LINK_COUNTS, PAYMENT_COUNTS, OPEN_LINK_PAYMENT_COUNTS];

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
export function countedTables(counters: readonly Counter[] = COUNTERS): Map<string, Counter[]> {
  const tables = new Map<string, Counter[]>();
  for (const counter of counters) tables.set(counter.table, [...(tables.get(counter.table) ?? []), counter]);
  return tables;
}

/** The names of the counting triggers the declaration makes on a database. */
export function liveTriggers(dialect: Dialect, counters: readonly Counter[] = COUNTERS): string[] {
  return [...countedTables(counters).keys()]
    .flatMap((table) => (dialect === 'postgres' ? [`${table}_counters`] : ['insert', 'update', 'delete'].map((op) => `${table}_counters_${op}`)))
    .sort();
}
