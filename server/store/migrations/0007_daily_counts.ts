import type { Knex } from 'knex';

// Live records per business, kind, status and UTC day of creation, kept by triggers like
// record_counts (0005). A list filtered by status and/or by created_at_between is not selective
// (half of a business's links may be Active): counting its matching rows grew with the table. Its
// exact total is instead the sum of at most one row per status and day of the range.
const TABLES: { table: string; kind: string; status: string }[] = [
  { table: 'payment_links', kind: 'payment_links', status: 'status' },
  { table: 'open_payment_links', kind: 'open_payment_links', status: 'status_id' },
];

export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  await knex.schema.createTable('daily_counts', (table) => {
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('kind', 40).notNullable();
    table.string('status', 16).notNullable();
    /** YYYY-MM-DD, the UTC day of created_at. */
    table.string('day', 10).notNullable();
    table.bigInteger('live').notNullable();
    table.primary(['business_id', 'kind', 'status', 'day']);
  });
  const day = (row: string) => (pg ? `to_char(${row}.created_at at time zone 'UTC', 'YYYY-MM-DD')` : `substr(${row}.created_at, 1, 10)`);
  const status = (row: string, column: string) => (pg ? `${row}.${column}::text` : `cast(${row}.${column} as text)`);
  const bump = (kind: string, column: string, row: 'new' | 'old', delta: number) =>
    `insert into daily_counts (business_id, kind, status, day, live) values (${row}.business_id, '${kind}', ${status(row, column)}, ${day(row)}, ${delta})
     on conflict (business_id, kind, status, day) do update set live = daily_counts.live + excluded.live`;

  for (const { table, kind, status: column } of TABLES) {
    await knex.raw(
      `insert into daily_counts (business_id, kind, status, day, live)
       select business_id, ?, ${status(table, column)}, ${day(table)}, count(*) from ${table} where deleted_at is null group by business_id, ${status(table, column)}, ${day(table)}`,
      [kind],
    );
    // Every change that moves a row between buckets: its status, its day, its business, or whether it is live.
    if (pg) {
      await knex.raw(`
        create function ${table}_daily() returns trigger language plpgsql as $$
        begin
          if tg_op in ('UPDATE', 'DELETE') and old.deleted_at is null then ${bump(kind, column, 'old', -1)}; end if;
          if tg_op in ('INSERT', 'UPDATE') and new.deleted_at is null then ${bump(kind, column, 'new', 1)}; end if;
          return null;
        end $$`);
      await knex.raw(
        `create trigger ${table}_daily after insert or update of ${column}, deleted_at, created_at, business_id or delete on ${table} for each row execute function ${table}_daily()`,
      );
    } else {
      await knex.raw(`create trigger ${table}_daily_insert after insert on ${table} when new.deleted_at is null begin ${bump(kind, column, 'new', 1)}; end`);
      await knex.raw(
        `create trigger ${table}_daily_update_old after update of ${column}, deleted_at, created_at, business_id on ${table} when old.deleted_at is null begin ${bump(kind, column, 'old', -1)}; end`,
      );
      await knex.raw(
        `create trigger ${table}_daily_update_new after update of ${column}, deleted_at, created_at, business_id on ${table} when new.deleted_at is null begin ${bump(kind, column, 'new', 1)}; end`,
      );
      await knex.raw(`create trigger ${table}_daily_delete after delete on ${table} when old.deleted_at is null begin ${bump(kind, column, 'old', -1)}; end`);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { table } of TABLES) {
    if (knex.client.config.client === 'pg') {
      await knex.raw(`drop trigger if exists ${table}_daily on ${table}`);
      await knex.raw(`drop function if exists ${table}_daily()`);
    } else {
      for (const suffix of ['insert', 'update_old', 'update_new', 'delete']) await knex.raw(`drop trigger if exists ${table}_daily_${suffix}`);
    }
  }
  await knex.schema.dropTableIfExists('daily_counts');
}
