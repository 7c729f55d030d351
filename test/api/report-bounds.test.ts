// GET /api/reports/collections at the edges of what it takes: ranges in the first and last years a
// day can name (0001 and 9999) on every interval the contract lists, the cap on buckets (periods x
// series, 422 past it), `empty_buckets=omit`, and one report per business at a time (429 meanwhile).
// A walk of the periods by days compared as text never ended after 9999-12-31 ('10000-01-01' sorts
// before it) and took every tenant's service down with it.
import { beforeAll, describe, expect, it } from 'vitest';
import { releaseReportLease, takeReportLease } from '../../server/store/report-leases.js';
import { dereferencedSpec } from '../support/contract.js';
import { bucket, FAILED, PENDING, plant } from '../support/report-buckets.js';
import { useService, type Tenant } from '../support/service.js';

const t = useService();

const INVALID = 'The given data was invalid.';
const DAY_MS = 86_400_000;

/** The intervals and groupings the contract lists for the report: a new one is covered here without anyone adding it. */
let INTERVALS: string[] = [];
let GROUPINGS: (string | undefined)[] = [];

beforeAll(async () => {
  const document = (await dereferencedSpec()) as { paths: Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[] } }> };
  const parameters = document.paths['/reports/collections']!.get.parameters;
  INTERVALS = parameters.find((parameter) => parameter.name === 'interval')!.schema.enum!;
  GROUPINGS = [undefined, ...parameters.find((parameter) => parameter.name === 'group_by')!.schema.enum!];
  expect(INTERVALS).toEqual(expect.arrayContaining(['day', 'week', 'month']));
});

interface Query {
  range?: string;
  interval?: string;
  group_by?: string;
  empty_buckets?: string;
}

/** The report as the typed client reads it (its answer checked against openapi.yaml). How soon it answers is the edge suite's to hold (test/security/edges.test.ts). */
async function report(tenant: Tenant, query: Query) {
  const answer = await tenant.client.GET('/reports/collections', {
    params: {
      query: {
        ...(query.range && { 'filter[created_at_between]': query.range }),
        ...(query.interval && { interval: query.interval as 'day' }),
        ...(query.group_by && { group_by: query.group_by as 'status' }),
        ...(query.empty_buckets && { empty_buckets: query.empty_buckets as 'omit' }),
      },
    },
  });
  return { status: answer.response.status, headers: answer.response.headers, data: answer.data?.data, error: answer.error };
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** Every bucket start of a range by the calendar of Date, as a check independent of the service's day numbers. */
function expectedStarts(from: string, to: string, interval: string): string[] {
  const starts: string[] = [];
  if (interval === 'month') {
    const date = new Date(msOf(`${from.slice(0, 7)}-01`));
    while (date.getTime() <= msOf(to)) {
      starts.push(dayOf(date.getTime()));
      date.setUTCMonth(date.getUTCMonth() + 1);
    }
    return starts;
  }
  const step = interval === 'week' ? 7 : 1;
  let at = msOf(from);
  if (interval === 'week') at -= ((new Date(at).getUTCDay() + 6) % 7) * DAY_MS;
  for (; at <= msOf(to); at += step * DAY_MS) starts.push(dayOf(at));
  return starts;
}

describe('the first and last years a day can name, on every interval', () => {
  // A's zone is Kuala Lumpur's: noon UTC is that same day there, in year 1 (local mean time) and in 9999.
  beforeAll(async () => {
    await plant(t, t.a, [
      { at: '9999-12-31T12:00:00.000000Z', amount: 900 },
      { at: '9999-12-31T13:00:00.000000Z', amount: 800, status_id: FAILED, method: 'fpx' },
      { at: '9999-12-27T12:00:00.000000Z', amount: 700 }, // the Monday of 9999's last week
      { at: '9999-11-15T12:00:00.000000Z', amount: 600, status_id: PENDING },
      { at: '0001-01-01T12:00:00.000000Z', amount: 100 }, // a Monday
      { at: '0001-01-07T12:00:00.000000Z', amount: 200, method: 'fpx', refunded: 50 },
      { at: '0001-02-10T12:00:00.000000Z', amount: 300, status_id: FAILED },
    ]);
  });

  it('9999-12-31 alone: one bucket of year 9999 by each interval and grouping', async () => {
    const expected: Record<string, string> = { day: '9999-12-31', week: '9999-12-27', month: '9999-12-01' };
    for (const interval of INTERVALS) {
      if (!expected[interval]) throw new Error(`interval=${interval}: say here where its bucket of 9999-12-31 starts`);
      for (const group_by of GROUPINGS) {
        const answer = await report(t.a, { range: '9999-12-31,9999-12-31', interval, group_by });
        const where = `interval=${interval} group_by=${group_by}`;
        expect(answer.status, `${where}: ${JSON.stringify(answer.error)}`).toBe(200);
        expect(new Set(answer.data!.buckets.map((b) => b.date)), where).toEqual(new Set([expected[interval]]));
        const total = answer.data!.buckets.reduce((sum, b) => sum + b.payments_count, 0);
        expect(total, where).toBe(2);
      }
    }
    expect((await report(t.a, { range: '9999-12-31,9999-12-31', interval: 'day', group_by: 'status' })).data!.buckets).toEqual([
      bucket('9999-12-31', { group: 'failed', payments_count: 1, failed_count: 1 }),
      bucket('9999-12-31', { group: 'paid', payments_count: 1, paid_count: 1, paid_amount: 900 }),
    ]);
  });

  it('the longest range each interval takes, ending 9999-12-31: every bucket, the last in 9999, the sums where the payments are', async () => {
    const longest: Record<string, string> = { day: '9998-11-27', week: '9997-10-23', month: '9990-01-01' };
    for (const interval of INTERVALS) {
      const from = longest[interval];
      if (!from) throw new Error(`interval=${interval}: say here the longest range it takes`);
      const answer = await report(t.a, { range: `${from},9999-12-31`, interval });
      expect(answer.status, `${interval}: ${JSON.stringify(answer.error)}`).toBe(200);
      const dates = answer.data!.buckets.map((b) => b.date);
      expect(dates, interval).toEqual(expectedStarts(from, '9999-12-31', interval));
      // The last day's two payments, and by week and month the Monday's too.
      expect(answer.data!.buckets.at(-1)!.payments_count, interval).toBe(interval === 'day' ? 2 : 3);
      expect(
        answer.data!.buckets.reduce((sum, b) => sum + b.paid_amount, 0),
        interval,
      ).toBe(1_600);
    }
    // Week and month hold more than the last day: the Monday's payment, and November's in its own month.
    const months = (await report(t.a, { range: '9999-11-01,9999-12-31', interval: 'month' })).data!.buckets;
    expect(months).toEqual([
      bucket('9999-11-01', { payments_count: 1, paid_amount: 0 }),
      bucket('9999-12-01', { payments_count: 3, paid_count: 2, failed_count: 1, paid_amount: 1_600 }),
    ]);
  });

  it('year 1: the first bucket starts on 0001-01-01 by each interval, never in year 0; a range from year 0 is a 422', async () => {
    const first: Record<string, { range: string; dates: string[] }> = {
      day: { range: '0001-01-01,0001-01-07', dates: expectedStarts('0001-01-01', '0001-01-07', 'day') },
      week: { range: '0001-01-01,0001-01-20', dates: ['0001-01-01', '0001-01-08', '0001-01-15'] },
      month: { range: '0001-01-01,0001-03-31', dates: ['0001-01-01', '0001-02-01', '0001-03-01'] },
    };
    for (const interval of INTERVALS) {
      const expected = first[interval];
      if (!expected) throw new Error(`interval=${interval}: say here how its buckets of year 1 start`);
      for (const group_by of GROUPINGS) {
        const answer = await report(t.a, { range: expected.range, interval, group_by });
        expect(answer.status, `${interval} ${group_by}: ${JSON.stringify(answer.error)}`).toBe(200);
        expect([...new Set(answer.data!.buckets.map((b) => b.date))], `${interval} ${group_by}`).toEqual(expected.dates);
        expect(answer.data!.buckets.reduce((sum, b) => sum + b.refunded_amount, 0)).toBe(50);
      }
      const zero = await report(t.a, { range: '0000-12-31,0001-01-01', interval });
      expect(zero.status, interval).toBe(422);
      expect(zero.error).toEqual({
        message: INVALID,
        errors: {
          'filter.created_at_between': [
            'The filter.created at between must not start before 0001-01-01. Narrow filter[created_at_between] to days from 0001-01-01 on.',
          ],
        },
      });
    }
    expect((await report(t.a, { range: '0001-01-01,0001-01-14', interval: 'week', group_by: 'method' })).data!.buckets).toEqual([
      bucket('0001-01-01', { group: 'card', payments_count: 1, paid_count: 1, paid_amount: 100 }),
      bucket('0001-01-01', { group: 'fpx', payments_count: 1, paid_count: 1, paid_amount: 200, refunded_amount: 50 }),
      bucket('0001-01-08', { group: 'card' }),
      bucket('0001-01-08', { group: 'fpx' }),
    ]);
  });
});

describe('at most 20,000 buckets (periods x series)', () => {
  const currencies = Array.from({ length: 51 }, (_, i) => `Q${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`);
  const range400 = '2024-01-01,2025-02-03';

  beforeAll(async () => {
    // B: 50 series, one payment each on one day.
    await plant(
      t,
      t.b,
      currencies.slice(0, 50).map((currency) => ({ at: '2024-06-01T04:00:00.000000Z', currency })),
    );
  });

  it('400 days x 50 series is 20,000: answered; one series more is a 422 saying how to narrow, with zeros listed or not', async () => {
    const full = await report(t.b, { range: range400 });
    expect(full.status, JSON.stringify(full.error)).toBe(200);
    expect(full.data!.buckets).toHaveLength(20_000);
    const omitted = await report(t.b, { range: range400, empty_buckets: 'omit' });
    expect(omitted.data!.buckets).toEqual(
      currencies.slice(0, 50).map((currency) => bucket('2024-06-01', { currency, payments_count: 1, paid_count: 1, paid_amount: 1000 })),
    );

    await plant(t, t.b, [{ at: '2024-06-02T04:00:00.000000Z', currency: currencies[50] }]);
    for (const empty_buckets of [undefined, 'include', 'omit']) {
      const refused = await report(t.b, { range: range400, empty_buckets });
      expect(refused.status, `empty_buckets=${empty_buckets}`).toBe(422);
      expect(refused.error).toEqual({
        message: INVALID,
        errors: {
          'filter.created_at_between': [
            'The report would hold more than 20000 buckets (400 days x 51 series). Narrow filter[created_at_between], ask for interval=week or interval=month, or leave out group_by so that each currency is one series.',
          ],
        },
      });
    }
    // Narrower, or by week: under the cap again.
    expect((await report(t.b, { range: '2024-01-01,2025-01-01' })).status).toBe(200);
    const weeks = await report(t.b, { range: range400, interval: 'week' });
    expect(weeks.status).toBe(200);
    expect(weeks.data!.buckets).toHaveLength(58 * 51);
  });

  it('empty_buckets=omit lists the buckets that count something, in the order of the full report', async () => {
    const range = '2024-05-30,2024-06-03';
    const full = (await report(t.b, { range })).data!.buckets;
    const omitted = (await report(t.b, { range, empty_buckets: 'omit' })).data!.buckets;
    expect(omitted).toEqual(full.filter((b) => b.payments_count > 0 || b.refunded_amount > 0));
    expect(omitted).toHaveLength(51);
    expect((await report(t.b, { range, empty_buckets: 'include' })).data!.buckets).toEqual(full);
  });
});

describe('one report per business at a time', () => {
  it('while one runs, another of the business answers 429 with Retry-After; other businesses are not held up; the turn comes back', async () => {
    const holder = 'another-report';
    expect(await takeReportLease(t.service.db, t.a.business.id, holder, 10_000)).toBe(true);
    try {
      const busy = await report(t.a, { range: '2026-01-01,2026-01-31' });
      expect(busy.status).toBe(429);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(busy.error).toEqual({
        message: 'A collections report of this business is already running; a business runs one at a time. Try again once it has finished.',
      });
      expect((await report(t.b, { range: '2026-01-01,2026-01-31' })).status).toBe(200);
    } finally {
      await releaseReportLease(t.service.db, t.a.business.id, holder);
    }
    expect((await report(t.a, { range: '2026-01-01,2026-01-31' })).status).toBe(200);
  });

  it('reports asked of one instance at once wait their turn there (a chart asks for two), up to four at a time; past that 429', async () => {
    const two = await Promise.all([report(t.a, { interval: 'week' }), report(t.a, { interval: 'month', group_by: 'status' })]);
    expect(two.map((answer) => answer.status)).toEqual([200, 200]);
    const four = await Promise.all(Array.from({ length: 4 }, () => report(t.a, { interval: 'week' })));
    expect(four.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const many = (await Promise.all(Array.from({ length: 16 }, () => report(t.a, { interval: 'week' })))).map((answer) => answer.status);
    expect(many.filter((status) => status === 200).length).toBeGreaterThanOrEqual(4);
    expect(many).toContain(429);
  });

  it('a lease whose holder stopped (run out) holds nothing; reports at once of one business each get an answer, and leave none held', async () => {
    expect(await takeReportLease(t.service.db, t.a.business.id, 'a-stopped-process', -1_000)).toBe(true);
    expect((await report(t.a, {})).status).toBe(200);
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => report(t.a, { interval: 'week' })))).map((answer) => answer.status);
    expect(statuses).toContain(200);
    expect(
      statuses.every((status) => status === 200 || status === 429),
      statuses.join(),
    ).toBe(true);
    expect((await report(t.a, {})).status).toBe(200);
  });
});
