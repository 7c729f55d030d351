// The two index endpoints, GET /payment-links and GET /open-payment-links: the Laravel-style
// length-aware paginator, page/per_page/sort, the filters of docs/compatibility.md, Lists, rejection of
// unknown query parameters, and tenant isolation. Every test works on a business of its own so that
// totals are exact.
import { beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../client/index.js';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { raw, useService, type Tenant } from '../support/service.js';

const t = useService();

type Body = Record<string, unknown>;
type Query = Record<string, unknown>;
type Paginator = components['schemas']['Paginator'];
interface Row {
  _id: string;
  created_at: string;
}
type Page = Paginator & { data: Row[] };
interface ListResult {
  response: Response;
  page: Page | undefined;
  error: unknown;
}

interface Kind {
  resource: 'payment-links' | 'open-payment-links';
  table: 'payment_links' | 'open_payment_links';
  create(tenant: Tenant, body?: Body): Promise<Row>;
  list(tenant: Tenant, query?: Query): Promise<ListResult>;
  remove(tenant: Tenant, id: string): Promise<number>;
}

const paymentLinks: Kind = {
  resource: 'payment-links',
  table: 'payment_links',
  async create(tenant, body = {}) {
    const result = await tenant.client.POST('/payment-links', {
      body: { email: 'payer@example.com', currency: 'MYR', amount: 1500, title: 'Invoice', ...body } as never,
    });
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    return result.data!.data;
  },
  async list(tenant, query = {}) {
    const { response, data, error } = await tenant.client.GET('/payment-links', { params: { query: query as never } });
    return { response, page: data?.data, error };
  },
  async remove(tenant, id) {
    const { response } = await tenant.client.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
    return response.status;
  },
};

const openPaymentLinks: Kind = {
  resource: 'open-payment-links',
  table: 'open_payment_links',
  async create(tenant, body = {}) {
    const result = await tenant.client.POST('/open-payment-links', {
      body: { currency: 'MYR', minimum_amount: '10.00', title: 'Donations', ...body } as never,
    });
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    return result.data!.data;
  },
  async list(tenant, query = {}) {
    const { response, data, error } = await tenant.client.GET('/open-payment-links', { params: { query: query as never } });
    return { response, page: data?.data, error };
  },
  async remove(tenant, id) {
    const { response } = await tenant.client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: id } } });
    return response.status;
  },
};

let tenants = 0;
async function freshTenant(): Promise<Tenant> {
  const business = await findOrCreateBusiness(t.service.db, `Lists test ${++tenants}`);
  const { key } = await issueKey(t.service.db, business.id);
  return { business, key, client: t.clientFor(key) };
}

async function setCreatedAt(kind: Kind, id: string, createdAt: string): Promise<void> {
  await t.sql(kind.table).where({ _id: id }).update({ created_at: createdAt });
}

/** Creates one link per timestamp (given oldest first) and backdates it; returns the ids oldest first. */
async function createAt(kind: Kind, tenant: Tenant, timestamps: string[], body: Body = {}): Promise<string[]> {
  const ids: string[] = [];
  for (const createdAt of timestamps) {
    const { _id } = await kind.create(tenant, body);
    await setCreatedAt(kind, _id, createdAt);
    ids.push(_id);
  }
  return ids;
}

/** `2022-03-01T08:00:00.000000Z`, `2022-03-02T08:00:00.000000Z`, ... */
const days = (count: number) => Array.from({ length: count }, (_, i) => `2022-03-${String(i + 1).padStart(2, '0')}T08:00:00.000000Z`);

const ids = (result: ListResult) => {
  expect(result.response.status, JSON.stringify(result.error)).toBe(200);
  return result.page!.data.map((row) => row._id);
};

/** A URL with its query parameters in a fixed order, so that URLs compare by meaning. */
function canonical(url: string | null): string | null {
  if (url === null) return null;
  const parsed = new URL(url);
  const entries = [...parsed.searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${parsed.origin}${parsed.pathname}?${entries.map(([name, value]) => `${name}=${value}`).join('&')}`;
}

interface ExpectedPage {
  /** The query parameters the page URLs must keep, as they appear in the URL (`filter[reference]`). */
  keep?: Record<string, string>;
  current_page: number;
  data: string[];
  from: number | null;
  to: number | null;
  last_page: number;
  per_page: number;
  total: number;
  next: number | null;
  prev: number | null;
}

/** Checks every paginator member exactly; page URLs are compared with their parameters in a fixed order. */
function expectPage(kind: Kind, result: ListResult, expected: ExpectedPage): void {
  expect(result.response.status, JSON.stringify(result.error)).toBe(200);
  const path = `${t.service.publicUrl}/api/${kind.resource}`;
  const url = (page: number) => canonical(`${path}?${new URLSearchParams({ ...expected.keep, page: String(page) })}`);
  const page = result.page!;
  expect({
    ...page,
    data: page.data.map((row) => row._id),
    first_page_url: canonical(page.first_page_url),
    last_page_url: canonical(page.last_page_url),
    next_page_url: canonical(page.next_page_url),
    prev_page_url: canonical(page.prev_page_url),
  }).toStrictEqual({
    current_page: expected.current_page,
    data: expected.data,
    first_page_url: url(1),
    from: expected.from,
    last_page: expected.last_page,
    last_page_url: url(expected.last_page),
    next_page_url: expected.next === null ? null : url(expected.next),
    path,
    per_page: expected.per_page,
    prev_page_url: expected.prev === null ? null : url(expected.prev),
    to: expected.to,
    total: expected.total,
  });
}

function expectInvalid(result: ListResult, errors: Record<string, string[]>): void {
  expect(result.response.status).toBe(422);
  expect(result.error).toStrictEqual({ message: 'The given data was invalid.', errors });
}

/** Raw GET of a page URL the server handed out, with the caller's key. */
async function follow(url: string, tenant: Tenant): Promise<Page> {
  const response = await raw(url, { key: tenant.key, headers: { Accept: 'application/json' } });
  expect(response.status, response.text).toBe(200);
  return (response.body as { data: Page }).data;
}

const RANGE_ERROR = { 'filter.created_at_between': ['The filter.created at between format is invalid.'] };

describe.each([
  ['GET /payment-links', paymentLinks],
  ['GET /open-payment-links', openPaymentLinks],
])('%s', (_name, kind) => {
  describe('pagination over 16 links', () => {
    let tenant: Tenant;
    /** Oldest first. */
    let oldest: string[];
    /** Newest first: the default order. */
    let newest: string[];
    beforeAll(async () => {
      tenant = await freshTenant();
      oldest = await createAt(kind, tenant, days(16), { reference: 'PAGED' });
      newest = [...oldest].reverse();
    });

    it('defaults to 15 per page, newest first', async () => {
      expectPage(kind, await kind.list(tenant), {
        current_page: 1,
        data: newest.slice(0, 15),
        from: 1,
        to: 15,
        last_page: 2,
        per_page: 15,
        total: 16,
        next: 2,
        prev: null,
      });
      expectPage(kind, await kind.list(tenant, { page: 2 }), {
        current_page: 2,
        data: newest.slice(15),
        from: 16,
        to: 16,
        last_page: 2,
        per_page: 15,
        total: 16,
        next: null,
        prev: 1,
      });
    });

    it('reports the first, a middle, the last and a past-the-end page exactly', async () => {
      const keep = { per_page: '5' };
      const common = { keep, last_page: 4, per_page: 5, total: 16 };
      expectPage(kind, await kind.list(tenant, { per_page: 5 }), { ...common, current_page: 1, data: newest.slice(0, 5), from: 1, to: 5, next: 2, prev: null });
      expectPage(kind, await kind.list(tenant, { per_page: 5, page: 1 }), {
        ...common,
        current_page: 1,
        data: newest.slice(0, 5),
        from: 1,
        to: 5,
        next: 2,
        prev: null,
      });
      expectPage(kind, await kind.list(tenant, { per_page: 5, page: 2 }), {
        ...common,
        current_page: 2,
        data: newest.slice(5, 10),
        from: 6,
        to: 10,
        next: 3,
        prev: 1,
      });
      expectPage(kind, await kind.list(tenant, { per_page: 5, page: 4 }), {
        ...common,
        current_page: 4,
        data: newest.slice(15),
        from: 16,
        to: 16,
        next: null,
        prev: 3,
      });
      expectPage(kind, await kind.list(tenant, { per_page: 5, page: 5 }), { ...common, current_page: 5, data: [], from: null, to: null, next: null, prev: 4 });
      expectPage(kind, await kind.list(tenant, { per_page: 5, page: 50 }), {
        ...common,
        current_page: 50,
        data: [],
        from: null,
        to: null,
        next: null,
        prev: 49,
      });
    });

    it('accepts per_page 1 and 100', async () => {
      expectPage(kind, await kind.list(tenant, { per_page: 1, page: 16 }), {
        keep: { per_page: '1' },
        current_page: 16,
        data: [oldest[0]!],
        from: 16,
        to: 16,
        last_page: 16,
        per_page: 1,
        total: 16,
        next: null,
        prev: 15,
      });
      expectPage(kind, await kind.list(tenant, { per_page: 100 }), {
        keep: { per_page: '100' },
        current_page: 1,
        data: newest,
        from: 1,
        to: 16,
        last_page: 1,
        per_page: 100,
        total: 16,
        next: null,
        prev: null,
      });
    });

    it('sorts oldest first with sort=created_at and newest first with sort=-created_at', async () => {
      expect(ids(await kind.list(tenant, { per_page: 100, sort: 'created_at' }))).toEqual(oldest);
      expect(ids(await kind.list(tenant, { per_page: 100, sort: '-created_at' }))).toEqual(newest);
      expect(ids(await kind.list(tenant, { per_page: 3, page: 2, sort: 'created_at' }))).toEqual(oldest.slice(3, 6));
    });

    it('orders by created_at, not by creation order or id', async () => {
      const other = await freshTenant();
      const [a, b, c] = await createAt(kind, other, ['2022-01-03T00:00:00.000000Z', '2022-01-01T00:00:00.000000Z', '2022-01-02T00:00:00.000000Z']);
      expect(ids(await kind.list(other))).toEqual([a, c, b]);
      expect(ids(await kind.list(other, { sort: 'created_at' }))).toEqual([b, c, a]);
    });

    it('keeps the other query parameters in page URLs', async () => {
      const query = { per_page: 5, page: 2, sort: 'created_at', filter: { reference: 'PAGED' } };
      const keep = { per_page: '5', sort: 'created_at', 'filter[reference]': 'PAGED' };
      expectPage(kind, await kind.list(tenant, query), {
        keep,
        current_page: 2,
        data: oldest.slice(5, 10),
        from: 6,
        to: 10,
        last_page: 4,
        per_page: 5,
        total: 16,
        next: 3,
        prev: 1,
      });
    });

    it('hands out page URLs that can be followed as they are', async () => {
      const first = await kind.list(tenant, { per_page: 5, sort: 'created_at', filter: { reference: 'PAGED' } });
      expect(first.response.status).toBe(200);

      // Forwards through next_page_url: every link exactly once, in order.
      const seen: string[] = [];
      let page: Page = first.page!;
      const visited: number[] = [];
      for (;;) {
        visited.push(page.current_page);
        seen.push(...page.data.map((row) => row._id));
        if (page.next_page_url === null) break;
        page = await follow(page.next_page_url, tenant);
        expect(page.per_page).toBe(5);
      }
      expect(visited).toEqual([1, 2, 3, 4]);
      expect(seen).toEqual(oldest);

      // Backwards through prev_page_url, and to both ends.
      const last = await follow(first.page!.last_page_url, tenant);
      expect(last.current_page).toBe(4);
      expect(last.data.map((row) => row._id)).toEqual(oldest.slice(15));
      const third = await follow(last.prev_page_url!, tenant);
      expect(third.current_page).toBe(3);
      expect(third.data.map((row) => row._id)).toEqual(oldest.slice(10, 15));
      const again = await follow(third.first_page_url, tenant);
      expect(again.data.map((row) => row._id)).toEqual(oldest.slice(0, 5));
      expect(again.total).toBe(16);
    });

    it.each([
      [{ per_page: 0 }, { per_page: ['The per page must be at least 1.'] }],
      [{ per_page: 101 }, { per_page: ['The per page must not be greater than 100.'] }],
      [{ per_page: 'abc' }, { per_page: ['The per page must be an integer.'] }],
      [{ per_page: 2.5 }, { per_page: ['The per page must be an integer.'] }],
      [{ page: 0 }, { page: ['The page must be at least 1.'] }],
      [{ page: -1 }, { page: ['The page must be at least 1.'] }],
      [{ page: 'abc' }, { page: ['The page must be an integer.'] }],
      [{ sort: 'title' }, { sort: ['The selected sort is invalid.'] }],
      [{ sort: 'CREATED_AT' }, { sort: ['The selected sort is invalid.'] }],
      [{ sort: 'asc' }, { sort: ['The selected sort is invalid.'] }],
      [
        { page: 0, per_page: 101, sort: 'x' },
        { page: ['The page must be at least 1.'], per_page: ['The per page must not be greater than 100.'], sort: ['The selected sort is invalid.'] },
      ],
    ])('rejects %j', async (query, errors) => {
      expectInvalid(await kind.list(tenant, query), errors);
    });
  });

  it('reports an empty list exactly', async () => {
    const tenant = await freshTenant();
    expectPage(kind, await kind.list(tenant), {
      current_page: 1,
      data: [],
      from: null,
      to: null,
      last_page: 1,
      per_page: 15,
      total: 0,
      next: null,
      prev: null,
    });
  });

  it('lists each link exactly as GET shows it', async () => {
    const tenant = await freshTenant();
    const link = await kind.create(tenant, { reference: 'SHOWN', description: 'Shown in the list' });
    const result = await kind.list(tenant);
    expect(result.response.status).toBe(200);
    expect(result.page!.data).toStrictEqual([link]);
  });

  it.each([
    [{ foo: '1' }, { foo: ['The foo field is prohibited.'] }],
    [{ status: 'Active' }, { status: ['The status field is prohibited.'] }],
    [{ reference: 'X' }, { reference: ['The reference field is prohibited.'] }],
    [{ filter: { foo: 'x' } }, { 'filter.foo': ['The filter.foo field is prohibited.'] }],
    [{ filter: { created_at: '2022-05-01' } }, { 'filter.created_at': ['The filter.created at field is prohibited.'] }],
  ])('rejects the unknown query parameter %j', async (query, errors) => {
    const tenant = await freshTenant();
    await kind.create(tenant);
    expectInvalid(await kind.list(tenant, query), errors);
  });

  it('rejects an unknown parameter sent raw, alongside valid ones', async () => {
    const tenant = await freshTenant();
    const response = await raw(`${t.apiUrl}/${kind.resource}?per_page=5&filter[reference]=X&filter[referense_2]=Y&pgae=2`, {
      key: tenant.key,
      headers: { Accept: 'application/json' },
    });
    expect(response.status).toBe(422);
    expect(response.body).toStrictEqual({
      message: 'The given data was invalid.',
      errors: { 'filter.referense_2': ['The filter.referense 2 field is prohibited.'], pgae: ['The pgae field is prohibited.'] },
    });
  });

  it.each([
    ['constructor=1', { constructor: ['The constructor field is prohibited.'] }],
    ['toString=x&per_page=5', { toString: ['The toString field is prohibited.'] }],
    ['filter[hasOwnProperty]=y', { 'filter.hasOwnProperty': ['The filter.hasOwnProperty field is prohibited.'] }],
    ['__proto__[status]=Paid', { '__proto__.status': ['The   proto  .status field is prohibited.'] }],
    ['__proto__=Paid', JSON.parse('{"__proto__": ["The   proto   field is prohibited."]}') as Record<string, string[]>],
    ['filter[__proto__]=x', { 'filter.__proto__': ['The filter.  proto   field is prohibited.'] }],
  ])('rejects %s, named after an Object.prototype member, like any unknown parameter', async (query, errors) => {
    const tenant = await freshTenant();
    const response = await raw(`${t.apiUrl}/${kind.resource}?${query}`, { key: tenant.key, headers: { Accept: 'application/json' } });
    expect(response.status).toBe(422);
    // Compared as text: an object with its own `constructor` key defeats deep equality.
    expect(response.text).toBe(JSON.stringify({ message: 'The given data was invalid.', errors }));
  });

  describe('filters', () => {
    it('matches reference exactly and case-sensitively', async () => {
      const tenant = await freshTenant();
      const [exact, lower, longer, spaced] = await createAt(kind, tenant, days(4), {});
      const refs = ['INV-1', 'inv-1', 'INV-10', 'INV-1 '];
      for (const [i, id] of [exact, lower, longer, spaced].entries()) await t.sql(kind.table).where({ _id: id }).update({ reference: refs[i] });
      await kind.create(tenant, { reference_2: 'INV-1' });
      expect(ids(await kind.list(tenant, { filter: { reference: 'INV-1' } }))).toEqual([exact]);
      expect(ids(await kind.list(tenant, { filter: { reference: 'inv-1' } }))).toEqual([lower]);
      expect(ids(await kind.list(tenant, { filter: { reference: 'INV-1 ' } }))).toEqual([spaced]);
      expect(ids(await kind.list(tenant, { filter: { reference: 'INV' } }))).toEqual([]);
      expect(ids(await kind.list(tenant, { filter: { reference: 'INV-%' } }))).toEqual([]);
      expect((await kind.list(tenant, { filter: { reference: 'INV-1' } })).page!.total).toBe(1);
    });

    it('matches reference_2 exactly and case-sensitively', async () => {
      const tenant = await freshTenant();
      const a = await kind.create(tenant, { reference_2: 'Customer-42' });
      const b = await kind.create(tenant, { reference_2: 'customer-42' });
      await kind.create(tenant, { reference: 'Customer-42' });
      expect(ids(await kind.list(tenant, { filter: { reference_2: 'Customer-42' } }))).toEqual([a._id]);
      expect(ids(await kind.list(tenant, { filter: { reference_2: 'customer-42' } }))).toEqual([b._id]);
      expect(ids(await kind.list(tenant, { filter: { reference_2: 'Customer' } }))).toEqual([]);
    });

    it('combines filters with AND', async () => {
      const tenant = await freshTenant();
      const both = await kind.create(tenant, { reference: 'R', reference_2: 'S' });
      await kind.create(tenant, { reference: 'R', reference_2: 'T' });
      await kind.create(tenant, { reference: 'Q', reference_2: 'S' });
      const result = await kind.list(tenant, { filter: { reference: 'R', reference_2: 'S' } });
      expect(ids(result)).toEqual([both._id]);
      expect(result.page!.total).toBe(1);
    });

    describe('created_at_between', () => {
      let tenant: Tenant;
      let before: string, first: string, middle: string, last: string, after: string;
      beforeAll(async () => {
        tenant = await freshTenant();
        const created = await createAt(kind, tenant, [
          '2022-04-30T23:59:59.999000Z',
          '2022-05-01T00:00:00.000000Z',
          '2022-05-15T12:00:00.000000Z',
          '2022-05-31T23:59:59.999000Z',
          '2022-06-01T00:00:00.000000Z',
        ]);
        [before, first, middle, last, after] = created as [string, string, string, string, string];
      });
      const between = (range: string, query: Query = {}) => kind.list(tenant, { ...query, filter: { created_at_between: range } });

      it('includes both UTC days whole and nothing outside them', async () => {
        const result = await between('2022-05-01,2022-05-31');
        expect(ids(result)).toEqual([last, middle, first]);
        expect(result.page!.total).toBe(3);
      });

      it('covers a single day when both dates are the same', async () => {
        expect(ids(await between('2022-05-01,2022-05-01'))).toEqual([first]);
        expect(ids(await between('2022-04-30,2022-04-30'))).toEqual([before]);
        expect(ids(await between('2022-06-01,2022-06-01'))).toEqual([after]);
        expect(ids(await between('2022-05-02,2022-05-14'))).toEqual([]);
      });

      it('spans months and years and combines with sort and pagination', async () => {
        expect(ids(await between('2022-04-30,2022-06-01'))).toEqual([after, last, middle, first, before]);
        expect(ids(await between('2021-01-01,2022-05-01', { sort: 'created_at' }))).toEqual([before, first]);
        expectPage(kind, await between('2022-05-01,2022-05-31', { per_page: 2, page: 2, sort: 'created_at' }), {
          keep: { per_page: '2', sort: 'created_at', 'filter[created_at_between]': '2022-05-01,2022-05-31' },
          current_page: 2,
          data: [last],
          from: 3,
          to: 3,
          last_page: 2,
          per_page: 2,
          total: 3,
          next: null,
          prev: 1,
        });
      });

      it.each([
        '2022-05-31,2022-05-01',
        '2022-02-30,2022-03-01',
        '2022-02-01,2022-02-30',
        '2022-13-01,2022-13-02',
        '2022-05-01',
        '2022-05-01,',
        ',2022-05-31',
        '2022-05-01,2022-05-31,2022-06-30',
        '2022/05/01,2022/05/31',
        '2022-5-1,2022-5-31',
        '2022-05-01T00:00:00Z,2022-05-31T00:00:00Z',
        'yesterday,today',
      ])('rejects the malformed range %j', async (range) => {
        expectInvalid(await between(range), RANGE_ERROR);
      });
    });

    it('excludes deleted links from the page and the total', async () => {
      const tenant = await freshTenant();
      const [a, b, c] = await createAt(kind, tenant, days(3), { reference: 'DEL' });
      expect(await kind.remove(tenant, b!)).toBe(200);
      const result = await kind.list(tenant);
      expect(ids(result)).toEqual([c, a]);
      expect(result.page!.total).toBe(2);
      expect(ids(await kind.list(tenant, { filter: { reference: 'DEL' } }))).toEqual([c, a]);
      expect(ids(await kind.list(tenant, { filter: { created_at_between: '2022-03-02,2022-03-02' } }))).toEqual([]);
    });
  });

  it("never lists another business's links, and counts only the caller's", async () => {
    const mine = await freshTenant();
    const theirs = await freshTenant();
    const myIds = await createAt(kind, mine, days(2), { reference: 'SHARED', reference_2: 'SHARED' });
    const theirIds = await createAt(kind, theirs, days(3), { reference: 'SHARED', reference_2: 'SHARED' });
    const onlyTheirs = await kind.create(theirs, { reference: 'THEIRS' });

    const page = await kind.list(mine, { per_page: 1 });
    expect(page.page!.total).toBe(2);
    expect(page.page!.last_page).toBe(2);
    expect(ids(await kind.list(mine, { per_page: 100 }))).toEqual([...myIds].reverse());
    expect(ids(await kind.list(mine, { filter: { reference: 'SHARED', reference_2: 'SHARED' } }))).toEqual([...myIds].reverse());
    expect(ids(await kind.list(mine, { filter: { created_at_between: '2022-03-01,2022-03-31' } }))).toEqual([...myIds].reverse());
    const none = await kind.list(mine, { filter: { reference: 'THEIRS' } });
    expect(ids(none)).toEqual([]);
    expect(none.page!.total).toBe(0);
    expect(ids(await kind.list(theirs, { per_page: 100 }))).toEqual([onlyTheirs._id, ...[...theirIds].reverse()]);
  });
});

describe('GET /payment-links filters', () => {
  const kind = paymentLinks;
  const markPaid = (id: string) => t.sql('payment_links').where({ _id: id }).update({ status: 'Paid', paid: true });

  it('filters by status Active or Paid', async () => {
    const tenant = await freshTenant();
    const [a, b, c] = await createAt(kind, tenant, days(3));
    await markPaid(b!);
    const paid = await kind.list(tenant, { filter: { status: 'Paid' } });
    expect(ids(paid)).toEqual([b]);
    expect(paid.page!.data[0]).toMatchObject({ status: 'Paid', paid: true });
    expect(paid.page!.total).toBe(1);
    expect(ids(await kind.list(tenant, { filter: { status: 'Active' } }))).toEqual([c, a]);
  });

  it.each(['active', 'PAID', 'Pending'])('rejects the status %j', async (status) => {
    const tenant = await freshTenant();
    expectInvalid(await kind.list(tenant, { filter: { status } }), { 'filter.status': ['The selected filter.status is invalid.'] });
  });

  it('matches email exactly and case-sensitively', async () => {
    const tenant = await freshTenant();
    const exact = await kind.create(tenant, { email: 'payer@example.com' });
    const upper = await kind.create(tenant, { email: 'Payer@example.com' });
    await kind.create(tenant, { email: 'payer@example.com.my' });
    await kind.create(tenant, { email: 'other@example.com', reference: 'payer@example.com' });
    expect(ids(await kind.list(tenant, { filter: { email: 'payer@example.com' } }))).toEqual([exact._id]);
    expect(ids(await kind.list(tenant, { filter: { email: 'Payer@example.com' } }))).toEqual([upper._id]);
    expect(ids(await kind.list(tenant, { filter: { email: 'payer@' } }))).toEqual([]);
    expect(ids(await kind.list(tenant, { filter: { email: 'PAYER@EXAMPLE.COM' } }))).toEqual([]);
  });

  it('combines status, email, references and dates with AND', async () => {
    const tenant = await freshTenant();
    const [target, unpaid, otherEmail, otherRef, otherDay] = await createAt(
      kind,
      tenant,
      [
        '2022-05-10T00:00:00.000000Z',
        '2022-05-11T00:00:00.000000Z',
        '2022-05-12T00:00:00.000000Z',
        '2022-05-13T00:00:00.000000Z',
        '2022-06-10T00:00:00.000000Z',
      ],
      { email: 'payer@example.com', reference: 'R1', reference_2: 'R2' },
    );
    await t.sql('payment_links').where({ _id: otherEmail }).update({ email: 'x@example.com' });
    await t.sql('payment_links').where({ _id: otherRef }).update({ reference_2: 'R3' });
    for (const id of [target!, otherEmail!, otherRef!, otherDay!]) await markPaid(id);
    const filter = { status: 'Paid', email: 'payer@example.com', reference: 'R1', reference_2: 'R2', created_at_between: '2022-05-01,2022-05-31' };
    const result = await kind.list(tenant, { filter });
    expect(ids(result)).toEqual([target]);
    expect(result.page!.total).toBe(1);
    expect(ids(await kind.list(tenant, { filter: { ...filter, status: 'Active' } }))).toEqual([unpaid]);
  });
});

describe('GET /open-payment-links filters', () => {
  const kind = openPaymentLinks;
  const deactivate = (id: string) => t.sql('open_payment_links').where({ _id: id }).update({ status_id: 2, state: 'paused' });

  it('filters by status true (active) or false (inactive)', async () => {
    const tenant = await freshTenant();
    const [a, b, c] = await createAt(kind, tenant, days(3));
    await deactivate(b!);
    const active = await kind.list(tenant, { filter: { status: true } });
    expect(ids(active)).toEqual([c, a]);
    expect(active.page!.total).toBe(2);
    const inactive = await kind.list(tenant, { filter: { status: false } });
    expect(ids(inactive)).toEqual([b]);
    expect(inactive.page!.data[0]).toMatchObject({ status: false, status_id: 2 });
  });

  it('combines status with references and dates', async () => {
    const tenant = await freshTenant();
    const [target, inactive, otherRef] = await createAt(
      kind,
      tenant,
      ['2022-05-10T00:00:00.000000Z', '2022-05-11T00:00:00.000000Z', '2022-05-12T00:00:00.000000Z'],
      {
        reference: 'DON',
        reference_2: 'MAY',
      },
    );
    await deactivate(inactive!);
    await t.sql('open_payment_links').where({ _id: otherRef }).update({ reference: 'DON-2' });
    const filter = { status: true, reference: 'DON', reference_2: 'MAY', created_at_between: '2022-05-01,2022-05-31' };
    expect(ids(await kind.list(tenant, { filter }))).toEqual([target]);
    expect(ids(await kind.list(tenant, { filter: { ...filter, status: false } }))).toEqual([inactive]);
    expect(ids(await kind.list(tenant, { filter: { ...filter, created_at_between: '2022-06-01,2022-06-30' } }))).toEqual([]);
  });

  it.each(['yes', 'active', '2'])('rejects the status %j', async (status) => {
    const tenant = await freshTenant();
    expectInvalid(await kind.list(tenant, { filter: { status } }), { 'filter.status': ['The filter.status field must be true or false.'] });
  });

  it('has no email filter', async () => {
    const tenant = await freshTenant();
    expectInvalid(await kind.list(tenant, { filter: { email: 'payer@example.com' } }), { 'filter.email': ['The filter.email field is prohibited.'] });
  });
});
