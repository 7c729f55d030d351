import type { Knex } from 'knex';

// A logo is kept and served only as the service drew it again (usecases/merchant/logo-image.ts). Logos uploaded
// before were kept as uploaded: they are marked not redrawn, are not served, and are drawn again (or,
// when they do not decode, removed) once the service has started (usecases/merchant/business-profile.ts).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('business_logos', (t) => {
    t.boolean('redrawn').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('business_logos', (t) => {
    t.dropColumn('redrawn');
  });
}
