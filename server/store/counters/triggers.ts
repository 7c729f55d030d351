// The counters' tables and triggers, generated for SQLite and PostgreSQL from the declaration
// (declaration.ts), and the counts made once from the rows when they are installed.
import type { Knex } from 'knex';
import { byDay, byYear, countedTables, MONTH_COLUMNS, SLOTS, type Counter, type Dialect } from './declaration.js';

export const dialectOf = (knex: Knex): Dialect => (knex.client.config.client === 'pg' ? 'postgres' : 'sqlite');

/** SQL for a counted row's UTC day, year and month of creation and its slot; `row` is `new`, `old` or a table alias. */
function periods(dialect: Dialect) {
  const utc = (row: string) => `${row}.created_at at time zone 'UTC'`;
  if (dialect === 'postgres') {
    const slots = SLOTS.postgres;
    return {
      day: (row: string) => `(${utc(row)})::date`,
      year: (row: string) => `extract(year from ${utc(row)})::integer`,
      month: (row: string) => `extract(month from ${utc(row)})::integer`,
      // A byte of the id's hash: any id, evenly spread, and the same slot for every change of one row.
      slot: (row: string) => (slots === 1 ? '0' : `get_byte(decode(md5(${row}._id), 'hex'), 0) % ${slots}`),
    };
  }
  // Timestamps are ISO text in UTC on SQLite (store/timestamps.ts).
  return {
    day: (row: string) => `substr(${row}.created_at, 1, 10)`,
    year: (row: string) => `cast(substr(${row}.created_at, 1, 4) as integer)`,
    month: (row: string) => `cast(substr(${row}.created_at, 6, 2) as integer)`,
    slot: () => '0',
  };
}

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
      table.bigInteger('live').notNullable();
      if (period === 'year') for (const month of MONTH_COLUMNS) table.bigInteger(month).notNullable();
      table.primary(primaryKey(counter, period));
    });
  }
}

/** The statements that add `delta` (an SQL expression) to `row`'s counts, if `row` is counted and `also` holds. */
function bumps(dialect: Dialect, counter: Counter, row: string, delta: string, also?: string): string[] {
  const at = periods(dialect);
  const columns = keyOf(counter);
  const values = columns.map((name) => `${row}.${name}`);
  // INSERT ... SELECT ... WHERE makes a conditional bump one statement on both databases (a SQLite
  // trigger body has no IF); the WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.
  const where = [counter.counts?.where(row) ?? 'true', ...(also ? [also] : [])].join(' and ');
  const upsert = (table: string, period: 'day' | 'year', periodValue: string, extra: { names: string[]; values: string[] }) => {
    const names = ['business_id', ...columns, period, 'slot', 'live', ...extra.names];
    const selected = [`${row}.business_id`, ...values, periodValue, at.slot(row), delta, ...extra.values];
    const added = ['live', ...extra.names].map((name) => `${name} = ${table}.${name} + excluded.${name}`).join(', ');
    return `insert into ${table} (${names.join(', ')}) select ${selected.join(', ')} where ${where}
      on conflict (${primaryKey(counter, period).join(', ')}) do update set ${added};`;
  };
  return [
    upsert(byDay(counter), 'day', at.day(row), { names: [], values: [] }),
    upsert(byYear(counter), 'year', at.year(row), {
      names: MONTH_COLUMNS,
      values: MONTH_COLUMNS.map((_, i) => `case when ${at.month(row)} = ${i + 1} then ${delta} else 0 end`),
    }),
  ];
}

/** True when an update leaves the row where it is counted: same business, values, day and whether it counts. */
function unmoved(dialect: Dialect, counter: Counter): string {
  const at = periods(dialect);
  const same = (a: string, b: string) => `${a} is not distinct from ${b}`;
  return [
    ...['business_id', ...keyOf(counter)].map((name) => same(`old.${name}`, `new.${name}`)),
    same(at.day('old'), at.day('new')),
    ...(counter.counts ? [same(`(${counter.counts.where('old')})`, `(${counter.counts.where('new')})`)] : []),
  ].join(' and ');
}

/** The columns whose change can move a row of `table` between counts. */
function watched(counters: Counter[]): string[] {
  return [...new Set(counters.flatMap((counter) => ['business_id', 'created_at', ...keyOf(counter), ...(counter.counts?.columns ?? [])]))];
}

async function createTriggers(knex: Knex, table: string, counters: Counter[]): Promise<void> {
  const dialect = dialectOf(knex);
  const columns = watched(counters).join(', ');
  const name = `${table}_counters`;
  if (dialect === 'postgres') {
    const onUpdate = counters.map(
      (counter) => `if not (${unmoved(dialect, counter)}) then
        ${[...bumps(dialect, counter, 'old', '-1'), ...bumps(dialect, counter, 'new', '1')].join('\n')}
      end if;`,
    );
    await knex.raw(`
      create function ${name}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${counters.flatMap((counter) => bumps(dialect, counter, 'new', '1')).join('\n')}
        elsif tg_op = 'UPDATE' then
          ${onUpdate.join('\n')}
        else
          ${counters.flatMap((counter) => bumps(dialect, counter, 'old', '-1')).join('\n')}
        end if;
        return null;
      end $$`);
    await knex.raw(`create trigger ${name} after insert or update of ${columns} or delete on ${table} for each row execute function ${name}()`);
    return;
  }
  const body = (statements: string[]) => `begin ${statements.join('\n')} end`;
  await knex.raw(`create trigger ${name}_insert after insert on ${table} ${body(counters.flatMap((counter) => bumps(dialect, counter, 'new', '1')))}`);
  const onUpdate = counters.flatMap((counter) => {
    const moved = `not (${unmoved(dialect, counter)})`;
    return [...bumps(dialect, counter, 'old', '-1', moved), ...bumps(dialect, counter, 'new', '1', moved)];
  });
  await knex.raw(`create trigger ${name}_update after update of ${columns} on ${table} ${body(onUpdate)}`);
  await knex.raw(`create trigger ${name}_delete after delete on ${table} ${body(counters.flatMap((counter) => bumps(dialect, counter, 'old', '-1')))}`);
}

/** Counts the rows there are, in one statement per table of the counter. */
async function countRows(knex: Knex, counter: Counter): Promise<void> {
  const at = periods(dialectOf(knex));
  const columns = keyOf(counter);
  const where = counter.counts?.where('r') ?? 'true';
  const key = ['r.business_id', ...columns.map((name) => `r.${name}`)];
  // By position: the slot is the constant 0 on SQLite, which GROUP BY would read as a position.
  const groupBy = Array.from({ length: key.length + 2 }, (_, i) => i + 1).join(', ');
  await knex.raw(
    `insert into ${byDay(counter)} (business_id, ${columns.join(', ')}, day, slot, live)
     select ${[...key, at.day('r'), at.slot('r')].join(', ')}, count(*) from ${counter.table} r where ${where}
     group by ${groupBy}`,
  );
  const months = MONTH_COLUMNS.map((_, i) => `sum(case when ${at.month('r')} = ${i + 1} then 1 else 0 end)`);
  await knex.raw(
    `insert into ${byYear(counter)} (business_id, ${columns.join(', ')}, year, slot, live, ${MONTH_COLUMNS.join(', ')})
     select ${[...key, at.year('r'), at.slot('r')].join(', ')}, count(*), ${months.join(', ')} from ${counter.table} r where ${where}
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

export async function removeCounters(knex: Knex, counters: readonly Counter[]): Promise<void> {
  for (const table of countedTables(counters).keys()) {
    if (dialectOf(knex) === 'postgres') {
      await knex.raw(`drop trigger if exists ${table}_counters on ${table}`);
      await knex.raw(`drop function if exists ${table}_counters()`);
    } else {
      for (const op of ['insert', 'update', 'delete']) await knex.raw(`drop trigger if exists ${table}_counters_${op}`);
    }
  }
  for (const counter of counters) {
    await knex.schema.dropTableIfExists(byDay(counter));
    await knex.schema.dropTableIfExists(byYear(counter));
  }
}
