import type { Knex } from 'knex';

// A payment taken on a hosted acquirer's page (Stripe Checkout) holds one of its link's checkout slots
// while it is pending: the unique indexes below let a link have only so many checkouts open at once
// however many payers post at the same moment, and a slot frees itself when its payment leaves
// pending, whichever path settles it. `checkout_payer` stands for the payer's browser (an HMAC of its
// form cookie), so a browser that posts the form again is sent back to its own open checkout.
const INDEXES = [
  ['payments_open_checkout_of_payment_link', 'payment_link_id'],
  ['payments_open_checkout_of_open_link', 'open_payment_link_id'],
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (table) => {
    table.integer('checkout_slot').nullable();
    table.string('checkout_payer', 32).nullable();
  });
  for (const [name, column] of INDEXES) {
    await knex.raw(`create unique index ${name} on payments (${column}, checkout_slot) where status_id = 2 and checkout_slot is not null`);
  }
}

// Dropped with plain ALTER TABLE (both databases have it): Knex's SQLite dropColumn copies the table,
// which would leave it without the counting triggers of 0023.
export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`drop index ${name}`);
  for (const column of ['checkout_payer', 'checkout_slot']) await knex.raw(`alter table payments drop column ${column}`);
}
