import type { Knex } from 'knex';

// GET /api/payments filtered by status and method together: each alone has its index (0011, 0012),
// but through either one a page read every payment of the other's value to find the few of both
// (a status most payments have, a method few do). One index holds both and then the order.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.index(['business_id', 'status_id', 'refund_state', 'method', 'created_at', '_id'], 'payments_status_method_page_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => t.dropIndex([], 'payments_status_method_page_index'));
}
