import type { Knex } from 'knex';

// Refunds, and payments that are charges on a saved card rather than a link's checkout.
//  - A payment keeps what was refunded of it (`amount_refunded`, reserved before the acquirer is
//    asked, so concurrent refunds race on one guarded UPDATE) and where that leaves it
//    (`refund_state`: 0 none, 1 partly, 2 fully), which `filter[status]` reads through an index.
//  - A payment is for exactly one of a payment link, an open link or a token (a charge).
//  - `reference` and `description` are the link's (copied when the payment is made) or the charge's.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.dropChecks(['payments_one_link']);
    t.bigInteger('amount_refunded').notNullable().defaultTo(0);
    t.integer('refund_state').notNullable().defaultTo(0);
    t.string('tokenization_id', 24).nullable().references('_id').inTable('tokens');
    t.string('reference', 255).nullable();
    t.string('description', 255).nullable();
  });
  await knex.schema.alterTable('payments', (t) => {
    const set = (column: string) => `case when ${column} is null then 0 else 1 end`;
    t.check(`${['payment_link_id', 'open_payment_link_id', 'tokenization_id'].map(set).join(' + ')} = 1`, [], 'payments_one_target');
    t.check('amount_refunded >= 0 and amount_refunded <= amount', [], 'payments_refund_within_amount');
    t.check('refund_state in (0, 1, 2)', [], 'payments_refund_state_known');
    t.dropIndex([], 'payments_status_id_page_index');
    t.index(['business_id', 'status_id', 'refund_state', 'created_at', '_id'], 'payments_status_page_index');
    t.index(['business_id', 'tokenization_id', 'created_at', '_id'], 'payments_tokenization_id_page_index');
    t.index(['business_id', 'reference', 'created_at', '_id'], 'payments_reference_page_index');
    // total-collection sums amount_refunded beside amount: both in the index keep it an index-only read.
    t.dropIndex(['open_payment_link_id', 'status_id', 'created_at', 'amount']);
    t.index(['open_payment_link_id', 'status_id', 'created_at', 'amount', 'amount_refunded'], 'payments_collection_totals_index');
  });
  await knex.schema.createTable('refunds', (t) => {
    t.string('_id', 24).primary();
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('payment_id', 24).notNullable().references('_id').inTable('payments');
    t.bigInteger('amount').notNullable();
    t.string('currency', 3).notNullable();
    /** pending (the acquirer has not answered) | succeeded | failed */
    t.string('status', 10).notNullable();
    t.string('reason', 255).nullable();
    t.string('provider_reference', 64).nullable();
    t.string('failure_code', 40).nullable();
    t.string('failure_message', 200).nullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
    t.check('?? > 0', ['amount'], 'refunds_amount_positive');
    t.check(`?? in ('pending', 'succeeded', 'failed')`, ['status'], 'refunds_status_known');
    t.index(['payment_id', 'created_at', '_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('refunds');
  await knex.schema.alterTable('payments', (t) => {
    t.dropChecks(['payments_one_target', 'payments_refund_within_amount', 'payments_refund_state_known']);
    t.dropIndex([], 'payments_status_page_index');
    t.dropIndex([], 'payments_tokenization_id_page_index');
    t.dropIndex([], 'payments_reference_page_index');
    t.index(['business_id', 'status_id', 'created_at', '_id'], 'payments_status_id_page_index');
    t.dropIndex([], 'payments_collection_totals_index');
    t.index(['open_payment_link_id', 'status_id', 'created_at', 'amount']);
  });
  await knex.schema.alterTable('payments', (t) => {
    t.dropForeign(['tokenization_id']);
    t.dropColumns('amount_refunded', 'refund_state', 'tokenization_id', 'reference', 'description');
    t.check('(payment_link_id is null) <> (open_payment_link_id is null)', [], 'payments_one_link');
  });
}
