import type { Knex } from 'knex';

// Where members have signed in from, and password resets by e-mail. A sign-in from a client (an
// address, an IPv6 /64) the member signed in from before passes the per-account ceiling on failed
// attempts that strangers can run up (server/rate-limits/secret-attempts.ts). A password reset is a
// one-time link e-mailed to the member, found by the hash of its token, used once.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sign_in_addresses', (t) => {
    t.string('user_id', 24).notNullable().references('_id').inTable('users');
    t.string('client', 64).notNullable();
    t.timestamp('first_signed_in_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('last_signed_in_at', { useTz: true, precision: 6 }).notNullable();
    t.primary(['user_id', 'client']);
    // The sweep forgets clients not seen for a while.
    t.index(['last_signed_in_at']);
  });
  await knex.schema.createTable('password_resets', (t) => {
    t.string('_id', 24).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_id', 24).notNullable().references('_id').inTable('users');
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('expires_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('used_at', { useTz: true, precision: 6 }).nullable();
    // Who asked, for the member's e-mail and the audit log.
    t.string('client_address', 64).nullable();
    t.index(['user_id', 'created_at']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('password_resets');
  await knex.schema.dropTableIfExists('sign_in_addresses');
}
