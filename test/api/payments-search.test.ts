// GET /api/payments?filter[search]=...: a merchant finds a payment by part of the payer's e-mail or
// name or of its reference, in any case, or by its amount as people write it; and a link by part of
// its title (filter[title] on both kinds of link), as the console's link filter does.
import { beforeAll, describe, expect, it } from 'vitest';
import { DECLINED_CARD, GOOD_CARD, submitPage } from '../support/payer.js';
import { useService } from '../support/service.js';

const t = useService();

/** Pays a hosted page as a payer would; answers the payment_id of the redirect (paid) or null (refused). */
const pay = async (paymentUrl: string, fields: Record<string, string>) => (await submitPage(t.url, paymentUrl, fields)).paymentId;

let invoice: string;
let invoiceLinkId: string;
let surauLinkId: string;
let donation: string;
let declined: string;
let othersInvoice: string;

beforeAll(async () => {
  const link = await t.a.client.POST('/payment-links', {
    body: { email: 'aisyah.rahman@example.com', currency: 'MYR', amount: 1550, title: 'Invoice 42 for tuition', reference: 'INV-2026-0042' },
  });
  invoiceLinkId = link.data!.data._id;
  invoice = (await pay(link.data!.data.payment_url, { name: 'Aisyah Rahman', ...GOOD_CARD }))!;
  const open = await t.a.client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: 5, title: 'Tabung Surau Al-Falah' } });
  surauLinkId = open.data!.data._id;
  donation = (await pay(open.data!.data.payment_url, { amount: '1500.00', name: 'Ben Tan', email: 'ben@example.com', ...GOOD_CARD }))!;
  expect(await pay(open.data!.data.payment_url, { amount: '15.00', name: 'Chong Wei', email: 'chong@kedai.my', ...DECLINED_CARD })).toBeNull();
  const attempts = await t.a.client.GET('/payments', { params: { query: { 'filter[status]': 'failed' } } });
  declined = attempts.data!.data.data[0]!._id;
  // Business B has a payer of the same name and e-mail, for the same amount: never in A's results.
  const others = await t.b.client.POST('/payment-links', {
    body: { email: 'aisyah.rahman@example.com', currency: 'MYR', amount: 1550, title: 'Invoice 42 for tuition', reference: 'INV-2026-0042' },
  });
  othersInvoice = (await pay(others.data!.data.payment_url, { name: 'Aisyah Rahman', ...GOOD_CARD }))!;
  expect([invoice, donation, declined, othersInvoice].every((id) => /^[0-9a-f]{24}$/.test(id))).toBe(true);
}, 60_000);

async function found(query: Record<string, string | number>, client = t.a.client): Promise<string[]> {
  const { data, response } = await client.GET('/payments', { params: { query } });
  expect(response.status).toBe(200);
  return data!.data.data.map((payment) => payment._id);
}

describe('filter[search] on GET /api/payments', () => {
  it("finds part of the payer's e-mail, the payer's name or the reference, in any case", async () => {
    expect(await found({ 'filter[search]': 'RAHMAN@example' })).toEqual([invoice]);
    expect(await found({ 'filter[search]': 'kedai.my' })).toEqual([declined]);
    expect(await found({ 'filter[search]': 'ben t' })).toEqual([donation]);
    expect(await found({ 'filter[search]': 'CHONG W' })).toEqual([declined]);
    expect(await found({ 'filter[search]': 'inv-2026' })).toEqual([invoice]);
    expect(await found({ 'filter[search]': '0042' })).toEqual([invoice]);
    expect(await found({ 'filter[search]': 'nobody here' })).toEqual([]);
  });

  it('takes LIKE and FTS syntax as plain text', async () => {
    for (const term of ['%%%', '___', '"a"', 'a* OR b*', 'NEAR(a b)', '\\%_']) expect(await found({ 'filter[search]': term }), term).toEqual([]);
  });

  it('finds an amount written as people write it, in ringgit', async () => {
    for (const term of ['15.50', 'RM 15.50', 'rm15.50', '15.5']) expect(await found({ 'filter[search]': term }), term).toEqual([invoice]);
    for (const term of ['1500', '1,500', '1,500.00', 'RM 1,500']) expect(await found({ 'filter[search]': term }), term).toEqual([donation]);
    // Two digits are taken as an amount alone: 15 ringgit, the declined attempt.
    for (const term of ['15', '15.00', 'RM 15']) expect(await found({ 'filter[search]': term }), term).toEqual([declined]);
    expect(await found({ 'filter[search]': '9' })).toEqual([]);
    // Nothing is paid of 0 sen, and "0" and "00" are too short to look for as text: they find nothing, alone or
    // with another filter (they were a 500, the property suite found, seed 24345842).
    for (const term of ['0', '00']) {
      expect(await found({ 'filter[search]': term }), term).toEqual([]);
      expect(await found({ 'filter[search]': term, 'filter[open_payment_link_id]': surauLinkId }), term).toEqual([]);
    }
  });

  it('combines with the other filters, the order and the paging', async () => {
    expect(await found({ 'filter[search]': '15', 'filter[status]': 'failed' })).toEqual([declined]);
    expect(await found({ 'filter[search]': '15', 'filter[status]': 'paid' })).toEqual([]);
    expect(await found({ 'filter[search]': 'example.com', 'filter[status]': 'paid' })).toEqual([donation, invoice]);
    expect(await found({ 'filter[search]': 'example.com', sort: 'created_at' })).toEqual([invoice, donation]);
    expect(await found({ 'filter[search]': 'example.com', 'filter[open_payment_link_id]': surauLinkId })).toEqual([donation]);
    expect(await found({ 'filter[search]': 'example.com', 'filter[payment_link_id]': invoiceLinkId })).toEqual([invoice]);
    const { data } = await t.a.client.GET('/payments', { params: { query: { 'filter[search]': 'example.com', per_page: 1, page: 2 } } });
    expect(data!.data).toMatchObject({ total: 2, last_page: 2, current_page: 2 });
    expect(data!.data.data.map((payment) => payment._id)).toEqual([invoice]);
    expect(data!.data.first_page_url).toContain('filter%5Bsearch%5D=example.com');
  });

  it("never finds another business's payments", async () => {
    for (const term of ['aisyah', 'INV-2026', '15.50']) {
      expect(await found({ 'filter[search]': term }), term).toEqual([invoice]);
      expect(await found({ 'filter[search]': term }, t.b.client), term).toEqual([othersInvoice]);
    }
  });

  it('refuses a term shorter than 3 characters that is not an amount, naming the field', async () => {
    for (const term of ['ab', 'a', 'RM', '1.']) {
      const { error, response } = await t.a.client.GET('/payments', { params: { query: { 'filter[search]': term } } });
      expect(response.status, term).toBe(422);
      expect(error, term).toEqual({
        message: 'The given data was invalid.',
        errors: { 'filter.search': ['The filter.search must be at least 3 characters.'] },
      });
    }
  });
});

describe('filter[title] on the lists of links', () => {
  it('finds a link by part of its title, in any case, on both kinds', async () => {
    const links = await t.a.client.GET('/payment-links', { params: { query: { 'filter[title]': 'TUITION' } } });
    expect(links.data!.data.data.map((link) => link._id)).toEqual([invoiceLinkId]);
    const open = await t.a.client.GET('/open-payment-links', { params: { query: { 'filter[title]': 'surau al' } } });
    expect(open.data!.data.data.map((link) => link._id)).toEqual([surauLinkId]);
    expect((await t.a.client.GET('/open-payment-links', { params: { query: { 'filter[title]': 'tuition' } } })).data!.data.total).toBe(0);
    const others = await t.b.client.GET('/payment-links', { params: { query: { 'filter[title]': 'tuition' } } });
    expect(others.data!.data.data.map((link) => link._id)).not.toContain(invoiceLinkId);
  });

  it('refuses a title shorter than 3 characters', async () => {
    const { error, response } = await t.a.client.GET('/payment-links', { params: { query: { 'filter[title]': 'ab' } } });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: 'The given data was invalid.', errors: { 'filter.title': ['The filter.title must be at least 3 characters.'] } });
  });
});
