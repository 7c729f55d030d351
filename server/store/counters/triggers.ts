// The counters' tables and triggers, generated for SQLite and PostgreSQL from the declaration
// (declaration.ts), and the counts made once from the rows when they are installed.
import type { Knex } from 'knex';
import { byDay, byYear, countedTables, MONTH_COLUMNS, SLOTS, type Counter, type Dialect } from './declaration.js';

export const dialectOf = (knex: Knex): Dialect => (knex.client.config.client === 'pg' ? 'postgres' : 'sqlite');

/**
 * SQL for the day, year and month a counter counts a row on, and its slot; `row` is `new`, `old` or a
 * table alias. The day is the row's UTC day of creation unless the counter declares its own.
 */
function periods(dialect: Dialect, counter: Counter) {
  const own = counter.day;
  const utc = (row: string) => `${row}.created_at at time zone 'UTC'`;
  if (dialect === 'postgres') {
    const slots = SLOTS.postgres;
    const day = (row: string) => (own ? own.sql(row, dialect) : `(${utc(row)})::date`);
    return {
      day,
      year: (row: string) => (own ? `extract(year from ${day(row)})::integer` : `extract(year from ${utc(row)})::integer`),
      month: (row: string) => (own ? `extract(month from ${day(row)})::integer` : `extract(month from ${utc(row)})::integer`),
      // A byte of the id's hash: any id, evenly spread, and the same slot for every change of one row.
      slot: (row: string) => (slots === 1 ? '0' : `get_byte(decode(md5(${row}._id), 'hex'), 0) % ${slots}`),
    };
  }
  // Timestamps are ISO text in UTC on SQLite (store/timestamps.ts), days `YYYY-MM-DD`: both start with the date.
  const dated = (row: string) => (own ? own.sql(row, dialect) : `${row}.created_at`);
  return {
    day: (row: string) => (own ? own.sql(row, dialect) : `substr(${row}.created_at, 1, 10)`),
    year: (row: string) => `cast(substr(${dated(row)}, 1, 4) as integer)`,
    month: (row: string) => `cast(substr(${dated(row)}, 6, 2) as integer)`,
    slot: () => '0',
  };
}

/** The columns of a counter's yearly rows that hold each month's part of `column` (the count: `live`). */
const monthColumns = (column: string) => (column === 'live' ? MONTH_COLUMNS : MONTH_COLUMNS.map((month) => `${column}_${month}`));

const keyOf = (counter: Counter) => [...(counter.within ?? []), ...counter.by].map((column) => column.name);

/** The key of a counter's table: business, the columns reads always name, the period, the others, the slot. */
function primaryKey(counter: Counter, period: 'day' | 'year'): string[] {
  return ['business_id', ...(counter.within ?? []).map((c) => c.name), period, ...counter.by.map((c) => c.name), 'slot'];
}

async function createTables(knex: Knex, counter: Counter): Promise<void> {
  for (const period of ['day', 'year'] as const) {
    await knex.schema.createTable(period === 'day' ? byDay(counter) : byYear(counter), (table) => {
      table.integer('business_id').notNullable().references('id').inTable('businesses');
      for (const column of [...(counter.within ?? []), ...counter.by]) {
        if (column.type === 'integer') table.integer(column.name).notNullable();
        else table.string(column.name, column.length).notNullable();
      }
      if (period === 'day') table.date('day').notNullable();
      else table.integer('year').notNullable();
      table.smallint('slot').notNullable();
      for (const column of ['live', ...(counter.sums ?? [])]) {
        table.bigInteger(column).notNullable();
        if (period === 'year') for (const month of monthColumns(column)) table.bigInteger(month).notNullable();
      }
      table.primary(primaryKey(counter, period));
    });
  }
}

/** What one change adds to a row's counts, as SQL: to the count (`live`) and to each summed column. */
interface Delta {
  live: string;
  sums: Record<string, string>;
}

/** A row counted in (`1`) or out (`-1`): one to the count, its values to the sums. */
function whole(counter: Counter, row: string, sign: 1 | -1): Delta {
  return {
    live: String(sign),
    sums: Object.fromEntries((counter.sums ?? []).map((column) => [column, sign === 1 ? `${row}.${column}` : `-${row}.${column}`])),
  };
}

/** A row that stays where it is counted while its summed values change: the differences alone. */
function difference(counter: Counter): Delta {
  return { live: '0', sums: Object.fromEntries((counter.sums ?? []).map((column) => [column, `new.${column} - old.${column}`])) };
}

/** The statements that add `delta` to the counts `row` is counted in, if `row` is counted and `also` holds. */
function bumps(dialect: Dialect, counter: Counter, row: string, delta: Delta, also?: string): string[] {
  const at = periods(dialect, counter);
  const columns = keyOf(counter);
  const values = columns.map((name) => `${row}.${name}`);
  const counted: [string, string][] = [['live', delta.live], ...(counter.sums ?? []).map((column): [string, string] => [column, delta.sums[column]!])];
  // INSERT ... SELECT ... WHERE makes a conditional bump one statement on both databases (a SQLite
  // trigger body has no IF); the WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.
  const where = [counter.counts?.where(row) ?? 'true', ...(also ? [also] : [])].join(' and ');
  const upsert = (table: string, period: 'day' | 'year', periodValue: string, extra: { names: string[]; values: string[] }) => {
    const names = ['business_id', ...columns, period, 'slot', ...counted.map(([name]) => name), ...extra.names];
    const selected = [`${row}.business_id`, ...values, periodValue, at.slot(row), ...counted.map(([, value]) => value), ...extra.values];
    const added = [...counted.map(([name]) => name), ...extra.names].map((name) => `${name} = ${table}.${name} + excluded.${name}`).join(', ');
    return `insert into ${table} (${names.join(', ')}) select ${selected.join(', ')} where ${where}
      on conflict (${primaryKey(counter, period).join(', ')}) do update set ${added};`;
  };
  const byMonth = counted.flatMap(([name, value]) =>
    monthColumns(name).map((month, i) => [month, `case when ${at.month(row)} = ${i + 1} then ${value} else 0 end`]),
  );
  return [
    upsert(byDay(counter), 'day', at.day(row), { names: [], values: [] }),
    upsert(byYear(counter), 'year', at.year(row), { names: byMonth.map(([name]) => name!), values: byMonth.map(([, value]) => value!) }),
  ];
}

/** True when an update leaves the row where it is counted: same business, values, day and whether it counts. */
function unmoved(dialect: Dialect, counter: Counter): string {
  const at = periods(dialect, counter);
  const same = (a: string, b: string) => `${a} is not distinct from ${b}`;
  return [
    ...['business_id', ...keyOf(counter)].map((name) => same(`old.${name}`, `new.${name}`)),
    same(at.day('old'), at.day('new')),
    ...(counter.counts ? [same(`(${counter.counts.where('old')})`, `(${counter.counts.where('new')})`)] : []),
  ].join(' and ');
}

/** True when an update changes a summed value: false for a counter that sums nothing. */
function resummed(counter: Counter): string {
  const sums = counter.sums ?? [];
  return sums.length === 0 ? 'false' : sums.map((column) => `old.${column} is distinct from new.${column}`).join(' or ');
}

/** The columns whose change can move a row of `table` between counts, or change what it adds to their sums. */
function watched(counters: Counter[]): string[] {
  return [
    ...new Set(
      counters.flatMap((counter) => [
        'business_id',
        'created_at',
        ...keyOf(counter),
        ...(counter.counts?.columns ?? []),
        ...(counter.day?.columns ?? []),
        ...(counter.sums ?? []),
      ]),
    ),
  ];
}

async function createTriggers(knex: Knex, table: string, counters: Counter[]): Promise<void> {
  const dialect = dialectOf(knex);
  const columns = watched(counters).join(', ');
  const name = `${table}_counters`;
  if (dialect === 'postgres') {
    const onUpdate = counters.map(
      (counter) => `if not (${unmoved(dialect, counter)}) then
        ${[...bumps(dialect, counter, 'old', whole(counter, 'old', -1)), ...bumps(dialect, counter, 'new', whole(counter, 'new', 1))].join('\n')}
      ${counter.sums?.length ? `elsif ${resummed(counter)} then\n        ${bumps(dialect, counter, 'new', difference(counter)).join('\n')}` : ''}
      end if;`,
    );
    await knex.raw(`
      create function ${name}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${counters.flatMap((counter) => bumps(dialect, counter, 'new', whole(counter, 'new', 1))).join('\n')}
        elsif tg_op = 'UPDATE' then
          ${onUpdate.join('\n')}
        else
          ${counters.flatMap((counter) => bumps(dialect, counter, 'old', whole(counter, 'old', -1))).join('\n')}
        end if;
        return null;
      end $$`);
    await knex.raw(`create trigger ${name} after insert or update of ${columns} or delete on ${table} for each row execute function ${name}()`);
    return;
  }
  const body = (statements: string[]) => `begin ${statements.join('\n')} end`;
  await knex.raw(
    `create trigger ${name}_insert after insert on ${table} ${body(counters.flatMap((counter) => bumps(dialect, counter, 'new', whole(counter, 'new', 1))))}`,
  );
  const onUpdate = counters.flatMap((counter) => {
    const stays = unmoved(dialect, counter);
    const moved = `not (${stays})`;
    return [
      ...bumps(dialect, counter, 'old', whole(counter, 'old', -1), moved),
      ...bumps(dialect, counter, 'new', whole(counter, 'new', 1), moved),
      ...(counter.sums?.length ? bumps(dialect, counter, 'new', difference(counter), `(${stays}) and (${resummed(counter)})`) : []),
    ];
  });
  await knex.raw(`create trigger ${name}_update after update of ${columns} on ${table} ${body(onUpdate)}`);
  await knex.raw(
    `create trigger ${name}_delete after delete on ${table} ${body(counters.flatMap((counter) => bumps(dialect, counter, 'old', whole(counter, 'old', -1))))}`,
  );
}

/** Counts the rows there are, in one statement per table of the counter. */
async function countRows(knex: Knex, counter: Counter): Promise<void> {
  const at = periods(dialectOf(knex), counter);
  const columns = keyOf(counter);
  const where = counter.counts?.where('r') ?? 'true';
  const key = ['r.business_id', ...columns.map((name) => `r.${name}`)];
  const totals: [string, string][] = [['live', 'count(*)'], ...(counter.sums ?? []).map((column): [string, string] => [column, `sum(r.${column})`])];
  // By position: the slot is the constant 0 on SQLite, which GROUP BY would read as a position.
  const groupBy = Array.from({ length: key.length + 2 }, (_, i) => i + 1).join(', ');
  await knex.raw(
    `insert into ${byDay(counter)} (business_id, ${columns.join(', ')}, day, slot, ${totals.map(([name]) => name).join(', ')})
     select ${[...key, at.day('r'), at.slot('r')].join(', ')}, ${totals.map(([, total]) => total).join(', ')} from ${counter.table} r where ${where}
     group by ${groupBy}`,
  );
  const months = totals.flatMap(([name]) =>
    monthColumns(name).map((month, i) => [month, `sum(case when ${at.month('r')} = ${i + 1} then ${name === 'live' ? 1 : `r.${name}`} else 0 end)`]),
  );
  await knex.raw(
    `insert into ${byYear(counter)} (business_id, ${columns.join(', ')}, year, slot, ${[...totals, ...months].map(([name]) => name).join(', ')})
     select ${[...key, at.year('r'), at.slot('r')].join(', ')}, ${[...totals, ...months].map(([, total]) => total).join(', ')} from ${counter.table} r where ${where}
     group by ${groupBy}`,
  );
}

/** Creates the counters' tables, counts the rows there are and creates the triggers that keep the counts. */
export async function installCounters(knex: Knex, counters: readonly Counter[]): Promise<void> {
  for (const counter of counters) {
    await createTables(knex, counter);
    await countRows(knex, counter);
  }
  for (const [table, ofTable] of countedTables(counters)) await createTriggers(knex, table, ofTable);
}

async function dropTriggers(knex: Knex, table: string): Promise<void> {
  if (dialectOf(knex) === 'postgres') {
    await knex.raw(`drop trigger if exists ${table}_counters on ${table}`);
    await knex.raw(`drop function if exists ${table}_counters()`);
  } else {
    for (const op of ['insert', 'update', 'delete']) await knex.raw(`drop trigger if exists ${table}_counters_${op}`);
  }
}

export async function removeCounters(knex: Knex, counters: readonly Counter[]): Promise<void> {
  for (const table of countedTables(counters).keys()) await dropTriggers(knex, table);
  for (const counter of counters) {
    await knex.schema.dropTableIfExists(byDay(counter));
    await knex.schema.dropTableIfExists(byYear(counter));
  }
}

/**
 * Adds counters to tables that already keep others (`kept`, every counter installed on those
 * tables): creates and counts the new ones, then makes their tables' triggers again for all of them.
 * The kept counters' counts stay as they are, since the new triggers count every change as the old did.
 */
export async function addCounters(knex: Knex, added: readonly Counter[], kept: readonly Counter[]): Promise<void> {
  for (const counter of added) {
    await createTables(knex, counter);
    await countRows(knex, counter);
  }
  const tables = countedTables(added);
  for (const [table, ofTable] of countedTables([...kept.filter((counter) => tables.has(counter.table)), ...added])) {
    await dropTriggers(knex, table);
    await createTriggers(knex, table, ofTable);
  }
}

/** The reverse of addCounters: the triggers of the tables keep counting `kept` alone, and the withdrawn counters' tables go. */
export async function withdrawCounters(knex: Knex, withdrawn: readonly Counter[], kept: readonly Counter[]): Promise<void> {
  const tables = countedTables(withdrawn);
  await removeCounters(knex, withdrawn);
  for (const [table, ofTable] of countedTables(kept.filter((counter) => tables.has(counter.table)))) await createTriggers(knex, table, ofTable);
}
