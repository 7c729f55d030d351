import type { Knex } from 'knex';

// The audit log: one row per write through the API, sign-in (or failed one), two-factor change, key
// made or revoked, role change and invitation, inserted in the transaction of what it records. Rows
// are only ever inserted, and deleted by the retention sweep once older than the configured days.
// Its targets sit in a table of their own so that "everything done to this record" reads an index.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_events', (t) => {
    t.string('_id', 24).primary();
    // Null for a failed sign-in that names no member of any business.
    t.integer('business_id').nullable().references('id').inTable('businesses');
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.string('actor_kind', 16).notNullable();
    t.string('actor_id', 64).nullable();
    t.string('actor_label', 320).nullable();
    t.string('action', 64).notNullable();
    t.string('outcome', 16).notNullable();
    t.integer('status').nullable();
    t.string('client_address', 64).nullable();
    t.string('user_agent', 512).nullable();
    t.string('request_id', 128).nullable();
    t.index(['business_id', 'created_at', '_id']);
    t.index(['business_id', 'action', 'created_at', '_id']);
    t.index(['business_id', 'actor_id', 'created_at', '_id']);
    // The retention sweep's: the oldest events of every business.
    t.index(['created_at']);
  });
  await knex.schema.createTable('audit_event_targets', (t) => {
    t.string('event_id', 24).notNullable().references('_id').inTable('audit_events').onDelete('CASCADE');
    t.integer('business_id').nullable();
    t.string('target_id', 64).notNullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.primary(['event_id', 'target_id']);
    t.index(['business_id', 'target_id', 'created_at', 'event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_event_targets');
  await knex.schema.dropTableIfExists('audit_events');
}
