import type { Knex } from 'knex';

// Timestamps are stored as timestamptz(6) on PostgreSQL and as ISO text on SQLite (written by us in
// one fixed format, so text order is time order). Money is integer cents with CHECK constraints,
// because SQLite would otherwise store '100.5' in an integer column without complaint.
function timestamps(table: Knex.CreateTableBuilder, softDelete: boolean): void {
  table.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
  table.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
  if (softDelete) table.timestamp('deleted_at', { useTz: true, precision: 6 }).nullable();
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('businesses', (table) => {
    table.increments('id').primary();
    table.string('name', 200).notNullable().unique();
    table.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
  });

  await knex.schema.createTable('api_keys', (table) => {
    table.increments('id').primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('key_hash', 64).notNullable().unique();
    table.string('key_prefix', 16).notNullable();
    table.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('revoked_at', { useTz: true, precision: 6 }).nullable();
    table.index(['business_id']);
  });

  await knex.schema.createTable('tokens', (table) => {
    table.string('_id', 24).primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('email', 254).notNullable();
    table.string('phone_no', 20).nullable();
    table.string('redirect_url', 2048).nullable();
    table.string('title', 50).notNullable();
    table.string('description', 1000).notNullable();
    table.string('token', 64).notNullable().unique();
    table.string('status', 16).notNullable();
    table.string('card_brand', 20).nullable();
    table.string('card_last4', 4).nullable();
    table.integer('card_exp_month').nullable();
    table.integer('card_exp_year').nullable();
    timestamps(table, false);
    table.index(['business_id', 'created_at']);
  });

  await knex.schema.createTable('open_payment_links', (table) => {
    table.string('_id', 24).primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('currency', 3).notNullable();
    table.bigInteger('minimum_amount').notNullable();
    table.string('title', 50).notNullable();
    table.string('description', 1000).nullable();
    table.string('redirect_url', 2048).nullable();
    table.string('reference', 50).nullable();
    table.string('reference_2', 50).nullable();
    table.integer('status_id').notNullable();
    timestamps(table, true);
    table.check('?? > 0', ['minimum_amount'], 'open_payment_links_minimum_amount_positive');
    table.check('?? in (1, 2)', ['status_id'], 'open_payment_links_status_id_known');
    table.index(['business_id', 'created_at', '_id']);
    table.index(['business_id', 'reference']);
    table.index(['business_id', 'reference_2']);
  });

  await knex.schema.createTable('payment_links', (table) => {
    table.string('_id', 24).primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('email', 254).notNullable();
    table.string('phone_no', 20).nullable();
    table.string('currency', 3).notNullable();
    table.integer('amount').notNullable();
    table.string('title', 50).notNullable();
    table.string('description', 1000).nullable();
    table.string('redirect_url', 2048).nullable();
    table.string('reference', 50).nullable();
    table.string('reference_2', 50).nullable();
    table.string('status', 16).notNullable();
    table.boolean('paid').notNullable();
    timestamps(table, true);
    table.check('?? between 500 and 3000000', ['amount'], 'payment_links_amount_bounds');
    table.check(`?? in ('Active', 'Paid')`, ['status'], 'payment_links_status_known');
    table.index(['business_id', 'created_at', '_id']);
    table.index(['business_id', 'reference']);
    table.index(['business_id', 'reference_2']);
    table.index(['business_id', 'email']);
    table.index(['business_id', 'status']);
  });

  // A payment is one attempt to pay a link. At most one successful payment per payment link is a
  // database invariant (partial unique index), so two racing payers can never both be charged.
  await knex.schema.createTable('payments', (table) => {
    table.string('_id', 24).primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('payment_link_id', 24).nullable().references('_id').inTable('payment_links');
    table.string('open_payment_link_id', 24).nullable().references('_id').inTable('open_payment_links');
    table.string('attempt_id', 64).notNullable().unique();
    table.bigInteger('amount').notNullable();
    table.string('currency', 3).notNullable();
    table.integer('status_id').notNullable();
    table.string('payer_name', 100).nullable();
    table.string('payer_email', 254).nullable();
    table.string('method', 20).notNullable();
    table.string('provider', 20).notNullable();
    table.string('provider_reference', 64).nullable();
    table.string('card_brand', 20).nullable();
    table.string('card_last4', 4).nullable();
    table.string('failure_code', 40).nullable();
    table.string('failure_message', 200).nullable();
    timestamps(table, false);
    table.check('?? > 0', ['amount'], 'payments_amount_positive');
    table.check('?? in (1, 2, 3)', ['status_id'], 'payments_status_id_known');
    table.check('(payment_link_id is null) <> (open_payment_link_id is null)', [], 'payments_one_link');
    table.index(['business_id', 'created_at']);
    table.index(['payment_link_id']);
    // Collection reports: totals and recent ones by date, top ones by amount.
    table.index(['open_payment_link_id', 'status_id', 'created_at', 'amount']);
    table.index(['open_payment_link_id', 'status_id', 'amount', 'created_at']);
  });
  await knex.raw('create unique index payments_one_success_per_payment_link on payments (payment_link_id) where status_id = 1');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['payments', 'payment_links', 'open_payment_links', 'tokens', 'api_keys', 'businesses']) {
    await knex.schema.dropTableIfExists(table);
  }
}
