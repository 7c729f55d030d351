import type { Knex } from 'knex';

// What payers are shown of a business: the name and brand on its payer pages and e-mails,
// how to reach it, the time zone of its receipts and the language its payers get by default. The
// logo's bytes live in a table of their own so reading a business for a page never drags them along.
// Links and tokens get the language their payer is expected to read (`locale`), optional.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('businesses', (t) => {
    t.string('display_name', 100).nullable();
    t.string('brand_color', 7).nullable();
    t.string('support_email', 254).nullable();
    t.string('support_phone', 20).nullable();
    t.string('time_zone', 64).nullable();
    t.string('default_locale', 5).nullable();
    t.timestamp('profile_updated_at', { useTz: true, precision: 6 }).nullable();
  });
  await knex.schema.createTable('business_logos', (t) => {
    t.integer('business_id').primary().references('id').inTable('businesses');
    t.string('content_type', 20).notNullable();
    t.string('sha256', 64).notNullable();
    t.binary('bytes').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
  });
  for (const table of ['payment_links', 'open_payment_links', 'tokens']) {
    await knex.schema.alterTable(table, (t) => {
      t.string('locale', 5).nullable();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['payment_links', 'open_payment_links', 'tokens']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('locale');
    });
  }
  await knex.schema.dropTableIfExists('business_logos');
  await knex.schema.alterTable('businesses', (t) => {
    for (const column of ['display_name', 'brand_color', 'support_email', 'support_phone', 'time_zone', 'default_locale', 'profile_updated_at'])
      t.dropColumn(column);
  });
}
