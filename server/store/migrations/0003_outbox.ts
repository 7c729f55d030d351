import type { Knex } from 'knex';

// Notifications wait in the database, written in the same transaction as the change that causes
// them, so a crash between commit and delivery loses nothing. Each delivery attempt is recorded.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('businesses', (table) => {
    table.string('webhook_url', 2048).nullable();
    table.string('webhook_secret', 64).nullable();
  });

  await knex.schema.createTable('outbox', (table) => {
    table.increments('id').primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    /** email | webhook */
    table.string('channel', 16).notNullable();
    /** What the entry is about, e.g. payment_link.sent, payment.created, token.activated. */
    table.string('topic', 40).notNullable();
    table.text('payload').notNullable();
    /** pending | delivered | dead */
    table.string('status', 12).notNullable();
    table.integer('attempts').notNullable().defaultTo(0);
    table.timestamp('next_attempt_at', { useTz: true, precision: 6 }).notNullable();
    table.string('lease_owner', 64).nullable();
    table.timestamp('lease_expires_at', { useTz: true, precision: 6 }).nullable();
    table.string('last_error', 500).nullable();
    table.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('delivered_at', { useTz: true, precision: 6 }).nullable();
    table.check(`?? in ('pending', 'delivered', 'dead')`, ['status'], 'outbox_status_known');
    table.index(['status', 'next_attempt_at']);
    table.index(['business_id', 'created_at']);
  });

  await knex.schema.createTable('outbox_attempts', (table) => {
    table.increments('id').primary();
    table.integer('outbox_id').notNullable().references('id').inTable('outbox');
    table.integer('attempt').notNullable();
    table.string('worker', 64).notNullable();
    table.timestamp('started_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('finished_at', { useTz: true, precision: 6 }).notNullable();
    /** delivered | failed */
    table.string('outcome', 12).notNullable();
    table.string('error', 500).nullable();
    table.index(['outbox_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('outbox_attempts');
  await knex.schema.dropTableIfExists('outbox');
  await knex.schema.alterTable('businesses', (table) => {
    table.dropColumn('webhook_url');
    table.dropColumn('webhook_secret');
  });
}
