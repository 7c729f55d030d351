// A business with many rows, made by the database itself (one INSERT ... SELECT per table over a
// series of numbers), for the backup suites: payments, refunds, webhook events and audit events in the
// hundred thousands in seconds (the round trip of test/store/backup-round-trip.test.ts, the times of
// scripts/bench/backup-times.ts), counted by the counters' triggers as the service's own writes are,
// unless told not to count them on PostgreSQL (`counted: false`, a tenth of the time there): the
// counters then miss these rows, which a backup copies as it finds them.
import type { Knex } from 'knex';

export interface DatasetSizes {
  payments: number;
  /** One payment in `refundEvery` is refunded in full. */
  refundEvery: number;
  events: number;
  audit: number;
  /** PostgreSQL: false plants the rows with triggers off (session_replication_role = replica); SQLite always counts them. */
  counted?: boolean;
}

const START = 1_735_689_600; // 2025-01-01, in seconds

/** Plants the rows of `businessId` on one open link of its own; returns how many of each it planted. */
export async function plantDataset(sql: Knex, businessId: number, sizes: DatasetSizes): Promise<Record<string, number>> {
  const pg = sql.client.config.client === 'pg';
  const series = (from: number, to: number) =>
    pg
      ? `generate_series(${from}, ${to - 1}) as n(i)`
      : `(with recursive s(i) as (select ${from} union all select i + 1 from s where i < ${to - 1}) select i from s) as n`;
  const counted = !pg || sizes.counted !== false;
  // PostgreSQL's counter triggers walk every version of a counter row the statement made before: small statements, few to a transaction.
  const chunk = pg && counted ? 400 : 100_000;
  const each = async (count: number, statement: (from: string) => string) => {
    for (let start = 0; start < count; start += chunk * 5) {
      await sql.transaction(async (tx) => {
        if (!counted) await tx.raw('set local session_replication_role = replica');
        for (let from = start; from < Math.min(count, start + chunk * 5); from += chunk) await tx.raw(statement(series(from, Math.min(count, from + chunk))));
      });
    }
  };
  const id = (prefix: string) => (pg ? `'${prefix}' || lpad(to_hex(n.i), ${24 - prefix.length}, '0')` : `printf('${prefix}%0${24 - prefix.length}x', n.i)`);
  const at = (offset: number) =>
    pg ? `to_timestamp(${START + offset} + n.i * 60)` : `strftime('%Y-%m-%dT%H:%M:%S.000000Z', ${START + offset} + n.i * 60, 'unixepoch')`;
  const link = `b${businessId}`.padEnd(24, 'f');
  await sql('open_payment_links').insert({
    _id: link,
    business_id: businessId,
    currency: 'MYR',
    minimum_amount: 500,
    title: 'Backups',
    status_id: 1,
    created_at: '2025-01-01T00:00:00.000000Z',
    updated_at: '2025-01-01T00:00:00.000000Z',
  });
  const refunded = (column: string) => `case when n.i % ${sizes.refundEvery} = 0 then ${column} else 0 end`;
  await each(
    sizes.payments,
    (from) =>
      `insert into payments (_id, business_id, open_payment_link_id, attempt_id, amount, amount_refunded, refund_state, currency, status_id,
       payer_name, payer_email, method, provider, provider_reference, reference, description, card_brand, card_last4, created_at, updated_at)
     select ${id('e')}, ${businessId}, '${link}', 'bk-' || n.i, 1000 + n.i % 1000, ${refunded('1000 + n.i % 1000')}, ${refunded('2')}, 'MYR', 1,
       'Payer ' || n.i, 'payer' || (n.i / 10) || '@example.com', 'card', 'sandbox', 'sbx_' || n.i, 'REF-' || (n.i / 10), 'Invoice ' || n.i, 'visa', '4242', ${at(0)}, ${at(0)}
     from ${from}`,
  );
  await each(
    sizes.payments,
    (from) =>
      `insert into refunds (_id, business_id, payment_id, amount, currency, status, reason, provider_reference, created_at, updated_at)
     select ${id('f')}, ${businessId}, ${id('e')}, 1000 + n.i % 1000, 'MYR', 'succeeded', 'Returned ' || n.i, 'sbx_re_' || n.i, ${at(30)}, ${at(30)}
     from ${from} where n.i % ${sizes.refundEvery} = 0`,
  );
  await each(
    sizes.events,
    (from) =>
      `insert into outbox (business_id, channel, topic, event_id, payload, status, attempts, next_attempt_at, delivered_at, created_at, updated_at)
     select ${businessId}, 'webhook', 'payment.created', 'evt_bk_' || n.i, '{"id":"evt_bk_' || n.i || '"}', 'delivered', 1, ${at(31)}, ${at(32)}, ${at(31)}, ${at(32)}
     from ${from}`,
  );
  await each(
    sizes.audit,
    (from) =>
      `insert into audit_events (_id, business_id, created_at, actor_kind, actor_id, actor_label, action, outcome, status, client_address, user_agent, request_id)
     select ${id('d')}, ${businessId}, ${at(33)}, 'api_key', 'key_' || (n.i % 20), 'Back office', 'createRefund', 'succeeded', 200, '127.0.0.1', 'backup-test', 'req_' || n.i
     from ${from}`,
  );
  await each(
    sizes.audit,
    (from) =>
      `insert into audit_event_targets (event_id, business_id, target_id, created_at) select ${id('d')}, ${businessId}, ${id('e')}, ${at(33)} from ${from}`,
  );
  return { payments: sizes.payments, refunds: Math.ceil(sizes.payments / sizes.refundEvery), outbox: sizes.events, audit_events: sizes.audit };
}
