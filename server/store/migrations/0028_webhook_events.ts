import type { Knex } from 'knex';

// One row per webhook event, kept by triggers on the outbox, so GET /api/events reads a page of
// events through an index instead of grouping every outbox entry of the business on each call (its
// total was a count over that GROUP BY). The outbox stays the record of deliveries; this row carries
// what the list filters and orders by: the event's first entry (created_at, first_id), its type, and
// how its entries stand, as counts moved by each entry's insert, status change and deletion
// (retention), from which `outcome` follows: 1 delivered everywhere, 2 a delivery failed and has not
// succeeded since (retrying or given up), 0 neither (a first attempt still under way).
const TABLE = 'webhook_events';

const undelivered = (row: string) => `(case when ${row}.status <> 'delivered' then 1 else 0 end)`;
const failing = (row: string) => `(case when ${row}.status = 'dead' or (${row}.status = 'pending' and ${row}.last_error is not null) then 1 else 0 end)`;
const isEvent = (row: string) => `${row}.channel = 'webhook' and ${row}.event_id is not null`;

/** Adds an entry's deltas to its event's row, making the row if this is the event's first entry. */
function bump(row: string, entries: string, undeliveredDelta: string, failingDelta: string): string {
  return `insert into ${TABLE} (business_id, event_id, topic, created_at, first_id, entries, undelivered, failing, outcome)
    select ${row}.business_id, ${row}.event_id, ${row}.topic, ${row}.created_at, ${row}.id, ${entries}, ${undeliveredDelta}, ${failingDelta},
           case when ${failingDelta} > 0 then 2 when ${undeliveredDelta} = 0 then 1 else 0 end
    where ${isEvent(row)}
    on conflict (business_id, event_id) do update set
      entries = ${TABLE}.entries + excluded.entries,
      undelivered = ${TABLE}.undelivered + excluded.undelivered,
      failing = ${TABLE}.failing + excluded.failing,
      outcome = case when ${TABLE}.failing + excluded.failing > 0 then 2 when ${TABLE}.undelivered + excluded.undelivered = 0 then 1 else 0 end;`;
}

/** The business's events in a row of their own, so the unfiltered list's total is read, not counted. */
const COUNTS = 'webhook_event_counts';
const count = (row: string, delta: number) =>
  `insert into ${COUNTS} (business_id, live) values (${row}.business_id, ${delta})
   on conflict (business_id) do update set live = ${COUNTS}.live + excluded.live;`;

const onInsert = bump('new', '1', undelivered('new'), failing('new'));
const onUpdate = bump('new', '0', `${undelivered('new')} - ${undelivered('old')}`, `${failing('new')} - ${failing('old')}`);
const onDelete = [
  bump('old', '-1', `-${undelivered('old')}`, `-${failing('old')}`),
  `delete from ${TABLE} where business_id = old.business_id and event_id = old.event_id and entries <= 0;`,
];

export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  await knex.schema.createTable(TABLE, (t) => {
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('event_id', 40).notNullable();
    t.string('topic', 40).notNullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    /** The outbox id of the event's first entry: the order among events created at the same instant. */
    t.integer('first_id').notNullable();
    t.integer('entries').notNullable();
    t.integer('undelivered').notNullable();
    t.integer('failing').notNullable();
    t.smallint('outcome').notNullable();
    t.primary(['business_id', 'event_id']);
    // Every combination of the list's filters (type, delivery_success, created_at_between) is an
    // equality prefix of one of these and then the order.
    // event_id last: a page (and the entries it skips to reach its offset) is read from the index alone.
    t.index(['business_id', 'created_at', 'first_id', 'event_id'], `${TABLE}_page_index`);
    t.index(['business_id', 'topic', 'created_at', 'first_id', 'event_id'], `${TABLE}_topic_page_index`);
    t.index(['business_id', 'outcome', 'created_at', 'first_id', 'event_id'], `${TABLE}_outcome_page_index`);
    t.index(['business_id', 'outcome', 'topic', 'created_at', 'first_id', 'event_id'], `${TABLE}_outcome_topic_page_index`);
  });
  await knex.raw(`
    insert into ${TABLE} (business_id, event_id, topic, created_at, first_id, entries, undelivered, failing, outcome)
    select business_id, event_id, min(topic), min(created_at), min(id), count(*), sum(${undelivered('outbox')}), sum(${failing('outbox')}),
           case when sum(${failing('outbox')}) > 0 then 2 when sum(${undelivered('outbox')}) = 0 then 1 else 0 end
    from outbox where ${isEvent('outbox')}
    group by business_id, event_id`);
  await knex.schema.createTable(COUNTS, (t) => {
    t.integer('business_id').primary().references('id').inTable('businesses');
    t.bigInteger('live').notNullable();
  });
  await knex.raw(`insert into ${COUNTS} (business_id, live) select business_id, count(*) from ${TABLE} group by business_id`);
  if (pg) {
    await knex.raw(`
      create function webhook_events_count() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${count('new', 1)} end if;
        if tg_op = 'DELETE' then ${count('old', -1)} end if;
        return null;
      end $$`);
    await knex.raw(`create trigger webhook_events_count after insert or delete on ${TABLE} for each row execute function webhook_events_count()`);
    await knex.raw(`
      create function outbox_webhook_events() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${onInsert} end if;
        if tg_op = 'UPDATE' then ${onUpdate} end if;
        if tg_op = 'DELETE' then ${onDelete.join('\n')} end if;
        return null;
      end $$`);
    await knex.raw(
      `create trigger outbox_webhook_events after insert or update of status, last_error or delete on outbox for each row execute function outbox_webhook_events()`,
    );
  } else {
    await knex.raw(`create trigger outbox_webhook_events_insert after insert on outbox begin ${onInsert} end`);
    await knex.raw(`create trigger outbox_webhook_events_update after update of status, last_error on outbox begin ${onUpdate} end`);
    await knex.raw(`create trigger outbox_webhook_events_delete after delete on outbox begin ${onDelete.join('\n')} end`);
    await knex.raw(`create trigger webhook_events_count_insert after insert on ${TABLE} begin ${count('new', 1)} end`);
    await knex.raw(`create trigger webhook_events_count_delete after delete on ${TABLE} begin ${count('old', -1)} end`);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') {
    await knex.raw('drop trigger if exists outbox_webhook_events on outbox');
    await knex.raw('drop function if exists outbox_webhook_events()');
  } else {
    for (const suffix of ['insert', 'update', 'delete']) await knex.raw(`drop trigger if exists outbox_webhook_events_${suffix}`);
  }
  await knex.schema.dropTableIfExists(TABLE);
  if (knex.client.config.client === 'pg') await knex.raw('drop function if exists webhook_events_count()');
  await knex.schema.dropTableIfExists(COUNTS);
}
