import type { Knex } from 'knex';
import { newId } from '../../domain/ids.js';

// API keys a business makes and revokes itself: a public id the API names them by, a name, what a
// restricted key may do (null: everything, as every key made before), an expiry, who made it and when
// it was last used. Keys made before get an id; their last four characters were never stored.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('public_id', 24).nullable().unique();
    t.string('name', 100).nullable();
    t.string('last_four', 4).nullable();
    t.text('permissions').nullable();
    t.timestamp('expires_at', { useTz: true, precision: 6 }).nullable();
    t.string('created_by', 320).nullable();
    t.timestamp('last_used_at', { useTz: true, precision: 6 }).nullable();
  });
  const existing = await knex('api_keys').select('id').whereNull('public_id');
  for (const { id } of existing as { id: number }[]) await knex('api_keys').where({ id }).update({ public_id: newId() });
  await knex.schema.alterTable('api_keys', (t) => {
    t.index(['business_id', 'revoked_at', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['business_id', 'revoked_at', 'created_at']);
    t.dropUnique(['public_id']);
    t.dropColumns('public_id', 'name', 'last_four', 'permissions', 'expires_at', 'created_by', 'last_used_at');
  });
}
