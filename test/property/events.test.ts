// Property-based tests of the event reads (GET /api/events, GET /api/events/{id}) against a model.
// Events are seeded straight into the outbox, as the webhooks of many payments would leave them: one
// entry per endpoint an event went to (some to two, one of them queued later, as a resend to a new
// endpoint does), each delivered, waiting, retrying or given up. For any valid query the page must be
// the model's: events filtered by type, creation day (the first entry's) and delivery success, in
// order, paged; every event's state is the group's; another business's events never show; a
// malformed query is a 422 naming the parameter. The worker is off, so the seeded states stay.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { useService } from '../support/service.js';
import { SEED, holds, requestCount, send, validationErrors, type Caller } from './harness.js';

let a: Caller;

const TYPES = [
  'payment.created',
  'payment.failed',
  'refund.succeeded',
  'refund.failed',
  'payment_link.expired',
  'token.activated',
  'token.card_removed',
  'ping',
] as const;
type Status = 'pending' | 'delivered' | 'dead';
interface Entry {
  endpoint: number;
  status: Status;
  attempts: number;
  created_at: string;
}
interface ModelEvent {
  id: string;
  type: string;
  entries: Entry[];
}

const FROM = Date.UTC(2023, 0, 3, 5, 0, 0);
const DAY = 86_400_000;
/** Distinct creation times over about 40 days, microseconds included. */
const timeOf = (ms: number, i: number) => `${new Date(ms).toISOString().slice(0, 19)}.${String(100_003 * (i + 1)).slice(-6)}Z`;
const STATES: [Status, number][] = [
  ['delivered', 1],
  ['pending', 0],
  ['pending', 3],
  ['dead', 12],
  ['delivered', 2],
];

const model: ModelEvent[] = [];
const foreign: string[] = [];

async function insertEvent(businessId: number, event: ModelEvent): Promise<void> {
  for (const entry of event.entries) {
    await t.sql('outbox').insert({
      business_id: businessId,
      endpoint_id: entry.endpoint,
      channel: 'webhook',
      topic: event.type,
      payload: JSON.stringify({ id: event.id, body: { trigger_at: event.entries[0]!.created_at, event: event.type, data: { n: event.id } } }),
      event_id: event.id,
      status: entry.status,
      attempts: entry.attempts,
      next_attempt_at: entry.created_at,
      last_error: entry.status === 'delivered' ? null : entry.attempts > 0 ? 'webhook answered HTTP 500' : null,
      delivered_at: entry.status === 'delivered' ? entry.created_at : null,
      created_at: entry.created_at,
      updated_at: entry.created_at,
    });
  }
}

const t = useService({ outbox: { worker: false } });
beforeAll(async () => {
  a = { apiUrl: t.apiUrl, key: t.a.key };
  const endpointRow = async (key: string) => {
    const reply = await send({ apiUrl: t.apiUrl, key }, 'POST', '/webhook-endpoints', JSON.stringify({ url: 'https://merchant.example.com/hooks' }));
    expect(reply.status, reply.text).toBe(200);
    const id = (reply.body as { data: { _id: string } }).data._id;
    return Number((await t.sql('webhook_endpoints').where({ _id: id }).first()).id);
  };
  const [first, second, theirs] = [await endpointRow(t.a.key), await endpointRow(t.a.key), await endpointRow(t.b.key)];
  for (let i = 0; i < 45; i += 1) {
    const at = FROM + i * 0.9 * DAY;
    const entries: Entry[] = [{ endpoint: first!, status: STATES[i % 5]![0], attempts: STATES[i % 5]![1], created_at: timeOf(at, i) }];
    // Every third event went to a second endpoint too; every sixth only later, as a resend there.
    if (i % 3 === 0) {
      const later = i % 6 === 0 ? at + 3 * DAY : at;
      entries.push({ endpoint: second!, status: STATES[(i + 2) % 5]![0], attempts: STATES[(i + 2) % 5]![1], created_at: timeOf(later, i + 50) });
    }
    const event = { id: `evt_${newId()}`, type: TYPES[i % TYPES.length]!, entries };
    model.push(event);
    await insertEvent(t.a.business.id, event);
  }
  for (let i = 0; i < 5; i += 1) {
    const event = {
      id: `evt_${newId()}`,
      type: TYPES[i]!,
      entries: [{ endpoint: theirs!, status: 'delivered' as const, attempts: 1, created_at: timeOf(FROM + i * DAY, i) }],
    };
    foreign.push(event.id);
    await insertEvent(t.b.business.id, event);
  }
}, 60_000);

afterAll(async () => {
  console.log(`property: ${requestCount()} requests generated, seed ${SEED} (events; replay with PROPERTY_SEED=${SEED})`);
});

/** The event as the API must show it: the group's state. */
function expected(event: ModelEvent) {
  const status: Status = event.entries.some((e) => e.status === 'dead')
    ? 'dead'
    : event.entries.every((e) => e.status === 'delivered')
      ? 'delivered'
      : 'pending';
  return {
    id: event.id,
    type: event.type,
    status,
    delivery_success: status === 'delivered',
    attempts: event.entries.reduce((sum, e) => sum + e.attempts, 0),
    created_at: event.entries.map((e) => e.created_at).sort()[0]!,
  };
}

interface Query {
  type?: string;
  between?: [string, string];
  success?: boolean;
  sort?: 'created_at' | '-created_at';
  page?: number;
  perPage?: number;
}

function modelPage(query: Query) {
  let rows = model.map(expected);
  if (query.type) rows = rows.filter((e) => e.type === query.type);
  if (query.between) rows = rows.filter((e) => e.created_at.slice(0, 10) >= query.between![0] && e.created_at.slice(0, 10) <= query.between![1]);
  if (query.success === true) rows = rows.filter((e) => e.delivery_success);
  if (query.success === false) {
    const failing = new Set(model.filter((m) => m.entries.some((e) => e.status === 'dead' || (e.status === 'pending' && e.attempts > 0))).map((m) => m.id));
    rows = rows.filter((e) => failing.has(e.id));
  }
  rows.sort((x, y) => x.created_at.localeCompare(y.created_at));
  if (query.sort !== 'created_at') rows.reverse();
  const perPage = query.perPage ?? 15;
  const page = query.page ?? 1;
  return { total: rows.length, data: rows.slice((page - 1) * perPage, page * perPage) };
}

const day = (offset: number) => new Date(FROM + offset * DAY).toISOString().slice(0, 10);
const queries: fc.Arbitrary<Query> = fc.record(
  {
    type: fc.constantFrom(...TYPES),
    between: fc
      .tuple(fc.integer({ min: -2, max: 45 }), fc.integer({ min: 0, max: 20 }))
      .map(([start, length]): [string, string] => [day(start), day(start + length)]),
    success: fc.boolean(),
    sort: fc.constantFrom('created_at' as const, '-created_at' as const),
    page: fc.integer({ min: 1, max: 5 }),
    perPage: fc.integer({ min: 1, max: 20 }),
  },
  { requiredKeys: [] },
);

function queryText(query: Query): string {
  const params = new URLSearchParams();
  if (query.type) params.set('filter[type]', query.type);
  if (query.between) params.set('filter[created_at_between]', query.between.join(','));
  if (query.success !== undefined) params.set('filter[delivery_success]', String(query.success));
  if (query.sort) params.set('sort', query.sort);
  if (query.page) params.set('page', String(query.page));
  if (query.perPage) params.set('per_page', String(query.perPage));
  const text = params.toString();
  return text ? `?${text}` : '';
}

describe('GET /events', () => {
  it("any valid query answers the model's page: filtered, ordered, paged, each event in its group's state", async () => {
    await holds(
      'event list',
      queries,
      async (query) => {
        const reply = await send(a, 'GET', `/events${queryText(query)}`);
        expect(reply.status, reply.text).toBe(200);
        const page = (reply.body as { data: { total: number; data: Record<string, unknown>[] } }).data;
        const want = modelPage(query);
        expect(page.total).toBe(want.total);
        expect(
          page.data.map(({ id, type, status, delivery_success, attempts, created_at }) => ({ id, type, status, delivery_success, attempts, created_at })),
        ).toEqual(want.data);
        for (const event of page.data) expect(foreign).not.toContain(event.id);
      },
      150,
    );
  });

  it('a malformed parameter is a 422 naming it', async () => {
    const bad = fc.oneof(
      fc
        .string({ minLength: 1, maxLength: 12 })
        .filter((v) => !(TYPES as readonly string[]).includes(v.trim()))
        .map((v) => ['filter[type]', v, 'filter.type'] as const),
      fc.constantFrom('maybe', 'yes', '2', 'TRUE ').map((v) => ['filter[delivery_success]', v, 'filter.delivery_success'] as const),
      fc
        .constantFrom('2023-01-01', '2023-02-30,2023-03-01', '2023-03-01,2023-01-01', 'x,y')
        .map((v) => ['filter[created_at_between]', v, 'filter.created_at_between'] as const),
      fc.constantFrom('0', '101', '-1', 'ten').map((v) => ['per_page', v, 'per_page'] as const),
      fc.constantFrom('created', 'CREATED_AT', '+created_at').map((v) => ['sort', v, 'sort'] as const),
    );
    await holds(
      'event list, one bad parameter',
      bad,
      async ([name, value, key]) => {
        const reply = await send(a, 'GET', `/events?${new URLSearchParams({ [name]: value }).toString()}`);
        expect(Object.keys(validationErrors(reply, `${name}=${value}`))).toEqual([key]);
      },
      60,
    );
  });
});

describe('GET /events/{id}', () => {
  it("one of the business's events is its group's state with each endpoint's delivery; anything else is a 404", async () => {
    const ids = fc.oneof(
      fc.constantFrom(...model.map((e) => e.id)).map((id) => ({ id, own: true })),
      fc.constantFrom(...foreign).map((id) => ({ id, own: false })),
      // Not empty, `.` or `..`, which make another path (the list) rather than another id.
      fc
        .string({ minLength: 1, maxLength: 40 })
        .filter((id) => id !== '.' && id !== '..')
        .map((id) => ({ id, own: false })),
      fc.constant(`evt_${newId()}`).map((id) => ({ id, own: false })),
    );
    await holds(
      'event by id',
      ids,
      async ({ id, own }) => {
        const reply = await send(a, 'GET', `/events/${encodeURIComponent(id)}`);
        if (!own) return expect(reply.status, reply.text).toBe(404);
        expect(reply.status, reply.text).toBe(200);
        const event = (reply.body as { data: Record<string, unknown> & { endpoints: { status: string }[] } }).data;
        const want = model.find((e) => e.id === id)!;
        expect(event).toMatchObject(expected(want));
        expect(event.endpoints.map((e) => e.status)).toEqual(want.entries.map((e) => e.status));
      },
      120,
    );
  });
});
