import type { Knex } from 'knex';

// Backups taken and verified (`npm run backup`, or the service on BACKUP_SCHEDULE): kept in the database so
// that every instance reads the same "last good backup", whichever instance or host made or verified it.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('backup_runs', (t) => {
    t.increments('id').primary();
    /** `created` once the archive is written, then `verified` or `failed` once a verify read it back. */
    t.string('status', 16).notNullable();
    t.string('file', 1000).notNullable();
    t.string('sha256', 64).nullable();
    t.string('last_migration', 200).nullable();
    t.text('error').nullable();
    t.string('created_at', 32).notNullable();
    t.string('verified_at', 32).nullable();
    t.index(['status', 'verified_at'], 'backup_runs_verified_index');
  });
  // Of several instances on one database, the one holding this lease runs the scheduled backup.
  await knex.schema.createTable('backup_lease', (t) => {
    t.string('name', 32).primary();
    t.string('holder', 64).notNullable();
    t.string('expires_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('backup_lease');
  await knex.schema.dropTable('backup_runs');
}
