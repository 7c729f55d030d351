import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The first response to each Idempotency-Key, per business, kept for 24 hours.
  await knex.schema.createTable('idempotency_keys', (table) => {
    table.increments('id').primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('idempotency_key', 255).notNullable();
    table.string('request_hash', 64).notNullable();
    /** in_flight | done */
    table.string('state', 12).notNullable();
    table.integer('response_status').nullable();
    table.text('response_body').nullable();
    table.timestamp('locked_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('expires_at', { useTz: true, precision: 6 }).notNullable();
    table.unique(['business_id', 'idempotency_key']);
    table.index(['expires_at']);
  });

  // Requests per API key per one-second window, shared by every instance on the database. On
  // PostgreSQL the table is unlogged: counters need no crash safety and skip the WAL.
  const windows = (table: Knex.CreateTableBuilder) => {
    table.string('bucket', 80).notNullable();
    table.bigInteger('window_start').notNullable();
    table.integer('count').notNullable();
    table.primary(['bucket', 'window_start']);
  };
  if (knex.client.config.client === 'pg') {
    await knex.schema.createTable('rate_limit_windows', windows);
    await knex.raw('alter table rate_limit_windows set unlogged');
  } else {
    await knex.schema.createTable('rate_limit_windows', windows);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rate_limit_windows');
  await knex.schema.dropTableIfExists('idempotency_keys');
}
