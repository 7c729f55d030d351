import type { Knex } from 'knex';

// The per-day counts of 0007 and 0013, summed per UTC month and per UTC year of creation. A total over
// a date range (or over all time) summed one daily row per day and bucket of the range, so its cost
// grew with the history; it now sums whole years, whole months at the range's edges and days at the
// edges of those (see count-periods.ts), a number of rows that no longer grows with the history.
// Triggers on daily_counts itself keep both, so every kind counted per day is counted per period too
// and a record's month and year are, by construction, those of the day it is counted on.
const PERIODS = [
  { table: 'monthly_counts', column: 'month', length: 7 },
  { table: 'yearly_counts', column: 'year', length: 4 },
] as const;

export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  for (const { table, column, length } of PERIODS) {
    await knex.schema.createTable(table, (t) => {
      t.integer('business_id').notNullable().references('id').inTable('businesses');
      t.string('kind', 40).notNullable();
      t.string('status', 40).notNullable();
      /** `YYYY-MM` or `YYYY`: the start of daily_counts.day. */
      t.string(column, length).notNullable();
      t.bigInteger('live').notNullable();
      t.primary(['business_id', 'kind', 'status', column]);
    });
    await knex.raw(
      `insert into ${table} (business_id, kind, status, ${column}, live)
       select business_id, kind, status, substr(day, 1, ${length}), sum(live) from daily_counts group by business_id, kind, status, substr(day, 1, ${length})`,
    );
  }
  // Rows of daily_counts are only ever inserted or have `live` moved (0007, 0013): their keys never
  // change, so a change is a delta on the same month and year.
  const add = (row: 'new' | 'old', delta: string) =>
    PERIODS.map(
      ({ table, column, length }) =>
        `insert into ${table} (business_id, kind, status, ${column}, live) values (${row}.business_id, ${row}.kind, ${row}.status, substr(${row}.day, 1, ${length}), ${delta})
         on conflict (business_id, kind, status, ${column}) do update set live = ${table}.live + excluded.live;`,
    ).join('\n');
  if (pg) {
    await knex.raw(`
      create function daily_counts_periods() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${add('new', 'new.live')} end if;
        if tg_op = 'UPDATE' then ${add('new', 'new.live - old.live')} end if;
        if tg_op = 'DELETE' then ${add('old', '-old.live')} end if;
        return null;
      end $$`);
    await knex.raw(
      'create trigger daily_counts_periods after insert or update of live or delete on daily_counts for each row execute function daily_counts_periods()',
    );
  } else {
    await knex.raw(`create trigger daily_counts_periods_insert after insert on daily_counts begin ${add('new', 'new.live')} end`);
    await knex.raw(`create trigger daily_counts_periods_update after update of live on daily_counts begin ${add('new', 'new.live - old.live')} end`);
    await knex.raw(`create trigger daily_counts_periods_delete after delete on daily_counts begin ${add('old', '-old.live')} end`);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') {
    await knex.raw('drop trigger if exists daily_counts_periods on daily_counts');
    await knex.raw('drop function if exists daily_counts_periods()');
  } else {
    for (const suffix of ['insert', 'update', 'delete']) await knex.raw(`drop trigger if exists daily_counts_periods_${suffix}`);
  }
  for (const { table } of PERIODS) await knex.schema.dropTableIfExists(table);
}
