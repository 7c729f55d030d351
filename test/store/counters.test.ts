// The counters declared once (server/store/counters/): the database runs exactly the declared
// triggers, a write touches the counter rows the declaration promises (and fewer than the per-period
// triggers it replaced did), and `migrations/0031_declared_counters.ts` keeps every total those triggers had kept.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { localDay } from '../../server/domain/local-days.js';
import { byDay, byYear, COLLECTION_COUNTS, COUNTERS, liveTriggers, MONTH_COLUMNS, type Counter } from '../../server/store/counters/declaration.js';
import { knexFor } from '../../server/store/database.js';
import { migrateLatest, migrateUpTo } from '../../server/store/migrate.js';
import * as declaredCounters from '../../server/store/migrations/0031_declared_counters.js';
import * as collectionCounts from '../../server/store/migrations/0036_collection_counts.js';
import { toIsoMicros } from '../../server/store/timestamps.js';
import { createTestDatabase } from '../support/database.js';
import { SEARCHED } from '../../server/store/text-search.js';

/** The last migration before 0031: the old counters' triggers. */
const BEFORE_COUNTERS = '0027_redirect_signing_keys';
const OLD_TABLES = ['record_counts', 'daily_counts', 'monthly_counts', 'yearly_counts'];
const NEW_TABLES = COUNTERS.flatMap((counter) => [byDay(counter), byYear(counter)]);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function database(): Promise<{ db: Knex; postgres: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'counters-'));
  const created = await createTestDatabase(dir);
  const db = knexFor(created.url);
  cleanups.push(async () => {
    await db.destroy();
    await created.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, postgres: created.kind === 'postgres' };
}

const at = (day: string, time = '12:00:00') => `${day}T${time}.000000Z`;
const id = (prefix: string, n: number) => `${prefix}${String(n).padStart(24 - prefix.length, '0')}`;
const link = (n: number, business: number, status: string, created: string) => ({
  _id: id('1', n),
  business_id: business,
  email: 'p@example.com',
  currency: 'MYR',
  amount: 1000,
  title: `L${n}`,
  status,
  paid: status === 'Paid',
  created_at: created,
  updated_at: created,
});
const openLink = (n: number, business: number, statusId: number, created: string) => ({
  _id: id('2', n),
  business_id: business,
  currency: 'MYR',
  minimum_amount: 500,
  title: `O${n}`,
  status_id: statusId,
  state: statusId === 1 ? 'active' : 'paused',
  created_at: created,
  updated_at: created,
});
const payment = (
  n: number,
  business: number,
  target: { payment_link_id: string } | { open_payment_link_id: string },
  statusId: number,
  method: string,
  created: string,
) => ({
  _id: id('3', n),
  business_id: business,
  ...target,
  attempt_id: `attempt-${n}`,
  amount: 1000,
  currency: 'MYR',
  status_id: statusId,
  method,
  provider: 'sandbox',
  created_at: created,
  updated_at: created,
});

/** Every row of the tables, as text, to see which a write changed; on PostgreSQL with its row version, so a row rewritten with the same values counts too. */
async function snapshot(db: Knex, tables: string[]): Promise<Set<string>> {
  const version = db.client.config.client === 'pg' ? [db.raw('xmin::text as version')] : [];
  const rows = new Set<string>();
  for (const table of tables) for (const row of await db(table).select('*', ...version)) rows.add(`${table} ${JSON.stringify(row)}`);
  return rows;
}

/** How many counter rows `write` inserted or changed. */
async function rowsWritten(db: Knex, tables: string[], write: () => Promise<unknown>): Promise<number> {
  const before = await snapshot(db, tables);
  await write();
  return [...(await snapshot(db, tables))].filter((row) => !before.has(row)).length;
}

describe('the declared counters', () => {
  it('are kept by exactly the triggers the declaration names', async () => {
    const { db, postgres } = await database();
    await migrateLatest(db);
    const names = postgres
      ? (await db.raw<{ rows: { tgname: string }[] }>('select tgname from pg_trigger where not tgisinternal')).rows.map((row) => row.tgname)
      : (await db('sqlite_master').where({ type: 'trigger' }).select('name')).map((row: { name: string }) => row.name);
    // Besides the counters, the events list's row per event and its count (`migrations/0028_webhook_events.ts`).
    const eventList = postgres
      ? ['outbox_webhook_events', 'webhook_events_count']
      : [
          'outbox_webhook_events_delete',
          'outbox_webhook_events_insert',
          'outbox_webhook_events_update',
          'webhook_events_count_delete',
          'webhook_events_count_insert',
        ];
    // And on SQLite the text-search tables' (`migrations/0048_text_search.ts`), kept by the searched tables' triggers.
    const textSearch = postgres ? [] : Object.keys(SEARCHED).flatMap((table) => ['delete', 'insert', 'update'].map((event) => `${table}_search_${event}`));
    expect(names.sort()).toEqual([...liveTriggers(postgres ? 'postgres' : 'sqlite'), ...eventList, ...textSearch].sort());
  });

  it('write at most 2 counter rows per link and 4 per payment, where the old triggers wrote 4 and 7', async () => {
    const written: Record<string, Record<string, number>> = {};
    let postgres = false;
    for (const [version, tables] of [
      ['before', OLD_TABLES],
      ['after', NEW_TABLES],
    ] as const) {
      const opened = await database();
      const { db } = opened;
      postgres = opened.postgres;
      if (version === 'before') await migrateUpTo(db, BEFORE_COUNTERS);
      else await migrateLatest(db);
      await db('businesses').insert({ id: 1, name: 'Counted', created_at: at('2026-01-01') });
      const write = (work: () => Promise<unknown>) => rowsWritten(db, tables, work);
      const day = at('2026-03-04');
      written[version] = {
        'payment link created': await write(() => db('payment_links').insert(link(1, 1, 'Active', day))),
        'open link created': await write(() => db('open_payment_links').insert(openLink(1, 1, 1, day))),
        'payment on a payment link': await write(() => db('payments').insert(payment(1, 1, { payment_link_id: id('1', 1) }, 2, 'card', day))),
        'payment on an open link': await write(() => db('payments').insert(payment(2, 1, { open_payment_link_id: id('2', 1) }, 2, 'card', day))),
        'its status changes': await write(() =>
          db('payments')
            .where({ _id: id('3', 2) })
            .update({ status_id: 1 }),
        ),
        'it is refunded in part': await write(() =>
          db('payments')
            .where({ _id: id('3', 2) })
            .update({ refund_state: 1, amount_refunded: 100 }),
        ),
        'an update that moves nothing': await write(() =>
          db('payments')
            .where({ _id: id('3', 2) })
            .update({ status_id: 1, updated_at: at('2026-03-05') }),
        ),
      };
    }
    expect(written).toEqual({
      before: {
        'payment link created': 4,
        'open link created': 4,
        'payment on a payment link': 4,
        'payment on an open link': 7,
        'its status changes': 12,
        'it is refunded in part': 12,
        // Taken out of its counts and put back: only PostgreSQL's row versions show the rewrites.
        'an update that moves nothing': postgres ? 6 : 0,
      },
      after: {
        'payment link created': 2,
        'open link created': 2,
        'payment on a payment link': 2,
        'payment on an open link': 4,
        'its status changes': 8,
        'it is refunded in part': 8,
        'an update that moves nothing': 0,
      },
    });
  });
});

/** Every non-zero total the old tables kept, per business, kind and bucket: by day, month and year, and per kind. */
async function oldTotals(db: Knex): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  const add = (key: string, live: unknown) => Number(live) !== 0 && totals.set(key, Number(live));
  for (const [table, column] of [
    ['daily_counts', 'day'],
    ['monthly_counts', 'month'],
    ['yearly_counts', 'year'],
  ] as const) {
    for (const row of await db(table).select()) add(`${row.business_id} ${row.kind} ${row.status} ${row[column]}`, row.live);
  }
  for (const row of await db('record_counts').select()) add(`${row.business_id} ${row.kind}`, row.live);
  return totals;
}

/** The same totals from the declared counters' tables, with the old tables' kinds and encoded buckets. */
async function newTotals(db: Knex): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  const add = (key: string, live: unknown) => Number(live) !== 0 && totals.set(key, (totals.get(key) ?? 0) + Number(live));
  const kinds: Record<string, { kind: string; bucket: (row: Record<string, unknown>) => string; total: boolean }> = {
    payment_link_counts: { kind: 'payment_links', bucket: (row) => `${row.status}`, total: true },
    open_payment_link_counts: { kind: 'open_payment_links', bucket: (row) => `${row.status_id}`, total: true },
    payment_counts: { kind: 'payments', bucket: (row) => `${row.status_id}:${row.refund_state}:${row.method}`, total: true },
    open_link_payment_counts: {
      kind: 'open_link_payments',
      bucket: (row) => `${row.open_payment_link_id}:${row.status_id}:${row.refund_state}:${row.method}`,
      total: false,
    },
  };
  for (const counter of COUNTERS as Counter[]) {
    const { kind, bucket, total } = kinds[counter.name]!;
    for (const row of await db(byDay(counter)).select('*', db.raw('cast(day as text) as day_text')))
      add(`${row.business_id} ${kind} ${bucket(row)} ${row.day_text}`, row.live);
    for (const row of await db(byYear(counter)).select()) {
      const key = `${row.business_id} ${kind} ${bucket(row)}`;
      add(`${key} ${row.year}`, row.live);
      MONTH_COLUMNS.forEach((month, i) => add(`${key} ${row.year}-${String(i + 1).padStart(2, '0')}`, row[month]));
      if (total) add(`${row.business_id} ${kind}`, row.live);
    }
  }
  return totals;
}

describe('migrations/0031_declared_counters.ts', () => {
  it('keeps every total the old triggers kept, and goes down to them and up again', async () => {
    const { db } = await database();
    await migrateUpTo(db, BEFORE_COUNTERS);
    await db('businesses').insert([
      { id: 1, name: 'A', created_at: at('2024-01-01') },
      { id: 2, name: 'B', created_at: at('2024-01-01') },
    ]);
    const days = ['2024-12-31', '2025-01-01', '2025-02-28', '2026-03-04'];
    const statuses = ['Active', 'Paid', 'Paused', 'Expired'];
    const methods = ['card', 'fpx', 'grabpay'];
    await db('payment_links').insert(Array.from({ length: 24 }, (_, n) => link(n, 1 + (n % 2), statuses[n % 4]!, at(days[n % 4]!, `0${n % 10}:00:00`))));
    await db('open_payment_links').insert(Array.from({ length: 6 }, (_, n) => openLink(n, 1 + (n % 2), 1 + (n % 2), at(days[n % 4]!))));
    const payments = Array.from({ length: 60 }, (_, n) => {
      const business = 1 + (n % 2);
      const target = n % 3 === 0 ? { payment_link_id: id('1', n / 3) } : { open_payment_link_id: id('2', (n % 3) * 2 + (business - 1)) };
      return payment(n, business, target, 2, methods[n % 3]!, at(days[(n * 7) % 4]!, `1${n % 10}:00:00`));
    });
    await db('payments').insert(payments);
    // Counted by the old triggers as the rows changed: states, refunds, moves, soft and hard deletes.
    await db('payments')
      .whereIn(
        '_id',
        payments.filter((_, n) => n % 4 !== 3).map((p) => p._id),
      )
      .update({ status_id: 1 });
    await db('payments')
      .whereIn(
        '_id',
        payments
          .filter((_, n) => n % 4 === 3)
          .map((p) => p._id)
          .slice(0, 5),
      )
      .update({ status_id: 3 });
    await db('payments')
      .whereIn(
        '_id',
        payments.filter((_, n) => n % 5 === 0 && n % 4 !== 3).map((p) => p._id),
      )
      .update({ refund_state: 1, amount_refunded: 100 });
    await db('payments')
      .whereIn(
        '_id',
        payments.filter((_, n) => n % 10 === 0).map((p) => p._id),
      )
      .update({ refund_state: 2, amount_refunded: 1000 });
    await db('payments')
      .where({ _id: payments[7]!._id })
      .update({ created_at: at('2025-07-01'), method: 'fpx' });
    await db('payments').where({ _id: payments[11]!._id }).delete();
    await db('payment_links')
      .where({ _id: id('1', 3) })
      .update({ deleted_at: at('2026-03-05') });
    await db('payment_links')
      .where({ _id: id('1', 5) })
      .update({ status: 'Expired' });
    await db('open_payment_links')
      .where({ _id: id('2', 2) })
      .update({ status_id: 2, state: 'paused' });
    await db('open_payment_links')
      .where({ _id: id('2', 4) })
      .update({ deleted_at: at('2026-03-05') });
    const before = await oldTotals(db);
    expect(before.size).toBeGreaterThan(100);

    expect(await migrateLatest(db)).toContain('0031_declared_counters');
    expect(await newTotals(db)).toEqual(before);
    for (const table of OLD_TABLES) expect(await db.schema.hasTable(table)).toBe(false);

    // Down: the old tables and triggers, counted from the rows, with the same totals; they count again.
    await declaredCounters.down(db);
    expect(await oldTotals(db)).toEqual(before);
    await db('payments').where({ _id: payments[13]!._id }).update({ status_id: 3 });
    const moved = await oldTotals(db);
    expect(moved).not.toEqual(before);
    await declaredCounters.up(db);
    expect(await newTotals(db)).toEqual(moved);
  });
});

/** The collections report's counter as totals per business, kind and day, and per month, with their sums. */
async function collectionTotals(db: Knex): Promise<Map<string, string>> {
  const totals = new Map<string, [number, number, number]>();
  const add = (key: string, live: unknown, amount: unknown, refunded: unknown) => {
    const [l, a, r] = totals.get(key) ?? [0, 0, 0];
    totals.set(key, [l + Number(live), a + Number(amount), r + Number(refunded)]);
  };
  for (const row of await db(byDay(COLLECTION_COUNTS)).select('*', db.raw('cast(day as text) as day_text')))
    add(`${row.business_id} ${row.currency}:${row.status_id}:${row.method} ${row.day_text}`, row.live, row.amount, row.amount_refunded);
  for (const row of await db(byYear(COLLECTION_COUNTS)).select()) {
    const key = `${row.business_id} ${row.currency}:${row.status_id}:${row.method}`;
    add(`${key} ${row.year}`, row.live, row.amount, row.amount_refunded);
    MONTH_COLUMNS.forEach((month, i) =>
      add(`${key} ${row.year}-${String(i + 1).padStart(2, '0')}`, row[month], row[`amount_${month}`], row[`amount_refunded_${month}`]),
    );
  }
  return new Map([...totals].filter(([, [live, amount, refunded]]) => live !== 0 || amount !== 0 || refunded !== 0).map(([key, v]) => [key, v.join(' ')]));
}

/** The same totals made from the payments themselves, each on its local day (or, without one, its day in Kuala Lumpur). */
async function collectionTotalsOfRows(db: Knex): Promise<Map<string, string>> {
  const totals = new Map<string, [number, number, number]>();
  for (const p of await db('payments').select('*', db.raw('cast(local_day as text) as local_text'))) {
    const day: string = p.local_text ?? localDay(toIsoMicros(p.created_at), 'Asia/Kuala_Lumpur');
    const key = `${p.business_id} ${p.currency}:${p.status_id}:${p.method}`;
    for (const bucket of [`${key} ${day}`, `${key} ${day.slice(0, 7)}`, `${key} ${Number(day.slice(0, 4))}`]) {
      const [l, a, r] = totals.get(bucket) ?? [0, 0, 0];
      totals.set(bucket, [l + 1, a + Number(p.amount), r + Number(p.amount_refunded)]);
    }
  }
  return new Map([...totals].map(([key, v]) => [key, v.join(' ')]));
}

describe("the collections report's counter (migrations/0036_collection_counts.ts)", () => {
  it('writes 2 counter rows per payment, 4 when its state changes, 2 when a refund changes its sums, none otherwise', async () => {
    const { db } = await database();
    await migrateLatest(db);
    await db('businesses').insert({ id: 1, name: 'Counted', created_at: at('2026-01-01') });
    await db('open_payment_links').insert(openLink(1, 1, 1, at('2026-03-04')));
    const tables = [byDay(COLLECTION_COUNTS), byYear(COLLECTION_COUNTS)];
    const write = (work: () => Promise<unknown>) => rowsWritten(db, tables, work);
    const target = { open_payment_link_id: id('2', 1) };
    const row = { ...payment(1, 1, target, 2, 'card', at('2026-03-04')), local_day: '2026-03-04' };
    expect({
      inserted: await write(() => db('payments').insert(row)),
      'state changed': await write(() => db('payments').where({ _id: row._id }).update({ status_id: 1 })),
      'refunded in part': await write(() => db('payments').where({ _id: row._id }).update({ refund_state: 1, amount_refunded: 100 })),
      'nothing counted changed': await write(() =>
        db('payments')
          .where({ _id: row._id })
          .update({ status_id: 1, updated_at: at('2026-03-05') }),
      ),
    }).toEqual({ inserted: 2, 'state changed': 4, 'refunded in part': 2, 'nothing counted changed': 0 });
  });

  it('sets the days of the payments there are in their business zones, and keeps every count and sum as the rows change', async () => {
    const { db } = await database();
    await migrateUpTo(db, '0035_business_profile');
    await db('businesses').insert([
      { id: 1, name: 'Kuala Lumpur', created_at: at('2024-01-01') },
      { id: 2, name: 'New York', created_at: at('2024-01-01'), time_zone: 'America/New_York' },
    ]);
    await db('open_payment_links').insert([openLink(1, 1, 1, at('2024-01-01')), openLink(2, 2, 1, at('2024-01-01'))]);
    // Across New York's change to summer time (2026-03-08 07:00 UTC), a year's end and Kuala Lumpur's midnight.
    const instants = [
      '2025-12-31T15:59:59.000000Z',
      '2025-12-31T16:00:00.000000Z',
      '2026-01-01T04:59:59.000000Z',
      '2026-01-01T05:00:00.000000Z',
      '2026-03-08T04:30:00.000000Z',
      '2026-03-08T06:59:59.000000Z',
      '2026-03-08T07:00:00.000000Z',
      '2026-03-09T03:30:00.000000Z',
      '2026-11-01T05:30:00.000000Z',
    ];
    const rows = instants.flatMap((instant, n) =>
      [1, 2].map((business) => ({
        ...payment(n * 2 + business, business, { open_payment_link_id: id('2', business) }, 1 + (n % 3), n % 2 ? 'fpx' : 'card', instant),
        amount: 1000 + n,
        currency: n % 4 === 0 ? 'SGD' : 'MYR',
      })),
    );
    await db('payments').insert(rows);

    expect(await migrateLatest(db)).toContain('0036_collection_counts');
    const days = await db('payments').select('_id', 'business_id', 'created_at', db.raw('cast(local_day as text) as local_text'));
    for (const p of days)
      expect(p.local_text, `${p.business_id} ${p.created_at}`).toBe(
        localDay(toIsoMicros(p.created_at), p.business_id === 1 ? 'Asia/Kuala_Lumpur' : 'America/New_York'),
      );
    expect(days.find((p) => p.business_id === 2 && toIsoMicros(p.created_at) === '2026-03-08T06:59:59.000000Z')?.local_text).toBe('2026-03-08');
    expect(days.find((p) => p.business_id === 2 && toIsoMicros(p.created_at) === '2026-01-01T04:59:59.000000Z')?.local_text).toBe('2025-12-31');
    expect(days.find((p) => p.business_id === 1 && toIsoMicros(p.created_at) === '2025-12-31T16:00:00.000000Z')?.local_text).toBe('2026-01-01');
    expect(await collectionTotals(db)).toEqual(await collectionTotalsOfRows(db));

    // Kept as the rows change: states, refunds (sums alone), moves between days and businesses' kinds, deletes, and a row without its day.
    const ids = rows.map((row) => row._id);
    await db('payments').whereIn('_id', ids.slice(0, 6)).update({ status_id: 1 });
    await db('payments').whereIn('_id', ids.slice(0, 4)).update({ refund_state: 1, amount_refunded: 250 });
    await db('payments').where({ _id: ids[2] }).update({ amount_refunded: 1000, refund_state: 2 });
    await db('payments').where({ _id: ids[5] }).update({ local_day: '2026-02-28', method: 'grabpay' });
    await db('payments').where({ _id: ids[7] }).update({ currency: 'USD', amount_refunded: 5 });
    await db('payments').where({ _id: ids[9] }).delete();
    await db('payments').insert({ ...payment(100, 1, { open_payment_link_id: id('2', 1) }, 1, 'card', '2026-04-30T17:00:00.000000Z'), amount: 777 });
    const totals = await collectionTotals(db);
    expect(totals).toEqual(await collectionTotalsOfRows(db));
    // The row inserted without its local day counts on Kuala Lumpur's May 1st.
    expect(totals.get('1 MYR:1:card 2026-05-01')).toBe('1 777 0');

    // Down: the column and the counter go, the payments' other counters still count; up again counts the rows anew.
    await collectionCounts.down(db);
    expect(await db.schema.hasColumn('payments', 'local_day')).toBe(false);
    expect(await db.schema.hasTable(byDay(COLLECTION_COUNTS))).toBe(false);
    await db('payments').where({ _id: ids[11] }).update({ status_id: 3 });
    await collectionCounts.up(db);
    expect(await collectionTotals(db)).toEqual(await collectionTotalsOfRows(db));
  });
});
