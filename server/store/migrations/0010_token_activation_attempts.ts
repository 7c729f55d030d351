import type { Knex } from 'knex';

// One row per submit of an activation form, keyed by the form's attempt id, written before the
// acquirer is asked to save the card: a second submit of the same form finds it and is answered as
// the first was, instead of saving the card again. Like payments, it keeps a decline's precise reason.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('token_activation_attempts', (table) => {
    table.string('attempt_id', 64).primary();
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('token_id', 24).notNullable().references('_id').inTable('tokens');
    /** pending | saved | declined | superseded (another attempt activated the token first) */
    table.string('status', 12).notNullable();
    table.string('failure_code', 40).nullable();
    table.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
    table.check(`?? in ('pending', 'saved', 'declined', 'superseded')`, ['status'], 'token_activation_attempts_status_known');
    table.index(['token_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('token_activation_attempts');
}
