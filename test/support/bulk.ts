// Many rows of a business at once, planted straight into the tables (the triggers still count them),
// for tests about how reads behave when a business has a lot of them.
import type { Knex } from 'knex';

const CHUNK = 200;
const BASE = Date.UTC(2025, 0, 1);
const hex = (prefix: string, n: number) => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;
const at = (n: number) => new Date(BASE + n * 1_000).toISOString().replace('Z', '000Z');

async function inChunks(sql: Knex, table: string, count: number, row: (i: number) => Record<string, unknown>): Promise<void> {
  for (let from = 0; from < count; from += CHUNK) {
    await sql(table).insert(Array.from({ length: Math.min(CHUNK, count - from) }, (_, k) => row(from + k)));
  }
}

/**
 * `count` paid card payments of the business on one open link of its own, one a second from
 * 2025-01-01, all with the reference given.
 */
export async function plantPayments(sql: Knex, businessId: number, count: number, { prefix = 'd', reference = 'BULK' } = {}): Promise<void> {
  const link = hex(`${prefix}${businessId}f`, 0);
  await sql('open_payment_links').insert({
    _id: link,
    business_id: businessId,
    currency: 'MYR',
    minimum_amount: 500,
    title: 'Bulk',
    status_id: 1,
    created_at: at(0),
    updated_at: at(0),
  });
  await inChunks(sql, 'payments', count, (i) => ({
    _id: hex(`${prefix}${businessId}`, i),
    business_id: businessId,
    open_payment_link_id: link,
    attempt_id: `bulk-${prefix}-${businessId}-${i}`,
    amount: 1000 + (i % 1000),
    amount_refunded: 0,
    refund_state: 0,
    currency: 'MYR',
    status_id: 1,
    payer_name: `Payer ${i}`,
    payer_email: `payer${i}@example.com`,
    method: 'card',
    provider: 'sandbox',
    provider_reference: `sbx_bulk_${i}`,
    reference,
    description: `Invoice ${i} of a long run of them, with some text to make the line longer`,
    card_brand: 'visa',
    card_last4: '4242',
    created_at: at(i),
    updated_at: at(i),
  }));
}

/** `count` webhook events of the business, one outbox entry each, pending their first attempt. */
export async function plantEvents(sql: Knex, businessId: number, count: number): Promise<void> {
  await inChunks(sql, 'outbox', count, (i) => ({
    business_id: businessId,
    channel: 'webhook',
    topic: 'payment.created',
    event_id: `evt_bulk_${businessId}_${i}`,
    payload: JSON.stringify({ id: `evt_bulk_${businessId}_${i}`, body: { trigger_at: at(i), data: { payment_id: hex('d', i) } } }),
    status: 'pending',
    attempts: 0,
    // Not due for a long time: the outbox worker leaves them alone.
    next_attempt_at: '2099-01-01T00:00:00.000000Z',
    created_at: at(i),
    updated_at: at(i),
  }));
}
