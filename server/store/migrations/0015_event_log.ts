import type { Knex } from 'knex';

// Webhook events a merchant can look up (GET /api/events): each webhook entry of the outbox carries its
// event id, indexed for the lookup and the business's list; each attempt keeps the HTTP status the
// receiver answered, when it answered.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox', (t) => {
    t.string('event_id', 40).nullable();
  });
  const eventId = knex.client.config.client === 'pg' ? `payload::json->>'id'` : `json_extract(payload, '$.id')`;
  await knex.raw(`update outbox set event_id = ${eventId} where channel = 'webhook'`);
  await knex.schema.alterTable('outbox', (t) => {
    t.index(['business_id', 'event_id'], 'outbox_event_index');
    t.index(['business_id', 'channel', 'created_at', 'id'], 'outbox_events_page_index');
  });
  await knex.schema.alterTable('outbox_attempts', (t) => {
    t.integer('http_status').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_attempts', (t) => t.dropColumn('http_status'));
  await knex.schema.alterTable('outbox', (t) => {
    t.dropIndex([], 'outbox_event_index');
    t.dropIndex([], 'outbox_events_page_index');
  });
  await knex.schema.alterTable('outbox', (t) => t.dropColumn('event_id'));
}
