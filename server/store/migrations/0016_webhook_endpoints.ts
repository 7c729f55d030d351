import type { Knex } from 'knex';
import { newId } from '../../domain/ids.js';
import { nowIso } from '../timestamps.js';

// Webhook endpoints a business manages itself: several per business, each with its own URL, event
// filter and signing key (sealed at rest, bound to the business as the business's one key was), and
// the key it replaced while that one still signs beside it. The business's one webhook (the columns
// set-webhook wrote) becomes its first endpoint, its sealed key moved as it is; the old columns are
// emptied so no second copy of a key stays behind. Each webhook entry of the outbox names the
// endpoint it is for: one event sent to three endpoints is three entries with one event id.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.increments('id').primary();
    t.string('_id', 40).notNullable().unique();
    t.integer('business_id').notNullable().references('id').inTable('businesses');
    t.string('url', 2048).notNullable();
    t.string('description', 255).nullable();
    /** A JSON array of event names; ["*"] for every event. */
    t.text('enabled_events').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('secret').notNullable();
    t.text('previous_secret').nullable();
    t.timestamp('previous_secret_expires_at', { useTz: true, precision: 6 }).nullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable();
    t.timestamp('updated_at', { useTz: true, precision: 6 }).notNullable();
    t.index(['business_id', 'id'], 'webhook_endpoints_business_index');
  });
  await knex.schema.alterTable('outbox', (t) => {
    t.integer('endpoint_id').nullable();
  });
  const businesses: { id: number; webhook_url: string; webhook_secret: string }[] = await knex('businesses')
    .select('id', 'webhook_url', 'webhook_secret')
    .whereNotNull('webhook_url')
    .whereNotNull('webhook_secret')
    .orderBy('id');
  for (const business of businesses) {
    const now = nowIso();
    const [row] = (await knex('webhook_endpoints')
      .insert({
        _id: `we_${newId()}`,
        business_id: business.id,
        url: business.webhook_url,
        description: null,
        enabled_events: JSON.stringify(['*']),
        enabled: true,
        secret: business.webhook_secret,
        created_at: now,
        updated_at: now,
      })
      .returning('id')) as { id: number }[];
    // Entries waiting for delivery go where they would have gone.
    await knex('outbox')
      .where({ business_id: business.id, channel: 'webhook' })
      .update({ endpoint_id: Number(row!.id) });
  }
  if (businesses.length === 0) return;
  // On SQLite the emptied columns' old bytes are zeroed rather than left in free space: a key an
  // earlier version kept in clear must not outlive its move (seal-legacy-secrets.ts seals the moved copy).
  const sqlite = knex.client.config.client !== 'pg';
  if (sqlite) await knex.raw('PRAGMA secure_delete = ON');
  await knex('businesses').update({ webhook_url: null, webhook_secret: null });
  if (sqlite) await knex.raw('PRAGMA secure_delete = OFF');
}

export async function down(knex: Knex): Promise<void> {
  const firsts: { business_id: number; url: string; secret: string }[] = await knex('webhook_endpoints as e')
    .select('e.business_id', 'e.url', 'e.secret')
    .whereRaw('e.id = (select min(f.id) from webhook_endpoints f where f.business_id = e.business_id)');
  for (const first of firsts) await knex('businesses').where({ id: first.business_id }).update({ webhook_url: first.url, webhook_secret: first.secret });
  await knex.schema.alterTable('outbox', (t) => t.dropColumn('endpoint_id'));
  await knex.schema.dropTableIfExists('webhook_endpoints');
}
