// An open payment link's total-collection and top-collection reports (not the business's collections report: test/api/reports.test.ts).
// Payments reach the database through the hosted pages; here they are inserted directly so the
// reports can be checked against exactly known rows.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OpenPaymentLink } from '../../client/index.js';
import { newId } from '../../server/domain/ids.js';
import { useService, type Tenant } from '../support/service.js';
import * as create from '../support/factories.js';

const t = useService();

const INVALID = 'The given data was invalid.';
const META_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;
const RANGE_INVALID = 'The filter.created at between format is invalid.';

const PAID = 1;
const PENDING = 2;
const FAILED = 3;

interface PaymentInput {
  amount: number;
  status_id?: number;
  created_at?: string;
  payer_name?: string | null;
  payer_email?: string | null;
}

interface PaymentRow {
  _id: string;
  amount: number;
  payer_name: string | null;
  payer_email: string | null;
  created_at: string;
}

const openLink = (tenant: Tenant = t.a, body: Record<string, unknown> = {}): Promise<OpenPaymentLink> => create.openLink(tenant, body);

/** Distinct, increasing creation times in May 2022 for payments whose date does not matter. */
let clock = Date.UTC(2022, 4, 10, 9, 0, 0);
const nextTimestamp = () => new Date((clock += 1000)).toISOString().replace(/Z$/, '000Z');

function paymentRow(link: OpenPaymentLink, input: PaymentInput) {
  const created_at = input.created_at ?? nextTimestamp();
  return {
    _id: newId(),
    business_id: link.business_id,
    payment_link_id: null,
    open_payment_link_id: link._id,
    attempt_id: randomBytes(16).toString('hex'),
    amount: input.amount,
    currency: link.currency,
    status_id: input.status_id ?? PAID,
    payer_name: input.payer_name === undefined ? 'Aisyah Rahman' : input.payer_name,
    payer_email: input.payer_email === undefined ? 'aisyah@example.com' : input.payer_email,
    method: 'card',
    provider: 'sandbox',
    created_at,
    updated_at: created_at,
  };
}

async function pay(link: OpenPaymentLink, input: PaymentInput): Promise<PaymentRow> {
  const row = paymentRow(link, input);
  await t.sql('payments').insert(row);
  return row;
}

async function payMany(link: OpenPaymentLink, inputs: PaymentInput[]): Promise<PaymentRow[]> {
  const rows = inputs.map((input) => paymentRow(link, input));
  await t.sql.batchInsert('payments', rows, 100);
  return rows;
}

/** How a payment appears in `collections`: amount in currency units. */
const asCollection = (row: PaymentRow) => ({
  _id: row._id,
  amount: row.amount / 100,
  payer_name: row.payer_name,
  payer_email: row.payer_email,
  created_at: row.created_at,
});

type Filter = { limit?: number; created_at_between?: string };
/** The filters as the spec names the query parameters: `filter[limit]`, `filter[created_at_between]`. */
const asQuery = (filter: Filter) => Object.fromEntries(Object.entries(filter).map(([name, value]) => [`filter[${name}]`, value]));

function total(id: string, filter?: Filter, tenant: Tenant = t.a) {
  return tenant.client.GET('/open-payment-links/{open_payment_link_id}/total-collection', {
    params: { path: { open_payment_link_id: id }, ...(filter && { query: asQuery(filter) }) },
  });
}

function top(id: string, filter?: Filter, tenant: Tenant = t.a) {
  return tenant.client.GET('/open-payment-links/{open_payment_link_id}/top-collection', {
    params: { path: { open_payment_link_id: id }, ...(filter && { query: asQuery(filter) }) },
  });
}

const reports = { 'total-collection': total, 'top-collection': top };
const reportNames = Object.keys(reports) as (keyof typeof reports)[];

describe('a link without payments', () => {
  it('total-collection is zero with null from/to and no collections key', async () => {
    const link = await openLink(t.a, { currency: 'SGD' });
    const { response, data } = await total(link._id);
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    expect(data!.meta.timestamp).toMatch(META_TIMESTAMP);
    expect(data!.data).toStrictEqual({
      open_payment_link_id: link._id,
      currency: 'SGD',
      total_amount: 0,
      total_count: 0,
      total_refunded: 0,
      from: null,
      to: null,
    });
    expect(data!.data).not.toHaveProperty('collections');
  });

  it('total-collection with a limit lists no collections', async () => {
    const link = await openLink();
    const { data } = await total(link._id, { limit: 5 });
    expect(data!.data).toStrictEqual({
      open_payment_link_id: link._id,
      currency: 'MYR',
      total_amount: 0,
      total_count: 0,
      total_refunded: 0,
      from: null,
      to: null,
      collections: [],
    });
  });

  it('top-collection is an empty list', async () => {
    const link = await openLink(t.a, { currency: 'USD' });
    const { response, data } = await top(link._id);
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    expect(data!.data).toStrictEqual({ open_payment_link_id: link._id, currency: 'USD', collections: [] });
  });

  it('counts pending and failed payments as nothing', async () => {
    const link = await openLink();
    await pay(link, { amount: 1000, status_id: PENDING });
    await pay(link, { amount: 2000, status_id: FAILED });
    expect((await total(link._id, { limit: 10 })).data!.data).toMatchObject({ total_amount: 0, total_count: 0, collections: [] });
    expect((await top(link._id)).data!.data.collections).toEqual([]);
  });
});

describe('which payments count', () => {
  it('counts only the successful payments of this link', async () => {
    const link = await openLink();
    const otherLink = await openLink();
    const otherBusinessLink = await openLink(t.b);
    const paid = [await pay(link, { amount: 1050 }), await pay(link, { amount: 2525 })];
    await pay(link, { amount: 99_900, status_id: PENDING });
    await pay(link, { amount: 77_700, status_id: FAILED });
    await pay(otherLink, { amount: 100_000 });
    await pay(otherBusinessLink, { amount: 50_000 });
    // A successful payment of a (fixed-amount) payment link of the same business.
    const paymentLink = await t.a.client.POST('/payment-links', { body: { email: 'p@example.com', currency: 'MYR', amount: 3000, title: 'Invoice' } });
    await t.sql('payments').insert({ ...paymentRow(link, { amount: 3000 }), open_payment_link_id: null, payment_link_id: paymentLink.data!.data._id });

    const totals = await total(link._id);
    expect(totals.response.status).toBe(200);
    expect(totals.data!.data).toStrictEqual({
      open_payment_link_id: link._id,
      currency: 'MYR',
      total_amount: 35.75,
      total_count: 2,
      total_refunded: 0,
      from: null,
      to: null,
    });

    const recent = await total(link._id, { limit: 100 });
    expect(recent.data!.data.collections).toEqual([asCollection(paid[1]!), asCollection(paid[0]!)]);

    const biggest = await top(link._id);
    expect(biggest.data!.data.collections).toEqual([asCollection(paid[1]!), asCollection(paid[0]!)]);
  });

  it("keeps the other links' reports to themselves", async () => {
    const link = await openLink();
    const otherBusinessLink = await openLink(t.b);
    await pay(link, { amount: 1000 });
    await pay(otherBusinessLink, { amount: 4000 });
    await pay(otherBusinessLink, { amount: 6000 });
    expect((await total(otherBusinessLink._id, undefined, t.b)).data!.data).toMatchObject({ total_amount: 100, total_count: 2 });
    expect((await total(link._id)).data!.data).toMatchObject({ total_amount: 10, total_count: 1 });
  });

  it("reports the link's currency", async () => {
    const link = await openLink(t.a, { currency: 'SGD' });
    await pay(link, { amount: 1000 });
    expect((await total(link._id)).data!.data.currency).toBe('SGD');
    expect((await top(link._id)).data!.data.currency).toBe('SGD');
  });
});

describe('amounts in currency units, exactly', () => {
  it.each([
    [[1050, 2525], 35.75],
    [[10, 20], 0.3],
    [[510, 520], 10.3],
    [[1, 2, 3, 4], 0.1],
    [[10_000], 100],
    [[3_000_000, 3_000_000], 60_000],
    [[333, 333, 334], 10],
  ])('sums %j cents to %j', async (amounts, expected) => {
    const link = await openLink();
    for (const amount of amounts) await pay(link, { amount });
    const { data } = await total(link._id);
    expect(data!.data.total_amount).toBe(expected);
    expect(data!.data.total_count).toBe(amounts.length);
  });

  it('shows each collection amount in units', async () => {
    const link = await openLink();
    const rows = [await pay(link, { amount: 2550 }), await pay(link, { amount: 10_000 }), await pay(link, { amount: 1 })];
    const { data } = await top(link._id);
    expect(data!.data.collections.map((c) => c.amount)).toEqual([100, 25.5, 0.01]);
    expect(data!.data.collections.map((c) => c._id)).toEqual([rows[1]!._id, rows[0]!._id, rows[2]!._id]);
  });

  it('sums 1000 payments of 3,000,000 cents to exactly 30000000', async () => {
    const link = await openLink();
    await payMany(
      link,
      Array.from({ length: 1000 }, () => ({ amount: 3_000_000 })),
    );
    const { data } = await total(link._id);
    expect(data!.data.total_amount).toBe(30_000_000);
    expect(data!.data.total_count).toBe(1000);
  });

  it('sums 1000 payments of 10.10 to exactly 10100 (no floating-point drift)', async () => {
    const link = await openLink();
    await payMany(
      link,
      Array.from({ length: 1000 }, () => ({ amount: 1010 })),
    );
    const { data } = await total(link._id);
    expect(data!.data.total_amount).toBe(10_100);
    expect(data!.data.total_count).toBe(1000);
  });

  it('sums a mix of large and odd-cent payments exactly', async () => {
    const link = await openLink();
    // 999 x 2,999,999 + 1 x 1 cents = 2,996,999,002 cents.
    await payMany(link, [...Array.from({ length: 999 }, () => ({ amount: 2_999_999 })), { amount: 1 }]);
    const { data } = await total(link._id);
    expect(data!.data.total_amount).toBe(29_969_990.02);
    expect(data!.data.total_count).toBe(1000);
  });
});

describe('filter[created_at_between]', () => {
  async function mayLink() {
    const link = await openLink();
    const rows = {
      lastOfApril: await pay(link, { amount: 100_000, created_at: '2022-04-30T23:59:59.999000Z' }),
      firstOfMay: await pay(link, { amount: 1000, created_at: '2022-05-01T00:00:00.000000Z' }),
      midMay: await pay(link, { amount: 2000, created_at: '2022-05-15T12:00:00.000000Z' }),
      midMayPending: await pay(link, { amount: 50_000, created_at: '2022-05-15T13:00:00.000000Z', status_id: PENDING }),
      lastOfMay: await pay(link, { amount: 4000, created_at: '2022-05-31T23:59:59.999000Z' }),
      firstOfJune: await pay(link, { amount: 200_000, created_at: '2022-06-01T00:00:00.000000Z' }),
    };
    return { link, rows };
  }

  it('includes both whole UTC days and echoes from/to', async () => {
    const { link } = await mayLink();
    const { response, data } = await total(link._id, { created_at_between: '2022-05-01,2022-05-31' });
    expect(response.status).toBe(200);
    expect(data!.data).toStrictEqual({
      open_payment_link_id: link._id,
      currency: 'MYR',
      total_amount: 70,
      total_count: 3,
      total_refunded: 0,
      from: '2022-05-01',
      to: '2022-05-31',
    });
  });

  it('covers a single day when from equals to', async () => {
    const { link } = await mayLink();
    expect((await total(link._id, { created_at_between: '2022-05-15,2022-05-15' })).data!.data).toMatchObject({
      total_amount: 20,
      total_count: 1,
      from: '2022-05-15',
      to: '2022-05-15',
    });
    expect((await total(link._id, { created_at_between: '2022-04-30,2022-04-30' })).data!.data).toMatchObject({ total_amount: 1000, total_count: 1 });
    expect((await total(link._id, { created_at_between: '2022-06-01,2022-06-01' })).data!.data).toMatchObject({ total_amount: 2000, total_count: 1 });
  });

  it('gives zero for a range without payments, still echoing it', async () => {
    const { link } = await mayLink();
    expect((await total(link._id, { created_at_between: '2021-01-01,2021-12-31' })).data!.data).toStrictEqual({
      open_payment_link_id: link._id,
      currency: 'MYR',
      total_amount: 0,
      total_count: 0,
      total_refunded: 0,
      from: '2021-01-01',
      to: '2021-12-31',
    });
  });

  it('restricts the listed collections to the range', async () => {
    const { link, rows } = await mayLink();
    const { data } = await total(link._id, { created_at_between: '2022-05-01,2022-05-31', limit: 10 });
    expect(data!.data.collections).toEqual([asCollection(rows.lastOfMay), asCollection(rows.midMay), asCollection(rows.firstOfMay)]);
  });

  it('restricts top-collection to the range', async () => {
    const { link, rows } = await mayLink();
    const { data } = await top(link._id, { created_at_between: '2022-05-01,2022-05-31' });
    expect(data!.data.collections).toEqual([asCollection(rows.lastOfMay), asCollection(rows.midMay), asCollection(rows.firstOfMay)]);
    const all = await top(link._id);
    expect(all.data!.data.collections.map((c) => c._id)).toEqual([
      rows.firstOfJune._id,
      rows.lastOfApril._id,
      rows.lastOfMay._id,
      rows.midMay._id,
      rows.firstOfMay._id,
    ]);
  });

  it.each([
    '2022-05-01',
    '2022-05-31,2022-05-01',
    '2022-02-30,2022-03-01',
    '2022-13-01,2022-13-31',
    '2022/05/01,2022/05/31',
    '2022-5-1,2022-5-31',
    '2022-05-01,2022-05-31,2022-06-01',
    '2022-05-01T00:00:00Z,2022-05-31T00:00:00Z',
    'abc',
  ])('rejects the malformed range %j on both reports', async (created_at_between) => {
    const link = await openLink();
    for (const name of reportNames) {
      const { response, error } = await reports[name](link._id, { created_at_between });
      expect(response.status, name).toBe(422);
      expect(error, name).toEqual({ message: INVALID, errors: { 'filter.created_at_between': [RANGE_INVALID] } });
    }
  });
});

describe('total-collection filter[limit]', () => {
  it('adds the N most recent collections, newest first, with their fields', async () => {
    const link = await openLink();
    const rows: PaymentRow[] = [];
    for (let i = 0; i < 7; i++) {
      rows.push(
        await pay(link, {
          amount: 1000 + i * 111,
          payer_name: `Payer ${i}`,
          payer_email: `payer${i}@example.com`,
          created_at: `2022-05-1${i}T08:36:38.897000Z`,
        }),
      );
    }
    await pay(link, { amount: 5000, status_id: PENDING, created_at: '2022-05-30T00:00:00.000000Z' });
    await pay(link, { amount: 5000, status_id: FAILED, created_at: '2022-05-30T00:00:01.000000Z' });

    const { response, data } = await total(link._id, { limit: 5 });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ open_payment_link_id: link._id, currency: 'MYR', total_count: 7, total_amount: 93.31, from: null, to: null });
    expect(data!.data.collections).toStrictEqual([6, 5, 4, 3, 2].map((i) => asCollection(rows[i]!)));
    expect(data!.data.collections![0]).toStrictEqual({
      _id: rows[6]!._id,
      amount: 16.66,
      payer_name: 'Payer 6',
      payer_email: 'payer6@example.com',
      created_at: '2022-05-16T08:36:38.897000Z',
    });
  });

  it('lists every collection when the limit exceeds their number', async () => {
    const link = await openLink();
    const rows = [await pay(link, { amount: 700 }), await pay(link, { amount: 800 })];
    const { data } = await total(link._id, { limit: 100 });
    expect(data!.data.collections).toStrictEqual([asCollection(rows[1]!), asCollection(rows[0]!)]);
  });

  it('returns null payer fields as null', async () => {
    const link = await openLink();
    const row = await pay(link, { amount: 700, payer_name: null, payer_email: null });
    const { data } = await total(link._id, { limit: 1 });
    expect(data!.data.collections).toStrictEqual([{ _id: row._id, amount: 7, payer_name: null, payer_email: null, created_at: row.created_at }]);
  });

  it('accepts 1 and 100', async () => {
    const link = await openLink();
    const rows = await payMany(
      link,
      Array.from({ length: 105 }, (_, i) => ({ amount: 500 + i })),
    );
    const one = await total(link._id, { limit: 1 });
    expect(one.data!.data.collections).toStrictEqual([asCollection(rows[104]!)]);
    const hundred = await total(link._id, { limit: 100 });
    expect(hundred.data!.data.collections).toHaveLength(100);
    expect(hundred.data!.data.collections!.map((c) => c._id)).toEqual(
      rows
        .slice(5)
        .reverse()
        .map((r) => r._id),
    );
    expect(hundred.data!.data.total_count).toBe(105);
  });
});

describe('top-collection', () => {
  it('lists the biggest first, ties most recent first', async () => {
    const link = await openLink();
    const small = await pay(link, { amount: 600, created_at: '2022-05-20T00:00:00.000000Z' });
    const tieOld = await pay(link, { amount: 5000, created_at: '2022-05-01T10:00:00.000000Z' });
    const big = await pay(link, { amount: 90_000, created_at: '2022-05-02T10:00:00.000000Z' });
    const tieNew = await pay(link, { amount: 5000, created_at: '2022-05-10T10:00:00.000000Z' });
    const tieMid = await pay(link, { amount: 5000, created_at: '2022-05-05T10:00:00.000000Z' });
    await pay(link, { amount: 1_000_000, status_id: PENDING });
    const { response, data } = await top(link._id);
    expect(response.status).toBe(200);
    expect(data!.data).toStrictEqual({
      open_payment_link_id: link._id,
      currency: 'MYR',
      collections: [big, tieNew, tieMid, tieOld, small].map(asCollection),
    });
  });

  it('orders by amount as a number, not as text', async () => {
    const link = await openLink();
    const rows = [
      await pay(link, { amount: 900 }),
      await pay(link, { amount: 10_000 }),
      await pay(link, { amount: 2_000_000 }),
      await pay(link, { amount: 30_000 }),
    ];
    const { data } = await top(link._id);
    expect(data!.data.collections.map((c) => c.amount)).toEqual([20_000, 300, 100, 9]);
    expect(data!.data.collections.map((c) => c._id)).toEqual([rows[2]!._id, rows[3]!._id, rows[1]!._id, rows[0]!._id]);
  });

  it('lists 10 by default', async () => {
    const link = await openLink();
    const rows = await payMany(
      link,
      Array.from({ length: 12 }, (_, i) => ({ amount: 1000 + i * 100 })),
    );
    const { data } = await top(link._id);
    expect(data!.data.collections.map((c) => c._id)).toEqual(
      rows
        .slice(2)
        .reverse()
        .map((r) => r._id),
    );
  });

  it('honours filter[limit] up to 100', async () => {
    const link = await openLink();
    const rows = await payMany(
      link,
      Array.from({ length: 105 }, (_, i) => ({ amount: 1000 + i })),
    );
    const three = await top(link._id, { limit: 3 });
    expect(three.data!.data.collections).toStrictEqual([rows[104]!, rows[103]!, rows[102]!].map(asCollection));
    const hundred = await top(link._id, { limit: 100 });
    expect(hundred.data!.data.collections.map((c) => c._id)).toEqual(
      rows
        .slice(5)
        .reverse()
        .map((r) => r._id),
    );
  });

  it('combines filter[limit] and filter[created_at_between]', async () => {
    const link = await openLink();
    await pay(link, { amount: 999_999, created_at: '2022-04-15T00:00:00.000000Z' });
    const may = [
      await pay(link, { amount: 1000, created_at: '2022-05-03T00:00:00.000000Z' }),
      await pay(link, { amount: 3000, created_at: '2022-05-04T00:00:00.000000Z' }),
      await pay(link, { amount: 2000, created_at: '2022-05-05T00:00:00.000000Z' }),
    ];
    const { data } = await top(link._id, { limit: 2, created_at_between: '2022-05-01,2022-05-31' });
    expect(data!.data.collections).toStrictEqual([may[1]!, may[2]!].map(asCollection));
  });
});

describe('filter[limit] validation', () => {
  it.each([
    [0, 'The filter.limit must be at least 1.'],
    [-1, 'The filter.limit must be at least 1.'],
    [101, 'The filter.limit must not be greater than 100.'],
    ['x', 'The filter.limit must be an integer.'],
    ['1.5', 'The filter.limit must be an integer.'],
  ])('rejects filter[limit]=%j on both reports', async (limit, message) => {
    const link = await openLink();
    await pay(link, { amount: 1000 });
    for (const name of reportNames) {
      const { response, error } = await reports[name](link._id, { limit: limit as number });
      expect(response.status, name).toBe(422);
      expect(error, name).toEqual({ message: INVALID, errors: { 'filter.limit': [message] } });
    }
  });

  it('reports a bad limit and a bad range together', async () => {
    const link = await openLink();
    for (const name of reportNames) {
      const { response, error } = await reports[name](link._id, { limit: 0, created_at_between: '2022-05-31,2022-05-01' });
      expect(response.status, name).toBe(422);
      expect(error, name).toEqual({
        message: INVALID,
        errors: { 'filter.limit': ['The filter.limit must be at least 1.'], 'filter.created_at_between': [RANGE_INVALID] },
      });
    }
  });

  it('rejects an unknown filter instead of ignoring it', async () => {
    const link = await openLink();
    for (const name of reportNames) {
      const { response, error } = await reports[name](link._id, { status: 'true' } as Filter);
      expect(response.status, name).toBe(422);
      expect(error, name).toEqual({ message: INVALID, errors: { 'filter.status': ['The filter.status field is prohibited.'] } });
    }
  });
});

describe('links the caller cannot see', () => {
  it('answers 404 for a deleted link, even with payments kept', async () => {
    const link = await openLink();
    await pay(link, { amount: 1000 });
    const deleted = await t.a.client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
    expect(deleted.response.status).toBe(200);
    for (const name of reportNames) {
      const { response, error } = await reports[name](link._id);
      expect(response.status, name).toBe(404);
      expect(error, name).toEqual({ message: expect.any(String) });
      expect((await reports[name](link._id, { limit: 5 })).response.status, name).toBe(404);
    }
    const kept = await t.sql('payments').where({ open_payment_link_id: link._id }).count({ n: '*' }).first();
    expect(Number(kept!.n)).toBe(1);
  });

  it('answers 404 to another business asking about the link', async () => {
    const link = await openLink(t.a);
    await pay(link, { amount: 1000 });
    for (const name of reportNames) {
      const { response, error } = await reports[name](link._id, undefined, t.b);
      expect(response.status, name).toBe(404);
      expect(error, name).toEqual({ message: expect.any(String) });
      expect((await reports[name](link._id, { limit: 5, created_at_between: '2022-01-01,2022-12-31' }, t.b)).response.status, name).toBe(404);
    }
  });

  it.each(['0123456789abcdef01234567', 'not-an-id'])('answers 404 for the unknown id %j', async (id) => {
    for (const name of reportNames) {
      const { response } = await reports[name](id);
      expect(response.status, name).toBe(404);
    }
  });
});
