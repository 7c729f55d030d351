// Tenant isolation: a business sees, changes and deletes only its own records. Another business's id
// is answered exactly like an id that does not exist (404, never 403), and changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsClient } from '../../client/index.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { useService, type Tenant } from '../support/service.js';
import { paymentLinkBody } from './fixture.js';

interface Records {
  paymentLink: string;
  openLink: string;
  token: string;
}
const a: Records = { paymentLink: '', openLink: '', token: '' };
const b: Records = { paymentLink: '', openLink: '', token: '' };
const UNKNOWN_ID = '0123456789abcdef01234567';

const openLinkBody = (tag: string) => ({
  currency: 'MYR',
  minimum_amount: '10.00',
  title: `Donations ${tag}`,
  reference: `REF-${tag}`,
  reference_2: `R2-${tag}`,
});
const tokenBody = (tag: string) => ({ email: `card-${tag}@example.com`, title: `Card ${tag}`, description: `Plan ${tag}` });

async function create(tenant: Tenant, tag: string): Promise<Records> {
  const paymentLink = await tenant.client.POST('/payment-links', { body: paymentLinkBody(tag) });
  const openLink = await tenant.client.POST('/open-payment-links', { body: openLinkBody(tag) });
  const token = await tenant.client.POST('/tokenizations/create-token', { body: tokenBody(tag) });
  expect([paymentLink.response.status, openLink.response.status, token.response.status]).toEqual([200, 200, 200]);
  return { paymentLink: paymentLink.data!.data._id, openLink: openLink.data!.data._id, token: token.data!.data._id };
}

/** One successful payment through the hosted page of an open link: a collection. */
async function collect(openLinkId: string, amount: string, name: string): Promise<void> {
  const { data } = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: openLinkId } } });
  const url = new URL(data!.data.payment_url);
  const payer = new Payer(t.url);
  const form = await payer.open(url.pathname + url.search);
  const paid = await payer.submit(form, { amount, name, email: `${name.toLowerCase()}@example.com`, ...GOOD_CARD });
  expect(paid.status).toBe(303);
}

/** Everything A can read about a set of its records, through A's client (data only, meta has the clock). */
async function readAsA(ids: Records) {
  const c = t.a.client;
  const paymentLink = await c.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: ids.paymentLink } } });
  const openLink = await c.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: ids.openLink } } });
  const token = await c.GET('/tokenizations/{token_id}', { params: { path: { token_id: ids.token } } });
  const total = await c.GET('/open-payment-links/{open_payment_link_id}/total-collection', {
    params: { path: { open_payment_link_id: ids.openLink }, query: { 'filter[limit]': 100 } },
  });
  const top = await c.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params: { path: { open_payment_link_id: ids.openLink } } });
  const paymentLinks = await c.GET('/payment-links', { params: { query: { per_page: 100 } } });
  const openLinks = await c.GET('/open-payment-links', { params: { query: { per_page: 100 } } });
  for (const response of [paymentLink, openLink, token, total, top, paymentLinks, openLinks]) expect(response.response.status).toBe(200);
  return {
    paymentLink: paymentLink.data!.data,
    openLink: openLink.data!.data,
    token: token.data!.data,
    total: total.data!.data,
    top: top.data!.data,
    paymentLinks: paymentLinks.data!.data.data,
    openLinks: openLinks.data!.data.data,
  };
}

type Call = (client: PaymentsClient, id: string) => Promise<{ response: Response; error?: unknown; data?: unknown }>;

/** Every operation that takes an id, with the kind of record whose id it takes. */
const byId: [string, keyof Records, Call][] = [
  ['GET /payment-links/{id}', 'paymentLink', (c, id) => c.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } })],
  [
    'PUT /payment-links/{id}',
    'paymentLink',
    (c, id) =>
      c.PUT('/payment-links/{payment_link_id}', {
        params: { path: { payment_link_id: id } },
        body: { email: 'thief@example.com', currency: 'USD', amount: 500, title: 'Taken over' },
      }),
  ],
  ['DELETE /payment-links/{id}', 'paymentLink', (c, id) => c.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } })],
  [
    'GET /open-payment-links/{id}',
    'openLink',
    (c, id) => c.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: id } } }),
  ],
  [
    'PUT /open-payment-links/{id}',
    'openLink',
    (c, id) =>
      c.PUT('/open-payment-links/{open_payment_link_id}', {
        params: { path: { open_payment_link_id: id } },
        body: { currency: 'USD', minimum_amount: '5.00', title: 'Taken over', send_email: true },
      }),
  ],
  [
    'DELETE /open-payment-links/{id}',
    'openLink',
    (c, id) => c.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: id } } }),
  ],
  [
    'GET /open-payment-links/{id}/total-collection',
    'openLink',
    (c, id) => c.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params: { path: { open_payment_link_id: id } } }),
  ],
  [
    'GET /open-payment-links/{id}/total-collection?filter[...]',
    'openLink',
    (c, id) =>
      c.GET('/open-payment-links/{open_payment_link_id}/total-collection', {
        params: { path: { open_payment_link_id: id }, query: { 'filter[limit]': 100, 'filter[created_at_between]': '2000-01-01,2100-12-31' } },
      }),
  ],
  [
    'GET /open-payment-links/{id}/top-collection',
    'openLink',
    (c, id) => c.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params: { path: { open_payment_link_id: id } } }),
  ],
  [
    'GET /open-payment-links/{id}/top-collection?filter[limit]',
    'openLink',
    (c, id) =>
      c.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params: { path: { open_payment_link_id: id }, query: { 'filter[limit]': 100 } } }),
  ],
  ['GET /tokenizations/{id}', 'token', (c, id) => c.GET('/tokenizations/{token_id}', { params: { path: { token_id: id } } })],
];

const t = useService();
beforeAll(async () => {
  Object.assign(a, await create(t.a, 'a'));
  Object.assign(b, await create(t.b, 'b'));
  await collect(a.openLink, '42.00', 'Aisyah');
  await collect(a.openLink, '17.50', 'Wei');
  // B's link has a collection too, so an answer for the wrong link could not pass as empty.
  const { data } = await t.b.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: b.openLink } } });
  const url = new URL(data!.data.payment_url);
  const payer = new Payer(t.url);
  const form = await payer.open(url.pathname + url.search);
  expect((await payer.submit(form, { amount: '99.00', name: 'Bob', email: 'bob@example.com', ...GOOD_CARD })).status).toBe(303);
});

describe('the fixture', () => {
  it("A's open link has its collections, so the comparisons below compare something", async () => {
    const before = await readAsA(a);
    expect(before.total).toMatchObject({ open_payment_link_id: a.openLink, total_amount: 59.5, total_count: 2 });
    expect(before.top.collections.map((c) => c.amount)).toEqual([42, 17.5]);
    expect(before.paymentLink.business_id).toBe(t.a.business.id);
    expect(t.a.business.id).not.toBe(t.b.business.id);
  });
});

describe("business B using business A's ids", () => {
  it.each(byId)("%s with A's id -> 404, and A's record is unchanged", async (_name, kind, call) => {
    const before = await readAsA(a);
    const result = await call(t.b.client, a[kind]);
    expect(result.response.status).toBe(404);
    expect(result.data).toBeUndefined();
    expect(result.error).toEqual({ message: expect.any(String) });
    expect(await readAsA(a)).toEqual(before);
  });

  it.each(byId)("%s: A's id is answered exactly like an id that does not exist (nothing reveals it exists)", async (_name, kind, call) => {
    const foreign = await call(t.b.client, a[kind]);
    const unknown = await call(t.b.client, UNKNOWN_ID);
    expect(unknown.response.status).toBe(404);
    expect(foreign.response.status).toBe(unknown.response.status);
    expect(foreign.error).toEqual(unknown.error);
    expect(foreign.response.headers.get('content-type')).toBe(unknown.response.headers.get('content-type'));
  });

  it.each(byId.filter(([name]) => !name.startsWith('DELETE')))(
    '%s: the same call with its own id works for B (the 404 is about ownership)',
    async (_name, kind, call) => {
      const own = await call(t.b.client, b[kind]);
      expect(own.response.status).toBe(200);
    },
  );

  it("and the other way round: A cannot read, change or delete B's records", async () => {
    const readB = () =>
      Promise.all([
        t.b.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: b.paymentLink } } }),
        t.b.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: b.openLink } } }),
        t.b.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: b.token } } }),
      ]).then((results) => results.map((r) => r.data?.data));
    const before = await readB();
    for (const [name, kind, call] of byId) {
      if (name.startsWith('PUT')) continue; // B's PUTs above changed B's records on purpose; these are reads and deletes
      expect((await call(t.a.client, b[kind])).response.status, name).toBe(404);
    }
    expect(await readB()).toEqual(before);
  });

  it("B's successful writes to its own records leave A's untouched", async () => {
    const before = await readAsA(a);
    const scratch = await create(t.b, 'b-scratch');
    const deletesLast = [...byId.filter(([name]) => !name.startsWith('DELETE')), ...byId.filter(([name]) => name.startsWith('DELETE'))];
    for (const [name, kind, call] of deletesLast) expect((await call(t.b.client, scratch[kind])).response.status, name).toBe(200);
    expect(await readAsA(a)).toEqual(before);
  });
});

describe('lists', () => {
  async function listed(tenant: Tenant) {
    const paymentLinks = await tenant.client.GET('/payment-links', { params: { query: { per_page: 100 } } });
    const openLinks = await tenant.client.GET('/open-payment-links', { params: { query: { per_page: 100 } } });
    expect(paymentLinks.response.status).toBe(200);
    expect(openLinks.response.status).toBe(200);
    return { paymentLinks: paymentLinks.data!.data, openLinks: openLinks.data!.data };
  }

  it.each([
    ['A', () => t.a, () => a, () => b],
    ['B', () => t.b, () => b, () => a],
  ] as const)("%s's lists hold only its own records, each with its business_id", async (_name, tenant, own, other) => {
    const { paymentLinks, openLinks } = await listed(tenant());
    expect(paymentLinks.data.map((l) => l._id)).toContain(own().paymentLink);
    expect(openLinks.data.map((l) => l._id)).toContain(own().openLink);
    expect(paymentLinks.data.map((l) => l._id)).not.toContain(other().paymentLink);
    expect(openLinks.data.map((l) => l._id)).not.toContain(other().openLink);
    for (const link of [...paymentLinks.data, ...openLinks.data]) expect(link.business_id).toBe(tenant().business.id);
    // The totals count only this business's records too.
    const stored = async (table: string) =>
      Number((await t.sql(table).where({ business_id: tenant().business.id }).whereNull('deleted_at').count({ n: '*' }).first())!.n);
    expect(paymentLinks.total).toBe(await stored('payment_links'));
    expect(openLinks.total).toBe(await stored('open_payment_links'));
  });

  it("filtering by the other business's reference, e-mail or status finds nothing of theirs", async () => {
    const byReference = await t.b.client.GET('/payment-links', { params: { query: { 'filter[reference]': 'REF-a' } } });
    expect(byReference.data?.data.total).toBe(0);
    const byReference2 = await t.b.client.GET('/payment-links', { params: { query: { 'filter[reference_2]': 'R2-a' } } });
    expect(byReference2.data?.data.total).toBe(0);
    const byEmail = await t.b.client.GET('/payment-links', { params: { query: { 'filter[email]': 'payer-a@example.com' } } });
    expect(byEmail.data?.data.total).toBe(0);
    const openByReference = await t.b.client.GET('/open-payment-links', { params: { query: { 'filter[reference]': 'REF-a' } } });
    expect(openByReference.data?.data.total).toBe(0);
    const active = await t.b.client.GET('/payment-links', { params: { query: { per_page: 100, 'filter[status]': 'Active' } } });
    expect(active.data?.data.data.map((l) => l._id)).not.toContain(a.paymentLink);
    const activeOpen = await t.b.client.GET('/open-payment-links', { params: { query: { per_page: 100, 'filter[status]': true } } });
    expect(activeOpen.data?.data.data.map((l) => l._id)).not.toContain(a.openLink);
    // The same filters do find A's own records for A.
    const own = await t.a.client.GET('/payment-links', { params: { query: { 'filter[reference]': 'REF-a' } } });
    expect(own.data?.data.data.map((l) => l._id)).toEqual([a.paymentLink]);
    const ownOpen = await t.a.client.GET('/open-payment-links', { params: { query: { 'filter[reference]': 'REF-a' } } });
    expect(ownOpen.data?.data.data.map((l) => l._id)).toEqual([a.openLink]);
  });

  it("later pages never spill into the other business's records", async () => {
    const ids: string[] = [];
    for (let page = 1; page <= 20; page += 1) {
      const response = await t.b.client.GET('/payment-links', { params: { query: { per_page: 1, page } } });
      const rows = response.data!.data.data;
      if (rows.length === 0) break;
      ids.push(...rows.map((l) => l._id));
    }
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain(a.paymentLink);
    const stored = await t.sql('payment_links').where({ business_id: t.b.business.id }).whereNull('deleted_at').pluck('_id');
    expect([...ids].sort()).toEqual([...stored].sort());
  });
});

describe("records carry the caller's business_id", () => {
  it('each create returns and stores the business of the key that made it', async () => {
    for (const tenant of [t.a, t.b]) {
      const link = await tenant.client.POST('/payment-links', { body: paymentLinkBody('owner') });
      const open = await tenant.client.POST('/open-payment-links', { body: openLinkBody('owner') });
      const token = await tenant.client.POST('/tokenizations/create-token', { body: tokenBody('owner') });
      expect(link.data?.data.business_id).toBe(tenant.business.id);
      expect(open.data?.data.business_id).toBe(tenant.business.id);
      expect((await t.sql('payment_links').where({ _id: link.data!.data._id }).first()).business_id).toBe(tenant.business.id);
      expect((await t.sql('open_payment_links').where({ _id: open.data!.data._id }).first()).business_id).toBe(tenant.business.id);
      expect((await t.sql('tokens').where({ _id: token.data!.data._id }).first()).business_id).toBe(tenant.business.id);
    }
  });

  it('a business_id in a create body is ignored: the record belongs to the caller', async () => {
    const link = await t.a.client.POST('/payment-links', { body: { ...paymentLinkBody('spoof'), business_id: t.b.business.id } as never });
    const open = await t.a.client.POST('/open-payment-links', { body: { ...openLinkBody('spoof'), business_id: t.b.business.id } as never });
    const token = await t.a.client.POST('/tokenizations/create-token', { body: { ...tokenBody('spoof'), business_id: t.b.business.id } as never });
    expect(link.response.status).toBe(200);
    expect(link.data?.data.business_id).toBe(t.a.business.id);
    expect(open.data?.data.business_id).toBe(t.a.business.id);
    expect((await t.sql('tokens').where({ _id: token.data!.data._id }).first()).business_id).toBe(t.a.business.id);
    const seenByB = await t.b.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link.data!.data._id } } });
    expect(seenByB.response.status).toBe(404);
    const openSeenByB = await t.b.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: open.data!.data._id } } });
    expect(openSeenByB.response.status).toBe(404);
    const tokenSeenByB = await t.b.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: token.data!.data._id } } });
    expect(tokenSeenByB.response.status).toBe(404);
  });

  it('a business_id in an update body cannot move a record to another business', async () => {
    const link = await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: a.paymentLink } },
      body: { ...paymentLinkBody('a'), business_id: t.b.business.id } as never,
    });
    expect(link.response.status).toBe(200);
    expect(link.data?.data.business_id).toBe(t.a.business.id);
    const open = await t.a.client.PUT('/open-payment-links/{open_payment_link_id}', {
      params: { path: { open_payment_link_id: a.openLink } },
      body: { ...openLinkBody('a'), business_id: t.b.business.id } as never,
    });
    expect(open.data?.data.business_id).toBe(t.a.business.id);
    expect((await t.b.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: a.paymentLink } } })).response.status).toBe(404);
    expect(
      (await t.b.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: a.openLink } } })).response.status,
    ).toBe(404);
  });
});

describe('a deleted record of A is 404 for A and B alike', () => {
  let deleted: Records;
  beforeAll(async () => {
    deleted = await create(t.a, 'deleted');
    await collect(deleted.openLink, '30.00', 'Nur');
    const paymentLink = await t.a.client.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: deleted.paymentLink } } });
    const openLink = await t.a.client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: deleted.openLink } } });
    expect(paymentLink.response.status).toBe(200);
    expect(openLink.response.status).toBe(200);
  });

  const deletable = byId.filter(([, kind]) => kind !== 'token');
  describe.each([
    ['A', () => t.a],
    ['B', () => t.b],
  ] as const)('for %s', (_name, tenant) => {
    it.each(deletable)('%s -> 404, like an unknown id', async (_op, kind, call) => {
      const result = await call(tenant().client, deleted[kind]);
      expect(result.response.status).toBe(404);
      const unknown = await call(tenant().client, UNKNOWN_ID);
      expect(result.error).toEqual(unknown.error);
    });

    it('the deleted records are in no list', async () => {
      const paymentLinks = await tenant().client.GET('/payment-links', { params: { query: { per_page: 100 } } });
      const openLinks = await tenant().client.GET('/open-payment-links', { params: { query: { per_page: 100 } } });
      expect(paymentLinks.data!.data.data.map((l) => l._id)).not.toContain(deleted.paymentLink);
      expect(openLinks.data!.data.data.map((l) => l._id)).not.toContain(deleted.openLink);
      const byReference = await tenant().client.GET('/payment-links', { params: { query: { 'filter[reference]': 'REF-deleted' } } });
      expect(byReference.data?.data.total).toBe(0);
    });
  });

  it("the deleted records stay stored with A's business_id (soft delete), payments kept", async () => {
    const paymentLink = await t.sql('payment_links').where({ _id: deleted.paymentLink }).first();
    const openLink = await t.sql('open_payment_links').where({ _id: deleted.openLink }).first();
    expect(paymentLink).toMatchObject({ business_id: t.a.business.id });
    expect(paymentLink.deleted_at).not.toBeNull();
    expect(openLink).toMatchObject({ business_id: t.a.business.id });
    expect(openLink.deleted_at).not.toBeNull();
    expect(Number((await t.sql('payments').where({ open_payment_link_id: deleted.openLink }).count({ n: '*' }).first())!.n)).toBe(1);
  });

  it("A's other records are unaffected by the deletes", async () => {
    const now = await readAsA(a);
    expect(now.total).toMatchObject({ total_amount: 59.5, total_count: 2 });
    expect(now.paymentLinks.map((l) => l._id)).toContain(a.paymentLink);
    expect(now.openLinks.map((l) => l._id)).toContain(a.openLink);
  });
});
