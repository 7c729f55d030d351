import type { Knex } from 'knex';

// Power comes from a person: a key a member made is bound to that member (their current role caps
// what it may do; removing them revokes it), to the key that made it (a child cannot outlive its
// parent), and to the two-factor rule in force when it was made. The audit log says why a write was
// refused and what a change changed. Invitations count against a daily quota per business.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('created_by_user_id', 24).nullable().references('_id').inTable('users');
    t.integer('parent_key_id').nullable().references('id').inTable('api_keys');
    t.boolean('maker_two_factor_required').notNullable().defaultTo(false);
    t.index(['business_id', 'created_by_user_id']);
    t.index(['parent_key_id']);
  });
  // Keys made before by a member named them by e-mail: bind those to the member, where one by that
  // e-mail still belongs to the key's business. Keys made by keys (named by the maker key's name) and
  // by the operator stay unbound, as the operator's own.
  // A member's key was labelled with the member's e-mail as the users table holds it.
  const labelled = (await knex('api_keys')
    .join('users', 'users.email', 'api_keys.created_by')
    .join('memberships', function () {
      this.on('memberships.user_id', '=', 'users._id').andOn('memberships.business_id', '=', 'api_keys.business_id');
    })
    .select('api_keys.id as id', 'users._id as user_id')) as { id: number; user_id: string }[];
  for (const { id, user_id } of labelled) await knex('api_keys').where({ id }).update({ created_by_user_id: user_id });
  await knex.schema.alterTable('audit_events', (t) => {
    t.string('reason', 500).nullable();
    t.text('details').nullable();
  });
  await knex.schema.createTable('invitation_counts', (t) => {
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    /** YYYY-MM-DD, UTC. */
    t.string('day', 10).notNullable();
    t.integer('sent').notNullable();
    t.primary(['business_id', 'day']);
    t.check('?? >= 0', ['sent'], 'invitation_counts_sent_not_negative');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invitation_counts');
  await knex.schema.alterTable('audit_events', (t) => {
    t.dropColumns('reason', 'details');
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['parent_key_id']);
    t.dropIndex(['business_id', 'created_by_user_id']);
    t.dropForeign(['parent_key_id']);
    t.dropForeign(['created_by_user_id']);
    t.dropColumns('created_by_user_id', 'parent_key_id', 'maker_two_factor_required');
  });
}
