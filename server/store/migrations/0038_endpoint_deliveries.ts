import type { Knex } from 'knex';

// GET /api/webhook-endpoints/{id}/deliveries: one endpoint's attempts, newest first. An attempt named
// only its outbox entry, so finding an endpoint's attempts in order meant reading every entry of the
// endpoint and then sorting all their attempts. Each attempt now carries its entry's business and
// endpoint (an entry never moves to another endpoint, so the copy stays true), and the list seeks an
// index that holds them, then the outcome filter where given, then the order, as every other list
// does (0011). Email attempts carry their business and no endpoint.
const TABLE = 'outbox_attempts';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.integer('business_id').nullable();
    t.integer('endpoint_id').nullable();
  });
  await knex.raw(`
    update ${TABLE} set
      business_id = (select outbox.business_id from outbox where outbox.id = ${TABLE}.outbox_id),
      endpoint_id = (select outbox.endpoint_id from outbox where outbox.id = ${TABLE}.outbox_id)`);
  await knex.schema.alterTable(TABLE, (t) => {
    t.index(['business_id', 'endpoint_id', 'started_at', 'id'], 'outbox_attempts_endpoint_page_index');
    t.index(['business_id', 'endpoint_id', 'outcome', 'started_at', 'id'], 'outbox_attempts_endpoint_outcome_page_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropIndex([], 'outbox_attempts_endpoint_page_index');
    t.dropIndex([], 'outbox_attempts_endpoint_outcome_page_index');
  });
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropColumn('business_id');
    t.dropColumn('endpoint_id');
  });
}
