import type { Knex } from 'knex';

// A refund the acquirer made is one row of ours, whichever path records it first (our own request's
// answer, the acquirer's notification, the pending sweep): the unique index decides between
// concurrent paths, where a look-up before the insert cannot. An acquirer's refund belongs to one
// payment, which names the acquirer, and that is the scope the reconciliation looks it up in.
export async function up(knex: Knex): Promise<void> {
  // Rows recorded twice before the index existed would make it fail half-way with an obscure error;
  // which of them to keep, and what the payment's refunded amount should then be, is an operator's call.
  const twice = await knex('refunds')
    .select('payment_id', 'provider_reference')
    .whereNotNull('provider_reference')
    .groupBy('payment_id', 'provider_reference')
    .havingRaw('count(*) > 1')
    .limit(10);
  if (twice.length > 0) {
    const list = twice.map((row: { payment_id: string; provider_reference: string }) => `${row.payment_id}/${row.provider_reference}`).join(', ');
    throw new Error(`refunds recorded more than once for one acquirer refund (payment/reference): ${list}; keep one row of each before migrating`);
  }
  await knex.raw('drop index refunds_provider_reference_index');
  await knex.raw('create unique index refunds_acquirer_refund_unique on refunds (payment_id, provider_reference) where provider_reference is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index refunds_acquirer_refund_unique');
  await knex.raw('create index refunds_provider_reference_index on refunds (provider_reference) where provider_reference is not null');
}
