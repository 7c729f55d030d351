import type { Knex } from 'knex';

// Links that expire and pause, and open links that take a limited number of payments.
//  - payment_links.status gains `Paused` and `Expired` (the seed's `Active`/`Paid` keep their meaning).
//  - open_payment_links.state says why a link is inactive (`status_id` 2): paused, expired or
//    exhausted (it took `max_payments` payments); `status_id` stays 1 exactly when state is active.
//  - payments_count counts an open link's successful payments, raised in the transaction that
//    records each one under a guard on max_payments, so concurrent payers cannot pass the limit.
//  - Indexes on expires_at serve the sweep that marks links expired.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_links', (t) => {
    t.dropChecks(['payment_links_status_known']);
    t.timestamp('expires_at', { useTz: true, precision: 6 }).nullable();
  });
  await knex.schema.alterTable('payment_links', (t) => {
    t.check(`status in ('Active', 'Paid', 'Paused', 'Expired')`, [], 'payment_links_status_known');
    t.index(['status', 'expires_at'], 'payment_links_expiry_index');
  });
  await knex.schema.alterTable('open_payment_links', (t) => {
    t.string('state', 12).notNullable().defaultTo('active');
    t.timestamp('expires_at', { useTz: true, precision: 6 }).nullable();
    t.integer('max_payments').nullable();
    t.bigInteger('payments_count').notNullable().defaultTo(0);
  });
  await knex.raw(`update open_payment_links set state = 'paused' where status_id = 2`);
  await knex.raw(
    `update open_payment_links set payments_count = (select count(*) from payments where payments.open_payment_link_id = open_payment_links._id and payments.status_id = 1)`,
  );
  await knex.schema.alterTable('open_payment_links', (t) => {
    t.check(`state in ('active', 'paused', 'expired', 'exhausted')`, [], 'open_payment_links_state_known');
    t.check(`(state = 'active') = (status_id = 1)`, [], 'open_payment_links_state_matches_status');
    t.check('max_payments is null or max_payments > 0', [], 'open_payment_links_max_payments_positive');
    t.index(['state', 'expires_at'], 'open_payment_links_expiry_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('open_payment_links', (t) => {
    t.dropChecks(['open_payment_links_state_known', 'open_payment_links_state_matches_status', 'open_payment_links_max_payments_positive']);
    t.dropIndex([], 'open_payment_links_expiry_index');
  });
  await knex.schema.alterTable('open_payment_links', (t) => t.dropColumns('state', 'expires_at', 'max_payments', 'payments_count'));
  await knex.schema.alterTable('payment_links', (t) => {
    t.dropChecks(['payment_links_status_known']);
    t.dropIndex([], 'payment_links_expiry_index');
  });
  await knex.raw(`update payment_links set status = 'Active' where status in ('Paused', 'Expired')`);
  await knex.schema.alterTable('payment_links', (t) => {
    t.dropColumn('expires_at');
    t.check(`status in ('Active', 'Paid')`, [], 'payment_links_status_known');
  });
}
