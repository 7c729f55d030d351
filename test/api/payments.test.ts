// GET /api/payments and GET /api/payments/{id}: the payment_id a webhook or a redirect carries can be
// looked up, with what was paid, by whom, on which link, its state and why a failed attempt failed.
import { beforeAll, describe, expect, it } from 'vitest';
import { DECLINED_CARD, GOOD_CARD, NO_FUNDS_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';

let linkId: string;
let openId: string;
let paidId: string;

/** Pays a hosted page as a payer would; answers the payment_id of the redirect (paid) or null (refused). */
async function pay(paymentUrl: string, fields: Record<string, string>): Promise<string | null> {
  const url = new URL(paymentUrl);
  const payer = new Payer(t.url);
  const form = await payer.open(url.pathname + url.search);
  const answer = await payer.submit(form, fields);
  return answer.status === 303 ? new URL(answer.location!, t.url).searchParams.get('payment_id') : null;
}

const t = useService();
beforeAll(async () => {
  const link = await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 1250, title: 'Invoice 7' } });
  linkId = link.data!.data._id;
  const open = await t.a.client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: 5, title: 'Donations' } });
  openId = open.data!.data._id;
  // A declined attempt, then the successful one, on the payment link; two failures on the open link.
  expect(await pay(link.data!.data.payment_url, { name: 'Aisyah', ...DECLINED_CARD })).toBeNull();
  const paid = await pay(link.data!.data.payment_url, { name: 'Aisyah', ...GOOD_CARD });
  expect(paid).toMatch(/^[0-9a-f]{24}$/);
  paidId = paid!;
  for (const card of [DECLINED_CARD, NO_FUNDS_CARD])
    expect(await pay(open.data!.data.payment_url, { amount: '20.00', name: 'Ben', email: 'ben@example.com', ...card })).toBeNull();
}, 60_000);

describe('GET /api/payments/{payment_id}', () => {
  it('finds the payment a redirect names, with what was paid, by whom, on which link', async () => {
    const { data, response } = await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paidId } } });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      _id: paidId,
      business_id: t.a.business.id,
      payment_link_id: linkId,
      open_payment_link_id: null,
      amount: 1250,
      currency: 'MYR',
      status: 'paid',
      payment_status: 1,
      method: 'card',
      provider: 'sandbox',
      payer_name: 'Aisyah',
      card_brand: 'visa',
      card_last4: '4242',
      failure_code: null,
      failure_message: null,
    });
    expect(data!.data.provider_reference).toEqual(expect.any(String));
  });

  it("is a 404 for another business's payment, an unknown id and an id of the wrong shape", async () => {
    for (const [client, id] of [
      [t.b.client, paidId],
      [t.a.client, 'ffffffffffffffffffffffff'],
      [t.a.client, 'not-an-id'],
    ] as const) {
      const { error, response } = await client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } });
      expect(response.status).toBe(404);
      expect(error).toEqual({ message: 'Payment not found.' });
    }
  });
});

describe('GET /api/payments', () => {
  it("lists every attempt of the business, newest first, and none of another business's", async () => {
    const { data } = await t.a.client.GET('/payments');
    expect(data!.data.total).toBe(4);
    expect(data!.data.data.map((p) => p.status)).toEqual(['failed', 'failed', 'paid', 'failed']);
    const times = data!.data.data.map((p) => p.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const other = await t.b.client.GET('/payments');
    expect(other.data!.data.total).toBe(0);
  });

  it('tells why a failed attempt failed', async () => {
    const { data } = await t.a.client.GET('/payments', { params: { query: { 'filter[open_payment_link_id]': openId, sort: 'created_at' } } });
    expect(data!.data.data.map((p) => [p.status, p.payment_status, p.failure_code])).toEqual([
      ['failed', 3, 'card_declined'],
      ['failed', 3, 'insufficient_funds'],
    ]);
    expect(data!.data.data.every((p) => p.payer_email === 'ben@example.com' && p.amount === 2000 && typeof p.failure_message === 'string')).toBe(true);
  });

  it('filters by status, link, method, e-mail and creation day, combined with AND', async () => {
    const ids = async (query: Record<string, string>) => (await t.a.client.GET('/payments', { params: { query } })).data!.data.data.map((p) => p._id);
    expect(await ids({ 'filter[status]': 'paid' })).toEqual([paidId]);
    expect(await ids({ 'filter[status]': 'pending' })).toEqual([]);
    expect(await ids({ 'filter[payment_link_id]': linkId })).toHaveLength(2);
    expect(await ids({ 'filter[payment_link_id]': linkId, 'filter[status]': 'paid' })).toEqual([paidId]);
    expect(await ids({ 'filter[method]': 'card' })).toHaveLength(4);
    expect(await ids({ 'filter[email]': 'ben@example.com' })).toHaveLength(2);
    const today = new Date().toISOString().slice(0, 10);
    expect(await ids({ 'filter[created_at_between]': `${today},${today}` })).toHaveLength(4);
    expect(await ids({ 'filter[created_at_between]': '2020-01-01,2020-12-31' })).toEqual([]);
  });

  it('pages as the other lists do, and refuses what the contract refuses', async () => {
    const { data } = await t.a.client.GET('/payments', { params: { query: { per_page: 3, page: 2 } } });
    expect(data!.data).toMatchObject({ current_page: 2, per_page: 3, total: 4, last_page: 2, from: 4, to: 4 });
    const refused = await t.a.client.GET('/payments', { params: { query: { 'filter[status]': 'settled' as 'paid' } } });
    expect(refused.response.status).toBe(422);
    expect(refused.error).toEqual({ message: 'The given data was invalid.', errors: { 'filter.status': ['The selected filter.status is invalid.'] } });
  });

  // Last in the file: business B pays here, which the tests above expect it not to have done.
  it("finds a card's payments by its last four digits, with the other filters and page by page, never another business's", async () => {
    const list = async (client: typeof t.a.client, query: Record<string, string | number>) =>
      (await client.GET('/payments', { params: { query: { sort: 'created_at', ...query } } })).data!.data;
    const ids = async (query: Record<string, string | number>, client = t.a.client) => (await list(client, query)).data.map((p) => p._id);
    // The declined card was tried on both links; the good card paid once; the card without funds once.
    const declined = await list(t.a.client, { 'filter[card_last4]': '0002' });
    expect(declined.data.map((p) => [p.card_last4, p.status, p.payment_link_id ?? p.open_payment_link_id])).toEqual([
      ['0002', 'failed', linkId],
      ['0002', 'failed', openId],
    ]);
    expect(declined.total).toBe(2);
    expect(await ids({ 'filter[card_last4]': '4242' })).toEqual([paidId]);
    expect(await ids({ 'filter[card_last4]': '1111' })).toEqual([]);

    // Combined with AND.
    expect(await ids({ 'filter[card_last4]': '0002', 'filter[email]': 'ben@example.com' })).toEqual([declined.data[1]!._id]);
    expect(await ids({ 'filter[card_last4]': '0002', 'filter[payment_link_id]': linkId })).toEqual([declined.data[0]!._id]);
    expect(await ids({ 'filter[card_last4]': '0002', 'filter[status]': 'paid' })).toEqual([]);
    expect(await ids({ 'filter[card_last4]': '4242', 'filter[status]': 'paid', 'filter[method]': 'card' })).toEqual([paidId]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await ids({ 'filter[card_last4]': '9995', 'filter[open_payment_link_id]': openId, 'filter[created_at_between]': `${today},${today}` })).toHaveLength(
      1,
    );
    expect(await ids({ 'filter[card_last4]': '9995', 'filter[created_at_between]': '2020-01-01,2020-12-31' })).toEqual([]);

    // One a page, each page keeping the filter in its links.
    const first = await list(t.a.client, { 'filter[card_last4]': '0002', per_page: 1 });
    expect(first).toMatchObject({ total: 2, last_page: 2, from: 1, to: 1 });
    expect(new URL(first.next_page_url!).searchParams.get('filter[card_last4]')).toBe('0002');
    const second = await list(t.a.client, { 'filter[card_last4]': '0002', per_page: 1, page: 2 });
    expect([...first.data, ...second.data].map((p) => p._id)).toEqual(declined.data.map((p) => p._id));

    // Business B's payer pays with the same card: each business finds its own payment only.
    const theirs = await t.b.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 900, title: 'Theirs' } });
    const theirPayment = await pay(theirs.data!.data.payment_url, { name: 'Chen', ...GOOD_CARD });
    expect(await ids({ 'filter[card_last4]': '4242' })).toEqual([paidId]);
    expect(await ids({ 'filter[card_last4]': '4242' }, t.b.client)).toEqual([theirPayment]);
    expect(await ids({ 'filter[card_last4]': '0002' }, t.b.client)).toEqual([]);
  });

  it('refuses a card filter that is not exactly four digits', async () => {
    for (const value of ['12a4', '123', '12345', '', ' 4242', '４２４２', '٤٢٤٢']) {
      const refused = await t.a.client.GET('/payments', { params: { query: { 'filter[card_last4]': value } } });
      expect(refused.response.status, JSON.stringify(value)).toBe(422);
      expect(refused.error).toEqual({ message: 'The given data was invalid.', errors: { 'filter.card_last4': ['The filter.card last4 must be 4 digits.'] } });
    }
  });
});
