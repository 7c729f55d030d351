import type { Knex } from 'knex';

// Where the money went (store/balance-transactions.ts, store/payouts.ts, store/bank-statements.ts):
//  - `balance_transactions` is the ledger: one immutable row per movement of a business's funds (a
//    payment taken, a refund, a refund that failed, a payout, a payout that failed, an adjustment).
//    Only `payout_id` is ever set afterwards, once, when a payout takes the entry. The partial unique
//    index lets each payment, refund or payout have at most one entry of each kind, whichever path
//    writes it first; adjustments (corrections) may be many.
//  - A payment keeps its charge entry's fee and net beside it, for its reads and its export.
//  - `payouts` groups entries into the sums a bank account receives; a payout's reconciliation says
//    whether its entries add up to it and whether its deposit was found on a bank statement.
//  - `bank_statements` and their lines: what a merchant uploaded, and which payout each line matched.
const LEDGER_FILTERS = ['type', 'payout_id', 'source_id', 'available_on'] as const;
const PAYOUT_FILTERS = ['status', 'arrival_date'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payouts', (t) => {
    t.string('_id', 24).primary();
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('provider', 20).notNullable();
    /** Sen, signed: a negative payout is a debit from the bank account. */
    t.bigInteger('amount').notNullable();
    t.string('currency', 3).notNullable();
    t.string('status', 12).notNullable();
    t.string('arrival_date', 10).notNullable();
    t.string('acquirer_reference', 64).notNullable();
    t.string('bank_reference', 64).nullable();
    t.integer('transaction_count').notNullable().defaultTo(0);
    t.string('reconciliation_status', 12).notNullable().defaultTo('expected');
    t.string('reconciliation_reason', 200).nullable();
    t.timestamp('reconciliation_checked_at', { useTz: true, precision: 6 }).nullable();
    /** Syncs that found the payout's entries not all known yet: at two, it is mismatched. */
    t.integer('incomplete_syncs').notNullable().defaultTo(0);
    t.string('failure_code', 40).nullable();
    t.string('failure_message', 200).nullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
    t.check(`?? in ('pending', 'in_transit', 'paid', 'failed', 'canceled')`, ['status'], 'payouts_status_known');
    t.check(`?? in ('matched', 'mismatched', 'expected', 'explained')`, ['reconciliation_status'], 'payouts_reconciliation_known');
    t.unique(['business_id', 'provider', 'acquirer_reference'], { indexName: 'payouts_acquirer_reference_unique' });
    t.index(['business_id', 'created_at', '_id'], 'payouts_page_index');
    for (const column of PAYOUT_FILTERS) t.index(['business_id', column, 'created_at', '_id'], `payouts_${column}_page_index`);
    t.index(['reconciliation_status', 'business_id'], 'payouts_reconciliation_index');
  });
  await knex.schema.createTable('balance_transactions', (t) => {
    t.string('_id', 24).primary();
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('type', 16).notNullable();
    /** Sen, signed: money in is positive. */
    t.bigInteger('amount').notNullable();
    t.bigInteger('fee').notNullable();
    t.bigInteger('net').notNullable();
    t.string('currency', 3).notNullable();
    /** The business's local day the funds are (or were) available on. */
    t.string('available_on', 10).notNullable();
    t.string('source_type', 12).notNullable();
    t.string('source_id', 24).notNullable();
    t.string('acquirer_reference', 64).nullable();
    t.string('payout_id', 24).nullable().references('_id').inTable('payouts');
    // A payment's description or a refund's reason, as long as the API takes them.
    t.string('description', 255).nullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.check(`?? in ('charge', 'refund', 'refund_failure', 'adjustment', 'payout', 'payout_failure')`, ['type'], 'balance_transactions_type_known');
    t.check(`?? in ('payment', 'refund', 'payout')`, ['source_type'], 'balance_transactions_source_known');
    t.check('net = amount - fee', [], 'balance_transactions_net_is_amount_less_fee');
    t.index(['business_id', 'created_at', '_id'], 'balance_transactions_page_index');
    for (const column of LEDGER_FILTERS) t.index(['business_id', column, 'created_at', '_id'], `balance_transactions_${column}_page_index`);
    // The payout sweep takes what is available and not yet paid out, by day.
    t.index(['business_id', 'payout_id', 'available_on'], 'balance_transactions_unpaid_index');
    // A payout's check sums its entries' net from the index alone.
    t.index(['payout_id', 'type', 'net'], 'balance_transactions_payout_sum_index');
  });
  await knex.raw(`create unique index balance_transactions_one_per_source on balance_transactions (type, source_id) where type <> 'adjustment'`);
  // The ledger's sums by the business's day and type, kept with each entry: the balance report reads
  // these, never the entries, so its cost follows the days asked for, not the entries behind them.
  await knex.schema.createTable('balance_daily_sums', (t) => {
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('currency', 3).notNullable();
    t.string('day', 10).notNullable();
    t.string('type', 16).notNullable();
    t.bigInteger('count').notNullable();
    t.bigInteger('amount').notNullable();
    t.bigInteger('fee').notNullable();
    t.bigInteger('net').notNullable();
    t.primary(['business_id', 'currency', 'day', 'type']);
  });
  await knex.schema.alterTable('payments', (t) => {
    t.bigInteger('fee').nullable();
    t.bigInteger('net').nullable();
    t.string('balance_transaction_id', 24).nullable();
  });
  await knex.schema.createTable('bank_statements', (t) => {
    t.string('_id', 24).primary();
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('format', 20).notNullable();
    t.string('file_name', 200).nullable();
    t.integer('line_count').notNullable();
    t.integer('matched_count').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.index(['business_id', 'created_at', '_id'], 'bank_statements_page_index');
  });
  await knex.schema.createTable('bank_statement_lines', (t) => {
    t.string('statement_id', 24).notNullable().references('_id').inTable('bank_statements');
    t.integer('line').notNullable();
    t.string('date', 10).nullable();
    t.bigInteger('amount').nullable();
    t.string('reference', 200).nullable();
    t.string('description', 200).nullable();
    t.string('payout_id', 24).nullable().references('_id').inTable('payouts');
    t.string('outcome', 20).notNullable();
    t.string('reason', 200).nullable();
    t.primary(['statement_id', 'line']);
    t.index(['payout_id'], 'bank_statement_lines_payout_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('bank_statement_lines');
  await knex.schema.dropTableIfExists('bank_statements');
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('fee');
    t.dropColumn('net');
    t.dropColumn('balance_transaction_id');
  });
  await knex.schema.dropTableIfExists('balance_daily_sums');
  await knex.schema.dropTableIfExists('balance_transactions');
  await knex.schema.dropTableIfExists('payouts');
}
