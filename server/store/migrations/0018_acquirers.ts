import type { Knex } from 'knex';

// A business chooses its acquirer: the sandbox (the default) or Stripe, whose secret key and webhook
// signing secret are sealed at rest like webhook keys (only a hint of the key is kept in clear, to
// show which account it is). A payment made through a hosted page (Stripe Checkout) is found again by
// its session when the payer returns or the acquirer's notification arrives, and by the acquirer's
// reference (the PaymentIntent) when a refund or a charge's outcome is announced. A saved card keeps
// the acquirer that saved it, which its charges go through. Notifications are
// kept by event id, so one delivered twice is acted on once.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('businesses', (table) => {
    table.string('provider', 20).notNullable().defaultTo('sandbox');
    table.text('stripe_secret_key').nullable();
    table.text('stripe_webhook_secret').nullable();
    table.string('stripe_key_hint', 40).nullable();
  });
  await knex.schema.alterTable('payments', (table) => {
    table.string('provider_session', 255).nullable();
  });
  await knex.schema.alterTable('token_activation_attempts', (table) => {
    table.string('provider_session', 255).nullable();
  });
  // A saved card is charged through the acquirer that saved it, whichever the business uses now.
  await knex.schema.alterTable('tokens', (table) => {
    table.string('card_provider', 20).nullable();
  });
  await knex('tokens').whereNotNull('card_reference').update({ card_provider: 'sandbox' });
  // Stripe's ids may grow up to 255 characters; SQLite does not enforce varchar lengths.
  if (knex.client.config.client === 'pg') {
    await knex.raw('alter table payments alter column provider_reference type varchar(255)');
    await knex.raw('alter table refunds alter column provider_reference type varchar(255)');
    await knex.raw('alter table tokens alter column card_reference type varchar(255)');
  }
  await knex.raw('create index payments_provider_session_index on payments (provider_session) where provider_session is not null');
  await knex.raw('create index payments_provider_reference_index on payments (provider, provider_reference) where provider_reference is not null');
  await knex.raw('create index refunds_provider_reference_index on refunds (provider_reference) where provider_reference is not null');
  await knex.raw(
    'create index token_activation_attempts_provider_session_index on token_activation_attempts (provider_session) where provider_session is not null',
  );
  // One payment per payment link stays a database invariant; a payment a hosted acquirer took after
  // another had paid the link is recorded as paid (it is refunded in full) with failure_code
  // link_unavailable, and is not the link's payment.
  await knex.raw('drop index payments_one_success_per_payment_link');
  await knex.raw('create unique index payments_one_success_per_payment_link on payments (payment_link_id) where status_id = 1 and failure_code is null');
  await knex.schema.createTable('provider_events', (table) => {
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('provider', 20).notNullable();
    table.string('event_id', 255).notNullable();
    table.string('type', 100).notNullable();
    table.timestamp('received_at', { useTz: true, precision: 6 }).notNullable();
    table.primary(['business_id', 'provider', 'event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('provider_events');
  await knex.raw('drop index payments_one_success_per_payment_link');
  await knex.raw('create unique index payments_one_success_per_payment_link on payments (payment_link_id) where status_id = 1');
  await knex.raw('drop index if exists token_activation_attempts_provider_session_index');
  await knex.raw('drop index if exists refunds_provider_reference_index');
  await knex.raw('drop index if exists payments_provider_reference_index');
  await knex.raw('drop index if exists payments_provider_session_index');
  await knex.schema.alterTable('token_activation_attempts', (table) => table.dropColumn('provider_session'));
  await knex.schema.alterTable('tokens', (table) => table.dropColumn('card_provider'));
  await knex.schema.alterTable('payments', (table) => table.dropColumn('provider_session'));
  await knex.schema.alterTable('businesses', (table) => {
    table.dropColumn('stripe_key_hint');
    table.dropColumn('stripe_webhook_secret');
    table.dropColumn('stripe_secret_key');
    table.dropColumn('provider');
  });
}
