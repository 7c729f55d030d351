import type { Knex } from 'knex';

// Members of businesses who sign in: users (one per e-mail, compared case-insensitively), their role in
// each business, their sessions (found by the hash of the cookie's value, never by the value), their
// two-factor recovery codes (hashed), and the one-time links that set a password (a new owner's, an
// invitation's). A business may require two-factor sign-in of every member.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.string('_id', 24).primary();
    t.string('email', 254).notNullable();
    // The e-mail in lower case: the unique index that makes two spellings one account.
    t.string('email_key', 254).notNullable().unique();
    t.string('name', 100).nullable();
    // scrypt$N$r$p$salt$hash; null until the user has set one through their link.
    t.string('password_hash', 255).nullable();
    // The TOTP secret, sealed with the secrets key; `totp_enabled_at` says whether it is on yet.
    t.text('totp_secret').nullable();
    t.timestamp('totp_enabled_at', { useTz: true, precision: 6 }).nullable();
    // The last time step a code was accepted for: a code is good once.
    t.bigInteger('totp_last_step').nullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
  });
  await knex.schema.createTable('memberships', (t) => {
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('user_id', 24).notNullable().references('_id').inTable('users');
    t.string('role', 16).notNullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.primary(['business_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.schema.createTable('user_sessions', (t) => {
    t.string('_id', 24).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_id', 24).notNullable().references('_id').inTable('users');
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('last_seen_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('expires_at', { useTz: true, precision: 6 }).notNullable();
    t.string('client_address', 64).nullable();
    t.string('user_agent', 512).nullable();
    t.index(['user_id', 'created_at']);
  });
  await knex.schema.createTable('recovery_codes', (t) => {
    t.string('user_id', 24).notNullable().references('_id').inTable('users');
    t.string('code_hash', 64).notNullable();
    t.timestamp('used_at', { useTz: true, precision: 6 }).nullable();
    t.primary(['user_id', 'code_hash']);
  });
  await knex.schema.createTable('account_links', (t) => {
    t.string('_id', 24).primary();
    t.string('token_hash', 64).notNullable().unique();
    // `owner_setup` and `set_password` (for an existing user), `invitation` (for an e-mail and a role).
    t.string('purpose', 16).notNullable();
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('email', 254).notNullable();
    t.string('email_key', 254).notNullable();
    t.string('role', 16).notNullable();
    t.string('invited_by', 24).nullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('expires_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('used_at', { useTz: true, precision: 6 }).nullable();
    t.timestamp('revoked_at', { useTz: true, precision: 6 }).nullable();
    t.index(['business_id', 'purpose', 'created_at']);
  });
  await knex.schema.alterTable('businesses', (t) => {
    t.boolean('require_two_factor').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('businesses', (t) => {
    t.dropColumn('require_two_factor');
  });
  for (const table of ['account_links', 'recovery_codes', 'user_sessions', 'memberships', 'users']) await knex.schema.dropTableIfExists(table);
}
