import type { Knex } from 'knex';

// Payments per business, state and method and UTC day, in daily_counts (0007) under kind `payments`:
// GET /api/payments unfiltered, or filtered by status, method and dates only, can match most of a
// business's payments, and counting them grew with the table. The bucket is
// `status_id:refund_state:method` (e.g. `1:0:card`); triggers keep it, as for the links. The
// unfiltered list reads one row, the business's total in record_counts (0005), kept the same way.
const KIND = 'payments';

export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  // Buckets are longer than the links' statuses; SQLite does not enforce varchar lengths.
  if (pg) await knex.raw('alter table daily_counts alter column status type varchar(40)');
  const day = (row: string) => (pg ? `to_char(${row}.created_at at time zone 'UTC', 'YYYY-MM-DD')` : `substr(${row}.created_at, 1, 10)`);
  const bucket = (row: string) => `${row}.status_id || ':' || ${row}.refund_state || ':' || ${row}.method`;
  const bump = (row: 'new' | 'old', delta: number) =>
    `insert into daily_counts (business_id, kind, status, day, live) values (${row}.business_id, '${KIND}', ${bucket(row)}, ${day(row)}, ${delta})
     on conflict (business_id, kind, status, day) do update set live = daily_counts.live + excluded.live`;

  await knex.raw(
    `insert into daily_counts (business_id, kind, status, day, live)
     select business_id, '${KIND}', ${bucket('payments')}, ${day('payments')}, count(*) from payments group by business_id, ${bucket('payments')}, ${day('payments')}`,
  );
  await knex.raw(`insert into record_counts (business_id, kind, live) select business_id, '${KIND}', count(*) from payments group by business_id`);
  const total = (row: 'new' | 'old', delta: number) =>
    `insert into record_counts (business_id, kind, live) values (${row}.business_id, '${KIND}', ${delta})
     on conflict (business_id, kind) do update set live = record_counts.live + excluded.live`;
  const moved = 'status_id, refund_state, method, created_at, business_id';
  if (pg) {
    await knex.raw(`
      create function payments_daily() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then ${bump('old', -1)}; end if;
        if tg_op in ('INSERT', 'UPDATE') then ${bump('new', 1)}; end if;
        if tg_op = 'INSERT' then ${total('new', 1)}; end if;
        if tg_op = 'DELETE' then ${total('old', -1)}; end if;
        return null;
      end $$`);
    await knex.raw(`create trigger payments_daily after insert or update of ${moved} or delete on payments for each row execute function payments_daily()`);
  } else {
    await knex.raw(`create trigger payments_daily_insert after insert on payments begin ${bump('new', 1)}; ${total('new', 1)}; end`);
    await knex.raw(`create trigger payments_daily_update_old after update of ${moved} on payments begin ${bump('old', -1)}; end`);
    await knex.raw(`create trigger payments_daily_update_new after update of ${moved} on payments begin ${bump('new', 1)}; end`);
    await knex.raw(`create trigger payments_daily_delete after delete on payments begin ${bump('old', -1)}; ${total('old', -1)}; end`);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') {
    await knex.raw('drop trigger if exists payments_daily on payments');
    await knex.raw('drop function if exists payments_daily()');
  } else {
    for (const suffix of ['insert', 'update_old', 'update_new', 'delete']) await knex.raw(`drop trigger if exists payments_daily_${suffix}`);
  }
  await knex.raw(`delete from daily_counts where kind = '${KIND}'`);
  await knex.raw(`delete from record_counts where kind = '${KIND}'`);
}
