import type { Knex } from 'knex';

// The payer e-mails a business's API calls made the service send (a payment request by send_email),
// one row per business and UTC day. The row is bumped in the transaction that enqueues the e-mail,
// by one statement that refuses to pass the day's cap, so concurrent requests cannot pass it either.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payer_email_counts', (table) => {
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    /** YYYY-MM-DD, UTC. */
    table.string('day', 10).notNullable();
    table.integer('sent').notNullable();
    table.primary(['business_id', 'day']);
    table.check('?? >= 0', ['sent'], 'payer_email_counts_sent_not_negative');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payer_email_counts');
}
