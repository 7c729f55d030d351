import type { Knex } from 'knex';

// Payments per open link, state, method and UTC day, in daily_counts under kind `open_link_payments`:
// GET /api/payments?filter[open_payment_link_id] matches every payment of a busy open link, and
// counting them through the index grew with the link's history. The bucket is
// `open_payment_link_id:status_id:refund_state:method`. The payments triggers of 0013 are replaced
// by ones that keep both kinds, so a write to payments still runs one trigger (PostgreSQL) and the
// per-month and per-year counts follow from daily_counts' own triggers (0022), as for every kind.
const KIND = 'open_link_payments';
const PERIOD_TABLES = ['daily_counts', 'monthly_counts', 'yearly_counts'];
/** An id (24) and a method (up to 20) with the state: more than the 40 of 0013 and 0022. */
const WIDER_STATUS = 64;
const NARROWER_STATUS = 40;

interface Counter {
  kind: string;
  bucket: (row: string) => string;
  /** Which payments are counted under the kind; all of them without one. */
  counts?: (row: string) => string;
}

const dayOf = (pg: boolean, row: string) => (pg ? `to_char(${row}.created_at at time zone 'UTC', 'YYYY-MM-DD')` : `substr(${row}.created_at, 1, 10)`);
const state = (row: string) => `${row}.status_id || ':' || ${row}.refund_state || ':' || ${row}.method`;
/** The kind 0013 keeps. */
const PAYMENTS: Counter = { kind: 'payments', bucket: state };
const OPEN_LINK_PAYMENTS: Counter = {
  kind: KIND,
  bucket: (row) => `${row}.open_payment_link_id || ':' || ${state(row)}`,
  counts: (row) => `${row}.open_payment_link_id is not null`,
};

/** The columns whose change moves a payment between buckets of the given counters. */
const moved = (counters: Counter[]) =>
  ['status_id', 'refund_state', 'method', 'created_at', 'business_id', ...(counters.includes(OPEN_LINK_PAYMENTS) ? ['open_payment_link_id'] : [])].join(', ');

/** The payments counting triggers (record_counts and daily_counts) for the given counters. */
async function createTriggers(knex: Knex, counters: Counter[]): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  // INSERT ... SELECT ... WHERE, so that a conditional bump is one statement on both databases (a
  // SQLite trigger body has no IF); the WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.
  const bump = (row: 'new' | 'old', delta: number) =>
    counters.map(
      ({ kind, bucket, counts }) =>
        `insert into daily_counts (business_id, kind, status, day, live) select ${row}.business_id, '${kind}', ${bucket(row)}, ${dayOf(pg, row)}, ${delta}
         where ${counts?.(row) ?? 'true'}
         on conflict (business_id, kind, status, day) do update set live = daily_counts.live + excluded.live;`,
    );
  const total = (row: 'new' | 'old', delta: number) =>
    `insert into record_counts (business_id, kind, live) values (${row}.business_id, '${PAYMENTS.kind}', ${delta})
     on conflict (business_id, kind) do update set live = record_counts.live + excluded.live;`;
  const columns = moved(counters);
  if (pg) {
    await knex.raw(`
      create function payments_daily() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then ${bump('old', -1).join('\n')} end if;
        if tg_op in ('INSERT', 'UPDATE') then ${bump('new', 1).join('\n')} end if;
        if tg_op = 'INSERT' then ${total('new', 1)} end if;
        if tg_op = 'DELETE' then ${total('old', -1)} end if;
        return null;
      end $$`);
    await knex.raw(`create trigger payments_daily after insert or update of ${columns} or delete on payments for each row execute function payments_daily()`);
  } else {
    const body = (statements: string[]) => `begin ${statements.join('\n')} end`;
    await knex.raw(`create trigger payments_daily_insert after insert on payments ${body([...bump('new', 1), total('new', 1)])}`);
    await knex.raw(`create trigger payments_daily_update_old after update of ${columns} on payments ${body(bump('old', -1))}`);
    await knex.raw(`create trigger payments_daily_update_new after update of ${columns} on payments ${body(bump('new', 1))}`);
    await knex.raw(`create trigger payments_daily_delete after delete on payments ${body([...bump('old', -1), total('old', -1)])}`);
  }
}

async function dropTriggers(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') {
    await knex.raw('drop trigger if exists payments_daily on payments');
    await knex.raw('drop function if exists payments_daily()');
  } else {
    for (const suffix of ['insert', 'update_old', 'update_new', 'delete']) await knex.raw(`drop trigger if exists payments_daily_${suffix}`);
  }
}

async function setStatusLength(knex: Knex, length: number): Promise<void> {
  // SQLite does not enforce varchar lengths.
  if (knex.client.config.client !== 'pg') return;
  for (const table of PERIOD_TABLES) await knex.raw(`alter table ${table} alter column status type varchar(${length})`);
}

export async function up(knex: Knex): Promise<void> {
  await setStatusLength(knex, WIDER_STATUS);
  await dropTriggers(knex);
  // Counted from the rows before the new triggers count anything; daily_counts' triggers (0022) add
  // each inserted row to its month and year.
  const day = dayOf(knex.client.config.client === 'pg', 'payments');
  const bucket = OPEN_LINK_PAYMENTS.bucket('payments');
  await knex.raw(
    `insert into daily_counts (business_id, kind, status, day, live)
     select business_id, '${KIND}', ${bucket}, ${day}, count(*) from payments where open_payment_link_id is not null
     group by business_id, ${bucket}, ${day}`,
  );
  await createTriggers(knex, [PAYMENTS, OPEN_LINK_PAYMENTS]);
}

export async function down(knex: Knex): Promise<void> {
  await dropTriggers(knex);
  for (const table of PERIOD_TABLES) await knex(table).where({ kind: KIND }).delete();
  await createTriggers(knex, [PAYMENTS]);
  await setStatusLength(knex, NARROWER_STATUS);
}
