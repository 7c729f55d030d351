// Migrations that rebuild a table on SQLite (Knex recreates it to change a CHECK) keep its rows, its
// triggers and the counts those triggers keep, on whichever database the suite runs on; 0022 sums the
// per-day counts already kept per month and year; 0024's checkout slots hold one pending payment each;
// 0038 gives each outbox attempt its entry's business and endpoint.
import type { Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { knexFor } from '../../server/store/database.js';
import { migrateUpTo } from '../../server/store/migrate.js';
import * as openLinkPaymentCounts from '../../server/store/migrations/0023_open_link_payment_counts.js';
import * as hostedCheckoutSlots from '../../server/store/migrations/0024_hosted_checkout_slots.js';
import { createTestDatabase } from '../support/database.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A database of its own, dropped after the test, migrated up to `last`. */
async function databaseUpTo(last: string): Promise<Knex> {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  const database = await createTestDatabase(dir);
  const db = knexFor(database.url);
  cleanup = async () => {
    await db.destroy();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  await migrateUpTo(db, last);
  return db;
}

describe('0012 and 0014 over existing rows', () => {
  it('keep links, payments and the counts of both', async () => {
    const db = await databaseUpTo('0011_payment_filters');
    const now = '2026-01-01T00:00:00.000000Z';
    await db('businesses').insert({ id: 1, name: 'Old', created_at: now });
    const link = (i: number, status: string) => ({
      _id: `${i}`.padStart(24, '0'),
      business_id: 1,
      email: 'p@example.com',
      currency: 'MYR',
      amount: 1000,
      title: `L${i}`,
      status,
      paid: status === 'Paid',
      created_at: now,
      updated_at: now,
    });
    await db('payment_links').insert([link(1, 'Active'), link(2, 'Paid'), link(3, 'Active')]);
    await db('open_payment_links').insert({
      _id: 'f'.repeat(24),
      business_id: 1,
      currency: 'MYR',
      minimum_amount: 500,
      title: 'Open',
      status_id: 2,
      created_at: now,
      updated_at: now,
    });
    const payment = (id: string, target: { payment_link_id: string } | { open_payment_link_id: string }, status_id: number, method: string) => ({
      _id: id.repeat(24),
      business_id: 1,
      ...target,
      attempt_id: `a${id}`,
      amount: 1000,
      currency: 'MYR',
      status_id,
      method,
      provider: 'sandbox',
      created_at: now,
      updated_at: now,
    });
    await db('payments').insert(payment('e', { payment_link_id: link(2, 'Paid')._id }, 1, 'card'));
    await db('payments').insert(payment('d', { open_payment_link_id: 'f'.repeat(24) }, 3, 'grabpay'));
    const counts = async () => (await db('record_counts').select('kind', 'live').orderBy('kind')).map((row) => [row.kind, Number(row.live)]);
    const before = await counts();

    // Up to the last migration before the counters of 0031 replaced these ones (counters.test.ts follows on).
    await migrateUpTo(db, '0027_redirect_signing_keys');
    // The link counts are as they were; 0013 adds the payments' own, counted from the rows.
    expect(await counts()).toEqual([...before, ['payments', 2]].sort(([x], [y]) => String(x).localeCompare(String(y))));
    expect(await db('payment_links').count({ n: '*' }).first()).toMatchObject({ n: expect.anything() });
    expect((await db('payment_links').select('_id', 'status').orderBy('_id')).map((row) => row.status)).toEqual(['Active', 'Paid', 'Active']);
    expect(await db('open_payment_links').first('state', 'status_id', 'payments_count')).toMatchObject({ state: 'paused', status_id: 2 });
    expect(await db('payments').first('amount_refunded', 'refund_state')).toMatchObject({ amount_refunded: expect.anything(), refund_state: 0 });
    // The triggers still count: a new link moves the count by one, once.
    await db('payment_links').insert(link(4, 'Active'));
    expect((await counts()).find(([kind]) => kind === 'payment_links')).toEqual(['payment_links', 4]);
    const daily = async (kind: string) =>
      (await db('daily_counts').where({ kind }).select('status', 'live').orderBy('status')).map((row) => [row.status, Number(row.live)]);
    expect(await daily('payments')).toEqual([
      ['1:0:card', 1],
      ['3:0:grabpay', 1],
    ]);
    // 0023 counted the payment on the open link under its link.
    const openLinkBucket = `${'f'.repeat(24)}:3:0:grabpay`;
    expect(await daily('open_link_payments')).toEqual([[openLinkBucket, 1]]);
    // 0022 summed the days counted before it per month and year, and its triggers count the new link there too.
    const sums = async (table: string, column: string) =>
      (
        await db(table)
          .select('kind', 'status', db.raw(`substr(${column}, 1, 4) as year`))
          .sum({ live: 'live' })
          .groupBy('kind', 'status', 'year')
          .orderBy(['kind', 'status', 'year'])
      ).map((row: Record<string, unknown>) => [row.kind, row.status, row.year, Number(row.live)]);
    const byDay = await sums('daily_counts', 'day');
    expect(byDay).toContainEqual(['payment_links', 'Active', '2026', 3]);
    expect(await sums('monthly_counts', 'month')).toEqual(byDay);
    expect(await sums('yearly_counts', 'year')).toEqual(byDay);

    // 0023 goes down to the triggers of 0013 (which still count payments) and up again over the rows.
    await openLinkPaymentCounts.down(db);
    for (const table of ['daily_counts', 'monthly_counts', 'yearly_counts'])
      expect(await db(table).where({ kind: 'open_link_payments' }).first()).toBeUndefined();
    await db('payments').insert(payment('c', { open_payment_link_id: 'f'.repeat(24) }, 3, 'grabpay'));
    expect(await daily('payments')).toEqual([
      ['1:0:card', 1],
      ['3:0:grabpay', 2],
    ]);
    await openLinkPaymentCounts.up(db);
    await db('payments').insert(payment('b', { open_payment_link_id: 'f'.repeat(24) }, 3, 'grabpay'));
    expect(await daily('open_link_payments')).toEqual([[openLinkBucket, 3]]);
    expect((await sums('yearly_counts', 'year')).filter(([kind]) => kind === 'open_link_payments')).toEqual([
      ['open_link_payments', openLinkBucket, '2026', 3],
    ]);

    // 0024: a link's checkout slot is held by one pending payment at a time, and frees itself when that
    // payment leaves pending; down and up again keep the rows and the counting triggers.
    const slotted = (id: string) => ({ ...payment(id, { open_payment_link_id: 'f'.repeat(24) }, 2, 'card'), checkout_slot: 0 });
    await db('payments').insert(slotted('9'));
    await expect(db('payments').insert(slotted('8'))).rejects.toThrow(/unique/i);
    await db('payments')
      .where({ _id: '9'.repeat(24) })
      .update({ status_id: 3 });
    await db('payments').insert(slotted('8'));
    await hostedCheckoutSlots.down(db);
    await db('payments').insert(payment('7', { open_payment_link_id: 'f'.repeat(24) }, 3, 'grabpay'));
    expect(await daily('open_link_payments')).toContainEqual([openLinkBucket, 4]);
    await hostedCheckoutSlots.up(db);
    expect(
      await db('payments')
        .where({ _id: '8'.repeat(24) })
        .first('checkout_slot', 'status_id'),
    ).toMatchObject({ checkout_slot: null, status_id: 2 });
    expect(Number((await db('payments').count({ n: '*' }).first())!.n)).toBe(7);
  });
});

describe('0038 over existing attempts', () => {
  it("gives each attempt its entry's business and endpoint (an e-mail's, none)", async () => {
    const db = await databaseUpTo('0037_card_last4_index');
    const now = '2026-01-01T00:00:00.000000Z';
    await db('businesses').insert({ id: 1, name: 'Old', created_at: now });
    await db('webhook_endpoints').insert({
      id: 7,
      _id: `we_${'a'.repeat(24)}`,
      business_id: 1,
      url: 'https://hooks.example.com/',
      enabled_events: '["*"]',
      secret: 'sealed',
      created_at: now,
      updated_at: now,
    });
    const entry = (id: number, channel: string, endpointId: number | null) => ({
      id,
      business_id: 1,
      endpoint_id: endpointId,
      channel,
      topic: 'payment.created',
      payload: '{}',
      event_id: channel === 'webhook' ? `evt_${String(id).repeat(24)}` : null,
      status: 'delivered',
      attempts: 1,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    });
    await db('outbox').insert([entry(1, 'webhook', 7), entry(2, 'email', null)]);
    const attempt = (outboxId: number) => ({ outbox_id: outboxId, attempt: 1, worker: 'w', started_at: now, finished_at: now, outcome: 'delivered' });
    await db('outbox_attempts').insert([attempt(1), attempt(2)]);

    await migrateUpTo(db, '0038_endpoint_deliveries');
    const rows = await db('outbox_attempts').select('outbox_id', 'business_id', 'endpoint_id').orderBy('outbox_id');
    expect(
      rows.map((row: Record<string, unknown>) => [Number(row.outbox_id), Number(row.business_id), row.endpoint_id === null ? null : Number(row.endpoint_id)]),
    ).toEqual([
      [1, 1, 7],
      [2, 1, null],
    ]);
  });
});
