// Every list the console filters by day takes `filter[created_on_between]`, days of the business's time
// zone: in Kuala Lumpur (UTC+8) a record of 15:59:59.999999Z is on the day it is in UTC, and one of
// 16:00Z on the next. Each list is asked for each of the two local days, for the UTC day that holds
// both, and for both filters at once, and its total must count exactly what it lists (the counters
// kept by UTC day cannot total a local day). A record moves by its created_at; the rest of each new
// business's records are made today, outside the days asked for.
import { describe, expect, it } from 'vitest';
import { parseLocalDateRange } from '../../server/domain/local-days.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { useService, type Tenant } from '../support/service.js';

const t = useService();

const LAST_OF_DAY_ONE = '2026-03-01T15:59:59.999999Z';
const FIRST_OF_DAY_TWO = '2026-03-01T16:00:00.000000Z';

interface ListKind {
  path: '/payments' | '/payment-links' | '/open-payment-links' | '/tokenizations' | '/events' | '/audit-events' | '/payouts';
  /** The tables whose created_at places a record (an audit event's targets keep theirs too), each with the column of its id. */
  tables: [table: string, idColumn: string][];
  /** The field of a listed record that holds its id: `_id`, but an event's is `id`. */
  idField?: 'id';
}

async function list(tenant: Tenant, kind: ListKind, query: Record<string, string>) {
  const { response, data, error } = await tenant.client.GET(kind.path as '/payments', { params: { query: query as never } });
  expect(response.status, JSON.stringify(error)).toBe(200);
  const page = data!.data as unknown as { data: Record<string, string>[]; total: number; total_is_lower_bound?: boolean };
  return { ids: page.data.map((row) => row[kind.idField ?? '_id']!).sort(), total: page.total, lowerBound: page.total_is_lower_bound ?? false };
}

async function place(kind: ListKind, id: string, createdAt: string) {
  for (const [table, idColumn] of kind.tables)
    await t
      .sql(table)
      .where({ [idColumn]: id })
      .update({ created_at: createdAt });
}

async function pay(tenant: Tenant): Promise<string> {
  const { data } = await tenant.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 10_000, title: 'Order' } });
  const paid = await submitPage(t.url, data!.data.payment_url, { name: 'Aisyah Rahman', ...GOOD_CARD });
  expect(paid.status).toBe(303);
  return paid.paymentId!;
}

/** Two records of the kind, the last instant of 1 March and the first of 2 March in Kuala Lumpur; one for payouts. */
async function twoRecords(tenant: Tenant, kind: ListKind): Promise<string[]> {
  if (kind.path === '/payouts') {
    await pay(tenant);
    for (let day = 10; day < 25; day += 1) {
      const run = await tenant.client.POST('/test-helpers/payouts', { body: { as_of: `2026-12-${day}` } });
      if (run.data!.data.length > 0) return [run.data!.data[0]!._id];
    }
    throw new Error('the sandbox made no payout');
  }
  if (kind.path === '/payments') return [await pay(tenant), await pay(tenant)];
  if (kind.path === '/events' || kind.path === '/audit-events') {
    await pay(tenant);
    const { ids } = await list(tenant, kind, { per_page: '2' });
    return ids;
  }
  const bodies = {
    '/payment-links': { email: 'payer@example.com', currency: 'MYR', amount: 1_000, title: 'Invoice' },
    '/open-payment-links': { currency: 'MYR', minimum_amount: '5.00', title: 'Donations' },
    '/tokenizations': { email: 'payer@example.com', title: 'Monthly plan', description: 'Card for the plan' },
  };
  const path = kind.path === '/tokenizations' ? '/tokenizations/create-token' : kind.path;
  const made: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const { data, error } = await tenant.client.POST(path as '/payment-links', { body: bodies[kind.path] as never });
    expect(data, JSON.stringify(error)).toBeDefined();
    made.push((data!.data as { _id: string })._id);
  }
  return made;
}

const KINDS: ListKind[] = [
  { path: '/payments', tables: [['payments', '_id']] },
  { path: '/payment-links', tables: [['payment_links', '_id']] },
  { path: '/open-payment-links', tables: [['open_payment_links', '_id']] },
  { path: '/tokenizations', tables: [['tokens', '_id']] },
  { path: '/events', tables: [['webhook_events', 'event_id']], idField: 'id' },
  {
    path: '/audit-events',
    tables: [
      ['audit_events', '_id'],
      ['audit_event_targets', 'event_id'],
    ],
  },
  { path: '/payouts', tables: [['payouts', '_id']] },
];

describe('filter[created_on_between]: days of the business', () => {
  it.each(KINDS.map((kind) => [kind.path, kind] as const))('GET %s lists and counts the records of those days in its time zone', async (_path, kind) => {
    const tenant = await t.newTenant(`Business days ${kind.path}`);
    const made = await twoRecords(tenant, kind);
    const [first, second] = made.length === 2 ? made : [undefined, made[0]!];
    if (first) await place(kind, first, LAST_OF_DAY_ONE);
    await place(kind, second!, FIRST_OF_DAY_TWO);

    const exactly = (ids: (string | undefined)[]) => {
      const listed = ids.filter((id) => id !== undefined).sort();
      return { ids: listed, total: listed.length, lowerBound: false };
    };
    expect(await list(tenant, kind, { 'filter[created_on_between]': '2026-03-01,2026-03-01' })).toEqual(exactly([first]));
    expect(await list(tenant, kind, { 'filter[created_on_between]': '2026-03-02,2026-03-02' })).toEqual(exactly([second]));
    expect(await list(tenant, kind, { 'filter[created_on_between]': '2026-02-28,2026-03-02' })).toEqual(exactly([first, second]));
    // 1 March in UTC holds both; with 2 March of Kuala Lumpur as well, only the second.
    expect(await list(tenant, kind, { 'filter[created_at_between]': '2026-03-01,2026-03-01' })).toEqual(exactly([first, second]));
    expect(await list(tenant, kind, { 'filter[created_at_between]': '2026-03-01,2026-03-01', 'filter[created_on_between]': '2026-03-02,2026-03-02' })).toEqual(
      exactly([second]),
    );

    // In the business's own zone, as its profile sets it: 16:00Z is still 1 March in London.
    expect((await tenant.client.PATCH('/business', { body: { time_zone: 'Europe/London' } })).response.status).toBe(200);
    expect(await list(tenant, kind, { 'filter[created_on_between]': '2026-03-01,2026-03-01' })).toEqual(exactly([first, second]));
    expect(await list(tenant, kind, { 'filter[created_on_between]': '2026-03-02,2026-03-02' })).toEqual(exactly([]));
  });

  it('refuses days that do not exist or come out of order, as the other day filters do', async () => {
    for (const days of ['2026-02-30,2026-03-01', '2026-03-02,2026-03-01', '2026-03-01']) {
      const { response, error } = await t.a.client.GET('/payments', { params: { query: { 'filter[created_on_between]': days } } });
      expect(response.status, days).toBe(422);
      expect(Object.keys((error as { errors: Record<string, string[]> }).errors)).toEqual(['filter.created_on_between']);
    }
  });
});

describe('the instants of a range of local days', () => {
  it('starts and ends each day where its zone does, a day of a change of offset included', () => {
    expect(parseLocalDateRange('2026-03-02,2026-03-02', 'Asia/Kuala_Lumpur')).toMatchObject({
      start: '2026-03-01T16:00:00.000000Z',
      end: '2026-03-02T15:59:59.999999Z',
    });
    // New York's clocks go forward on 8 March 2026 (a day of 23 hours) and back on 1 November (25 hours).
    expect(parseLocalDateRange('2026-03-08,2026-03-08', 'America/New_York')).toMatchObject({
      start: '2026-03-08T05:00:00.000000Z',
      end: '2026-03-09T03:59:59.999999Z',
    });
    expect(parseLocalDateRange('2026-11-01,2026-11-01', 'America/New_York')).toMatchObject({
      start: '2026-11-01T04:00:00.000000Z',
      end: '2026-11-02T04:59:59.999999Z',
    });
    // The ends of the calendar are the store's first and last instants, in any zone.
    expect(parseLocalDateRange('0000-01-01,9999-12-31', 'Pacific/Kiritimati')).toMatchObject({
      start: '0001-01-01T00:00:00.000000Z',
      end: '9999-12-31T23:59:59.999999Z',
    });
    // Days before year 1 (which PostgreSQL has no timestamps for) are its first instant, a range that holds no record.
    expect(parseLocalDateRange('0000-01-01,0000-12-31', 'Asia/Kuala_Lumpur')).toMatchObject({
      start: '0001-01-01T00:00:00.000000Z',
      end: '0001-01-01T00:00:00.000000Z',
    });
    expect(parseLocalDateRange('2026-03-02,2026-03-01', 'Asia/Kuala_Lumpur')).toBeNull();
  });
});
