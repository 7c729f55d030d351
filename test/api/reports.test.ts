// GET /api/reports/collections: a business's payments per day, week or month of its own time zone,
// split by method or state, from the counters (COLLECTION_COUNTS). Payments made through the payer's
// page at a chosen instant (the clock faked) show the zone; payments planted as rows (with the local
// day the store gives them) show the buckets, the sums and the series exactly.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { localDay } from '../../server/domain/local-days.js';
import * as create from '../support/factories.js';
import { bucket, FAILED, PENDING, plant as plantRows, type Planted } from '../support/report-buckets.js';
import { useService, type Tenant } from '../support/service.js';

const t = useService();

const INVALID = 'The given data was invalid.';

type Query = { range?: string; interval?: 'day' | 'week' | 'month'; group_by?: 'method' | 'status' };

function report(tenant: Tenant, query: Query = {}) {
  return tenant.client.GET('/reports/collections', {
    params: {
      query: {
        ...(query.range && { 'filter[created_at_between]': query.range }),
        ...(query.interval && { interval: query.interval }),
        ...(query.group_by && { group_by: query.group_by }),
      },
    },
  });
}

async function buckets(tenant: Tenant, query: Query) {
  const { response, data, error } = await report(tenant, query);
  expect(response.status, JSON.stringify(error)).toBe(200);
  return data!.data.buckets;
}

/** Payments as rows of the tenant's, each with the local day the store would give it in `zone`. */
const plant = (tenant: Tenant, payments: Planted[], zone?: string) => plantRows(t, tenant, payments, zone);

afterEach(() => {
  vi.useRealTimers();
});

describe('days of the business', () => {
  it('count a payment on its day in Kuala Lumpur: 2026-01-01T17:00Z is January 2nd there', async () => {
    const link = await create.paymentLink(t.a, { amount: 2500 });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T17:00:00Z'));
    await create.payment(t, link);
    vi.useRealTimers();

    expect(await buckets(t.a, { range: '2026-01-01,2026-01-03' })).toEqual([
      bucket('2026-01-01'),
      bucket('2026-01-02', { payments_count: 1, paid_count: 1, paid_amount: 2500 }),
      bucket('2026-01-03'),
    ]);
    const { data } = await report(t.a, { range: '2026-01-01,2026-01-03' });
    expect(data!.data).toMatchObject({ time_zone: 'Asia/Kuala_Lumpur', interval: 'day', group_by: null, from: '2026-01-01', to: '2026-01-03' });
  });

  it("follow the zone the business chose, and another business's payments are not in the report", async () => {
    const changed = await t.b.client.PATCH('/business', { body: { time_zone: 'America/New_York' } });
    expect(changed.response.status).toBe(200);
    const link = await create.paymentLink(t.b, { amount: 4000 });
    vi.useFakeTimers({ toFake: ['Date'] });
    // 22:00 on December 31st in New York, 03:00 on January 1st in UTC and 11:00 in Kuala Lumpur.
    vi.setSystemTime(new Date('2026-01-01T03:00:00Z'));
    await create.payment(t, link);
    vi.useRealTimers();

    const { data } = await report(t.b, { range: '2025-12-31,2026-01-01' });
    expect(data!.data.time_zone).toBe('America/New_York');
    expect(data!.data.buckets).toEqual([bucket('2025-12-31', { payments_count: 1, paid_count: 1, paid_amount: 4000 }), bucket('2026-01-01')]);
    // A's report of the same days: A's own January 2nd payment (the test above) alone.
    const a = await buckets(t.a, { range: '2025-12-31,2026-01-02' });
    expect(a.map((b) => [b.date, b.payments_count, b.paid_amount])).toEqual([
      ['2025-12-31', 0, 0],
      ['2026-01-01', 0, 0],
      ['2026-01-02', 1, 2500],
    ]);
  });

  it('reflect a refund on the day of the payment it gives back, with what was paid unchanged', async () => {
    const today = localDay(new Date(), 'Asia/Kuala_Lumpur');
    const before = await buckets(t.a, { range: `${today},${today}` });
    const was = before[0] ?? bucket(today);
    const { paymentId } = await create.paidLink(t, t.a, { amount: 5000 });
    const refund = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 1500 } });
    expect(refund.response.status).toBe(200);

    expect(await buckets(t.a, { range: `${today},${today}` })).toEqual([
      bucket(today, {
        payments_count: was.payments_count + 1,
        paid_count: was.paid_count + 1,
        failed_count: was.failed_count,
        paid_amount: was.paid_amount + 5000,
        refunded_amount: was.refunded_amount + 1500,
      }),
    ]);
    // Without a range: the last 30 days, today the last of them.
    const { data } = await report(t.a);
    expect(data!.data.to).toBe(today);
    expect(data!.data.buckets).toHaveLength(30);
    expect(data!.data.buckets.at(-1)).toMatchObject({ date: today, paid_count: was.paid_count + 1 });
  });
});

describe('buckets', () => {
  const tenant = () => t.b;
  // B's days are New York's from the test above: planted with them. New York keeps -05:00 in winter.
  const zone = 'America/New_York';

  beforeAll(async () => {
    await tenant().client.PATCH('/business', { body: { time_zone: zone } });
    await plant(
      tenant(),
      [
        // Weeks and months across the end of 2023, before anything else of B's.
        { at: '2023-12-14T17:00:00.000000Z', amount: 100 }, // before the ranges
        { at: '2023-12-19T17:00:00.000000Z', amount: 50 }, // a Tuesday: in the first week, before its range
        { at: '2023-12-20T17:00:00.000000Z', amount: 200 },
        { at: '2024-01-01T04:59:59.000000Z', amount: 300 }, // still December 31st in New York
        { at: '2024-01-31T23:00:00.000000Z', amount: 400 },
        { at: '2024-02-10T12:00:00.000000Z', amount: 500, refunded: 500 },
        { at: '2024-02-11T12:00:00.000000Z', amount: 600, status_id: FAILED },
        { at: '2024-03-10T12:00:00.000000Z', amount: 700, status_id: PENDING }, // 08:00 on the first day of summer time
        { at: '2024-03-11T12:00:00.000000Z', amount: 800 }, // after the ranges
      ],
      zone,
    );
  });

  it('by week: Monday to Sunday, the edges holding only the days of the range', async () => {
    // 2023-12-20 is a Wednesday, 2024-01-01 a Monday.
    const weeks = await buckets(tenant(), { range: '2023-12-20,2024-01-01', interval: 'week' });
    expect(weeks).toEqual([
      bucket('2023-12-18', { payments_count: 1, paid_count: 1, paid_amount: 200 }),
      bucket('2023-12-25', { payments_count: 1, paid_count: 1, paid_amount: 300 }),
      bucket('2024-01-01'),
    ]);
  });

  it('by week: every day of a year end, Sundays and Mondays included, in the week JavaScript dates give it', async () => {
    // The database sums the days into weeks; each day's payment must land in its Monday's bucket.
    const days = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 11, 15 + i)).toISOString().slice(0, 10));
    // Noon in New York, B's zone: each payment is on the day it names there.
    await plant(
      tenant(),
      days.map((day, i) => ({ at: `${day}T17:00:00.000000Z`, amount: 1000 + i })),
      zone,
    );
    const mondayOf = (day: string) => {
      const date = new Date(`${day}T00:00:00Z`);
      return new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
    };
    const expected = new Map<string, { payments_count: number; paid_count: number; paid_amount: number }>();
    days.forEach((day, i) => {
      const week = expected.get(mondayOf(day)) ?? { payments_count: 0, paid_count: 0, paid_amount: 0 };
      expected.set(mondayOf(day), { payments_count: week.payments_count + 1, paid_count: week.paid_count + 1, paid_amount: week.paid_amount + 1000 + i });
    });
    const weeks = await buckets(tenant(), { range: `${days[0]},${days.at(-1)}`, interval: 'week' });
    expect(weeks).toEqual([...expected].map(([monday, sums]) => bucket(monday, sums)));
    expect(weeks.map((week) => week.date)).toEqual(['2026-12-14', '2026-12-21', '2026-12-28', '2027-01-04', '2027-01-11']);
  });

  it('by month: whole months from the yearly rows, the days at the edges of the range from the daily ones', async () => {
    const months = await buckets(tenant(), { range: '2023-12-15,2024-03-10', interval: 'month' });
    expect(months).toEqual([
      bucket('2023-12-01', { payments_count: 3, paid_count: 3, paid_amount: 550 }),
      bucket('2024-01-01', { payments_count: 1, paid_count: 1, paid_amount: 400 }),
      bucket('2024-02-01', { payments_count: 2, paid_count: 1, failed_count: 1, paid_amount: 500, refunded_amount: 500 }),
      bucket('2024-03-01', { payments_count: 1 }),
    ]);
    // A whole year reads the same: 2024 holds March 11th's payment too.
    const year = await buckets(tenant(), { range: '2024-01-01,2024-12-31', interval: 'month' });
    expect(year.map((b) => b.date)).toEqual(Array.from({ length: 12 }, (_, i) => `2024-${String(i + 1).padStart(2, '0')}-01`));
    expect(year.map((b) => b.payments_count)).toEqual([1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(year[2]).toMatchObject({ paid_count: 1, paid_amount: 800 });
  });

  it('by status and by method, each series a bucket per period, in order of currency and group', async () => {
    await plant(
      tenant(),
      [
        { at: '2024-06-02T15:00:00.000000Z', amount: 1000, method: 'fpx' },
        { at: '2024-06-02T16:00:00.000000Z', amount: 2000, method: 'card', status_id: FAILED },
        { at: '2024-06-03T15:00:00.000000Z', amount: 3000, method: 'card', refunded: 1000 },
        { at: '2024-06-03T16:00:00.000000Z', amount: 4000, method: 'card', currency: 'SGD' },
      ],
      zone,
    );
    const range = '2024-06-02,2024-06-03';
    expect(await buckets(tenant(), { range, group_by: 'status' })).toEqual([
      bucket('2024-06-02', { group: 'failed', payments_count: 1, failed_count: 1 }),
      bucket('2024-06-02', { group: 'paid', payments_count: 1, paid_count: 1, paid_amount: 1000 }),
      bucket('2024-06-02', { currency: 'SGD', group: 'paid' }),
      bucket('2024-06-03', { group: 'failed' }),
      bucket('2024-06-03', { group: 'paid', payments_count: 1, paid_count: 1, paid_amount: 3000, refunded_amount: 1000 }),
      bucket('2024-06-03', { currency: 'SGD', group: 'paid', payments_count: 1, paid_count: 1, paid_amount: 4000 }),
    ]);
    expect(await buckets(tenant(), { range, group_by: 'method' })).toEqual([
      bucket('2024-06-02', { group: 'card', payments_count: 1, failed_count: 1 }),
      bucket('2024-06-02', { group: 'fpx', payments_count: 1, paid_count: 1, paid_amount: 1000 }),
      bucket('2024-06-02', { currency: 'SGD', group: 'card' }),
      bucket('2024-06-03', { group: 'card', payments_count: 1, paid_count: 1, paid_amount: 3000, refunded_amount: 1000 }),
      bucket('2024-06-03', { group: 'fpx' }),
      bucket('2024-06-03', { currency: 'SGD', group: 'card', payments_count: 1, paid_count: 1, paid_amount: 4000 }),
    ]);
    // Not split: one series per currency, never an amount added across currencies.
    expect(await buckets(tenant(), { range })).toEqual([
      bucket('2024-06-02', { payments_count: 2, paid_count: 1, failed_count: 1, paid_amount: 1000 }),
      bucket('2024-06-02', { currency: 'SGD' }),
      bucket('2024-06-03', { payments_count: 1, paid_count: 1, paid_amount: 3000, refunded_amount: 1000 }),
      bucket('2024-06-03', { currency: 'SGD', payments_count: 1, paid_count: 1, paid_amount: 4000 }),
    ]);
  });

  it('a range without payments has no buckets', async () => {
    expect(await buckets(tenant(), { range: '2020-01-01,2020-01-31' })).toEqual([]);
  });

  it("hold nothing of another business's payments, whatever the range and grouping", async () => {
    for (const query of [
      { range: '2023-12-01,2024-06-30', interval: 'month' },
      { range: '2024-06-01,2024-06-30', group_by: 'method' },
    ] as Query[])
      expect(await buckets(t.a, query)).toEqual([]);
  });
});

describe('refused', () => {
  const errorsOf = async (tenant: Tenant, query: string) => {
    const response = await fetch(`${t.apiUrl}/reports/collections?${query}`, {
      headers: { authorization: `Bearer ${tenant.key}`, accept: 'application/json' },
    });
    return { status: response.status, body: (await response.json()) as { message: string; errors?: Record<string, string[]> } };
  };

  it('a range longer than the interval reads: 422 saying how to narrow it', async () => {
    const day = await errorsOf(t.a, 'filter[created_at_between]=2025-01-01,2026-02-05');
    expect(day).toEqual({
      status: 422,
      body: {
        message: INVALID,
        errors: {
          'filter.created_at_between': [
            'The filter.created at between must not span more than 400 days with interval=day. Narrow filter[created_at_between] to 400 days or less, or ask for interval=week (up to 800 days) or interval=month.',
          ],
        },
      },
    });
    expect((await errorsOf(t.a, 'filter[created_at_between]=2025-01-01,2026-02-05&interval=week')).status).toBe(200);
    expect((await errorsOf(t.a, 'filter[created_at_between]=2020-01-01,2025-01-01&interval=week')).body.errors).toEqual({
      'filter.created_at_between': [
        'The filter.created at between must not span more than 800 days with interval=week. Narrow filter[created_at_between] to 800 days or less, or ask for interval=month.',
      ],
    });
    expect((await errorsOf(t.a, 'filter[created_at_between]=2015-01-01,2025-12-31&interval=month')).body.errors).toEqual({
      'filter.created_at_between': [
        'The filter.created at between must not span more than 120 months with interval=month. Narrow filter[created_at_between] to 120 months or less.',
      ],
    });
    expect((await errorsOf(t.a, 'filter[created_at_between]=2016-01-01,2025-12-31&interval=month')).status).toBe(200);
  });

  it('malformed ranges, intervals and groupings: 422 in the shape of every other', async () => {
    const bad = await errorsOf(t.a, 'filter[created_at_between]=2026-02-30,2026-03-01&interval=year&group_by=link');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(INVALID);
    expect(bad.body.errors!['filter.created_at_between']).toEqual(['The filter.created at between format is invalid.']);
    expect(Object.keys(bad.body.errors!).sort()).toEqual(['filter.created_at_between', 'group_by', 'interval']);
    expect((await errorsOf(t.a, 'filter[created_at_between]=2026-03-01,2026-02-01')).body.errors).toEqual({
      'filter.created_at_between': ['The filter.created at between format is invalid.'],
    });
  });

  it('a key without payments:read: 403 naming it; a key with it alone reads the report', async () => {
    const make = async (permissions: ('payments:read' | 'payment_links:read')[]) => {
      const made = await t.a.client.POST('/api-keys', { body: { name: `Report ${permissions.join(' ')}`, permissions } });
      expect(made.response.status).toBe(200);
      return made.data!.data.secret;
    };
    const refused = await t.clientFor(await make(['payment_links:read'])).GET('/reports/collections', {});
    expect(refused.response.status).toBe(403);
    expect(refused.error).toEqual({ message: 'This key or role lacks the payments:read permission.', required_permission: 'payments:read' });
    const allowed = await t.clientFor(await make(['payments:read'])).GET('/reports/collections', {});
    expect(allowed.response.status).toBe(200);
  });
});
