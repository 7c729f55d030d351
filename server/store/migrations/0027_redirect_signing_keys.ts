import type { Knex } from 'knex';

// Each business's key for the signature on its payers' redirects to its redirect_url, sealed at rest
// like webhook keys, made when first needed. A rotated-out key keeps signing beside the new one until
// previous_key_expires_at, so a merchant can switch keys without refusing a real payer.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('redirect_signing_keys', (table) => {
    table.integer('business_id').primary().references('id').inTable('businesses');
    table.text('key').notNullable();
    table.text('previous_key').nullable();
    table.timestamp('previous_key_expires_at', { useTz: true, precision: 6 }).nullable();
    table.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    table.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('redirect_signing_keys');
}
