import type { Knex } from 'knex';

// Rate-limit windows longer than a second (the payer pages count attempts over minutes): each row
// says how long its window lasts, so sweeping old one-second windows leaves a current long one alone.
// Rows written before this (and by instances not yet upgraded) are one-second windows.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rate_limit_windows', (table) => {
    table.integer('window_seconds').notNullable().defaultTo(1);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rate_limit_windows', (table) => {
    table.dropColumn('window_seconds');
  });
}
