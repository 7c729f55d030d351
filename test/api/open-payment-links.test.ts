// Creating, replacing, reading, listing and deleting open payment links.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OpenPaymentLink } from '../../client/index.js';
import { raw, useService, type TestService } from '../support/service.js';

const t = useService();

const INVALID = 'The given data was invalid.';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const META_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;
const OBJECT_ID = /^[0-9a-f]{24}$/;

const minimal = { currency: 'MYR', minimum_amount: '100.00', title: 'Donation drive' };
const full = {
  ...minimal,
  description: 'Any amount from RM 100',
  redirect_url: 'https://merchant.example.com/thanks?campaign=may',
  reference: 'DON-2022',
  reference_2: 'campaign-may',
};
const REQUIRED_MISSING = {
  currency: ['The currency field is required.'],
  minimum_amount: ['The minimum amount field is required.'],
  title: ['The title field is required.'],
};

const uniqueRef = () => `ref-${randomBytes(6).toString('hex')}`;

function create(body: Record<string, unknown>, service: TestService = t) {
  return service.a.client.POST('/open-payment-links', { body: body as never });
}

async function created(body: Record<string, unknown> = minimal): Promise<OpenPaymentLink> {
  const { response, data } = await create(body);
  expect(response.status).toBe(200);
  return data!.data;
}

const get = (id: string, client = t.a.client) => client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: id } } });
const put = (id: string, body: Record<string, unknown>, client = t.a.client) =>
  client.PUT('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: id } }, body: body as never });
const del = (id: string, client = t.a.client) =>
  client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: id } } });

const millis = (timestamp: string) => Date.parse(`${timestamp.slice(0, 23)}Z`);

describe('POST /open-payment-links: success', () => {
  it('returns 200 with the envelope and the new active link, every field echoed', async () => {
    const before = Date.now();
    const { response, data } = await create(full);
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    expect(data!.meta.timestamp).toMatch(META_TIMESTAMP);
    const link = data!.data;
    expect(link).toEqual({
      _id: expect.stringMatching(OBJECT_ID),
      business_id: t.a.business.id,
      currency: 'MYR',
      minimum_amount: 100,
      title: full.title,
      description: full.description,
      redirect_url: full.redirect_url,
      reference: full.reference,
      reference_2: full.reference_2,
      status_id: 1,
      status: true,
      state: 'active',
      expires_at: null,
      max_payments: null,
      payments_count: 0,
      payment_url: `${t.service.publicUrl}/payment/open-link/pay?id=${link._id}`,
      locale: null,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: link.created_at,
    });
    expect(millis(link.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(millis(link.created_at)).toBeLessThanOrEqual(after + 1000);
    expect(new URL(link.payment_url).searchParams.get('id')).toBe(link._id);
  });

  it('sends minimum_amount as a JSON number on the wire, not as text', async () => {
    const response = await raw(`${t.apiUrl}/open-payment-links`, {
      key: t.a.key,
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...minimal, minimum_amount: '100.00' }),
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain('"minimum_amount":100,');
    expect((response.body as { data: { minimum_amount: unknown } }).data.minimum_amount).toBe(100);
  });

  it('returns null for omitted optional fields', async () => {
    const link = await created(minimal);
    expect(link).toMatchObject({ description: null, redirect_url: null, reference: null, reference_2: null, status: true, status_id: 1 });
  });

  it.each([
    ['100.00', 100],
    ['25.5', 25.5],
    [25.5, 25.5],
    ['25.50', 25.5],
    ['10.10', 10.1],
    ['5', 5],
    ['5.00', 5],
    [5, 5],
    ['30000.00', 30000],
    [30000, 30000],
    ['1234.56', 1234.56],
    [1234.56, 1234.56],
  ])('accepts minimum_amount %j and returns it as the number %j', async (minimum_amount, expected) => {
    const link = await created({ ...minimal, minimum_amount });
    expect(typeof link.minimum_amount).toBe('number');
    expect(link.minimum_amount).toBe(expected);
  });

  it.each(['MYR', 'SGD', 'USD', 'EUR', 'JPY'])('accepts the currency %s', async (currency) => {
    const link = await created({ ...minimal, currency });
    expect(link.currency).toBe(currency);
  });

  it('accepts a title of exactly 50 characters', async () => {
    const link = await created({ ...minimal, title: 't'.repeat(50) });
    expect(link.title).toBe('t'.repeat(50));
  });

  it.each([true, false, 'not-a-boolean'])('ignores send_email %j on create', async (send_email) => {
    const { response, data } = await create({ ...minimal, send_email });
    expect(response.status).toBe(200);
    expect(data!.data).not.toHaveProperty('send_email');
  });

  it('ignores read-only fields (status, status_id, business_id, _id, payment_url, timestamps)', async () => {
    const forgedId = 'b'.repeat(24);
    const { response, data } = await create({
      ...minimal,
      status: false,
      status_id: 2,
      business_id: t.b.business.id,
      _id: forgedId,
      payment_url: 'https://evil.example.com/pay',
      created_at: '2000-01-01T00:00:00.000000Z',
      updated_at: '2000-01-01T00:00:00.000000Z',
    });
    expect(response.status).toBe(200);
    const link = data!.data;
    expect(link.status).toBe(true);
    expect(link.status_id).toBe(1);
    expect(link.business_id).toBe(t.a.business.id);
    expect(link._id).not.toBe(forgedId);
    expect(link._id).toMatch(OBJECT_ID);
    expect(link.payment_url).toBe(`${t.service.publicUrl}/payment/open-link/pay?id=${link._id}`);
    expect(link.created_at).not.toBe('2000-01-01T00:00:00.000000Z');
    // Stored as returned: A reads it, B does not, the forged id does not exist.
    expect((await get(link._id)).data!.data).toEqual(link);
    expect((await get(link._id, t.b.client)).response.status).toBe(404);
    expect((await get(forgedId)).response.status).toBe(404);
    expect((await get(forgedId, t.b.client)).response.status).toBe(404);
  });
});

describe('POST /open-payment-links with PUBLIC_URL', () => {
  const p = useService({ publicUrl: 'https://pay.example.com' });

  it('builds payment_url from PUBLIC_URL', async () => {
    const { response, data } = await create(minimal, p);
    expect(response.status).toBe(200);
    expect(data!.data.payment_url).toBe(`https://pay.example.com/payment/open-link/pay?id=${data!.data._id}`);
  });
});

describe('POST /open-payment-links: validation', () => {
  it("reports missing currency, minimum_amount and title at once with the seed's texts", async () => {
    const { response, data, error } = await create({});
    expect(response.status).toBe(422);
    expect(data).toBeUndefined();
    expect(error).toEqual({ message: INVALID, errors: REQUIRED_MISSING });
  });

  it('reports only the missing required fields when optional ones are present', async () => {
    const { response, error } = await create({ description: 'D', reference: 'R', title: 'Only a title' });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { currency: REQUIRED_MISSING.currency, minimum_amount: REQUIRED_MISSING.minimum_amount } });
  });

  it('reports empty strings in required fields as missing, and caps minimum_amount at 32 characters', async () => {
    const empty = await create({ currency: '', minimum_amount: '', title: '' });
    expect(empty.error).toEqual({ message: INVALID, errors: REQUIRED_MISSING });
    const long = await create({ currency: 'MYR', minimum_amount: `1.${'0'.repeat(40)}`, title: 'Long' });
    expect(long.error).toEqual({ message: INVALID, errors: { minimum_amount: ['The minimum amount must not be greater than 32 characters.'] } });
  });

  it('has no success, data or meta members in a 422 body', async () => {
    const response = await raw(`${t.apiUrl}/open-payment-links`, {
      key: t.a.key,
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body as object).sort()).toEqual(['errors', 'message']);
  });

  it.each([
    ['abc', 'The minimum amount must be a number.'],
    ['12,50', 'The minimum amount must be a number.'],
    [true, 'The minimum amount must be a number.'],
    ['4.99', 'The minimum amount must be at least 5.'],
    [4.99, 'The minimum amount must be at least 5.'],
    ['0', 'The minimum amount must be at least 5.'],
    ['-10.00', 'The minimum amount must be at least 5.'],
    ['30000.01', 'The minimum amount must not be greater than 30000.'],
    [30000.01, 'The minimum amount must not be greater than 30000.'],
    ['10.005', 'The minimum amount format is invalid.'],
    [10.005, 'The minimum amount format is invalid.'],
  ])('rejects minimum_amount %j: %s', async (minimum_amount, message) => {
    const { response, error } = await create({ ...minimal, minimum_amount });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { minimum_amount: [message] } });
  });

  it.each(['myr', 'Myr', 'XYZ', 'MY', 'MYRR', '123'])('rejects the currency %j', async (currency) => {
    const { response, error } = await create({ ...minimal, currency });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { currency: ['The currency must be a valid ISO 4217 currency code.'] } });
  });

  it('rejects a title of 51 characters', async () => {
    const { response, error } = await create({ ...minimal, title: 't'.repeat(51) });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { title: ['The title must not be greater than 50 characters.'] } });
  });

  it.each(['javascript:alert(1)', 'ftp://merchant.example.com/x', 'merchant.example.com/thanks', 'not a url'])(
    'rejects the redirect_url %j',
    async (redirect_url) => {
      const { response, error } = await create({ ...minimal, redirect_url });
      expect(response.status).toBe(422);
      expect(error).toEqual({ message: INVALID, errors: { redirect_url: ['The redirect url format is invalid.'] } });
    },
  );

  it('rejects a redirect_url over 2048 characters', async () => {
    const redirect_url = `https://merchant.example.com/${'a'.repeat(2049 - 'https://merchant.example.com/'.length)}`;
    expect(redirect_url).toHaveLength(2049);
    const { response, error } = await create({ ...minimal, redirect_url });
    expect(response.status).toBe(422);
    expect(Object.keys((error as { errors: object }).errors)).toEqual(['redirect_url']);
  });

  it('stores nothing when validation fails', async () => {
    const reference = uniqueRef();
    const { response } = await create({ ...minimal, minimum_amount: 'abc', reference });
    expect(response.status).toBe(422);
    expect(await t.sql('open_payment_links').where({ reference }).first()).toBeUndefined();
  });
});

describe('GET /open-payment-links/{id}', () => {
  it('returns the link exactly as created', async () => {
    const link = await created(full);
    const { response, data } = await get(link._id);
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    expect(data!.data).toEqual(link);
  });

  it.each(['0123456789abcdef01234567', 'not-an-id', 'ABCDEF0123456789ABCDEF01'])('answers 404 for the unknown id %j', async (id) => {
    const { response, error } = await get(id);
    expect(response.status).toBe(404);
    expect(error).toEqual({ message: expect.any(String) });
  });

  it('answers 404 to another business', async () => {
    const link = await created();
    const { response } = await get(link._id, t.b.client);
    expect(response.status).toBe(404);
  });
});

describe('PUT /open-payment-links/{id}', () => {
  it('replaces the writable fields, clears omitted optional ones and returns the updated link', async () => {
    const link = await created(full);
    const { response, data } = await put(link._id, {
      currency: 'SGD',
      minimum_amount: '50.25',
      title: 'Donation drive (extended)',
      description: 'Any amount from SGD 50.25',
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: null });
    const updated = data!.data;
    expect(updated).toEqual({
      ...link,
      currency: 'SGD',
      minimum_amount: 50.25,
      title: 'Donation drive (extended)',
      description: 'Any amount from SGD 50.25',
      redirect_url: null,
      reference: null,
      reference_2: null,
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(millis(updated.updated_at)).toBeGreaterThanOrEqual(millis(link.updated_at));
    expect((await get(link._id)).data!.data).toEqual(updated);
  });

  it('sets optional fields that were absent on create', async () => {
    const link = await created(minimal);
    const { response, data } = await put(link._id, full);
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      _id: link._id,
      description: full.description,
      redirect_url: full.redirect_url,
      reference: full.reference,
      reference_2: full.reference_2,
      minimum_amount: 100,
    });
  });

  it('requires currency, minimum_amount and title again', async () => {
    const link = await created(full);
    const { response, error } = await put(link._id, { description: 'only a description' });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: REQUIRED_MISSING });
    expect((await get(link._id)).data!.data).toEqual(link);
  });

  it('applies the create rules to every field', async () => {
    const link = await created(full);
    const { response, error } = await put(link._id, { currency: 'myr', minimum_amount: '4.99', title: 't'.repeat(51), redirect_url: 'javascript:alert(1)' });
    expect(response.status).toBe(422);
    expect(error).toEqual({
      message: INVALID,
      errors: {
        currency: ['The currency must be a valid ISO 4217 currency code.'],
        minimum_amount: ['The minimum amount must be at least 5.'],
        title: ['The title must not be greater than 50 characters.'],
        redirect_url: ['The redirect url format is invalid.'],
      },
    });
    expect((await get(link._id)).data!.data).toEqual(link);
  });

  it.each([
    ['abc', 'The minimum amount must be a number.'],
    [true, 'The minimum amount must be a number.'],
    ['30000.01', 'The minimum amount must not be greater than 30000.'],
    ['10.005', 'The minimum amount format is invalid.'],
  ])('rejects minimum_amount %j on update', async (minimum_amount, message) => {
    const link = await created(minimal);
    const { response, error } = await put(link._id, { ...minimal, minimum_amount });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { minimum_amount: [message] } });
  });

  it.each([true, false])('accepts send_email %j on update and does not return it', async (send_email) => {
    const link = await created(minimal);
    const { response, data } = await put(link._id, { ...minimal, title: 'Renamed', send_email });
    expect(response.status).toBe(200);
    expect(data!.data.title).toBe('Renamed');
    expect(data!.data).not.toHaveProperty('send_email');
  });

  it.each(['yes', 'true', 1, null, {}])('rejects send_email %j on update', async (send_email) => {
    const link = await created(minimal);
    const { response, error } = await put(link._id, { ...minimal, title: 'Renamed', send_email });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { send_email: ['The send email field must be true or false.'] } });
    expect((await get(link._id)).data!.data.title).toBe(minimal.title);
  });

  it('ignores read-only fields (status, status_id, business_id, _id, payment_url, created_at)', async () => {
    const link = await created(full);
    const { response, data } = await put(link._id, {
      ...full,
      title: 'Renamed',
      status: false,
      status_id: 2,
      business_id: t.b.business.id,
      _id: 'c'.repeat(24),
      payment_url: 'https://evil.example.com/pay',
      created_at: '2000-01-01T00:00:00.000000Z',
    });
    expect(response.status).toBe(200);
    expect(data!.data).toEqual({ ...link, title: 'Renamed', updated_at: expect.stringMatching(TIMESTAMP) });
    expect((await get(link._id)).data!.data).toMatchObject({
      _id: link._id,
      status: true,
      status_id: 1,
      business_id: t.a.business.id,
      created_at: link.created_at,
    });
    expect((await get('c'.repeat(24))).response.status).toBe(404);
    expect((await get(link._id, t.b.client)).response.status).toBe(404);
  });

  it('answers 404 for an unknown id, also when the body is valid', async () => {
    const { response } = await put('0123456789abcdef01234567', minimal);
    expect(response.status).toBe(404);
    expect((await put('not-an-id', minimal)).response.status).toBe(404);
  });

  it('answers 404 to another business and leaves the link untouched', async () => {
    const link = await created(full);
    const { response } = await put(link._id, { ...minimal, title: 'Hijacked' }, t.b.client);
    expect(response.status).toBe(404);
    expect((await get(link._id)).data!.data).toEqual(link);
  });
});

describe("locale: the language of the link's payers", () => {
  const stored = async (id: string) => (await t.sql('open_payment_links').where({ _id: id }).first()).locale;

  it('is stored and returned as sent, null when omitted, and follows PUT: changed, or cleared when omitted', async () => {
    const link = await created({ ...minimal, locale: 'zh' });
    expect(link.locale).toBe('zh');
    expect((await get(link._id)).data!.data.locale).toBe('zh');
    expect(await stored(link._id)).toBe('zh');
    expect((await put(link._id, { ...minimal, locale: 'ms' })).data!.data.locale).toBe('ms');
    expect(await stored(link._id)).toBe('ms');
    expect((await put(link._id, minimal)).data!.data.locale).toBeNull();
    expect(await stored(link._id)).toBeNull();
  });

  it('refuses a language the pages do not speak: 422 on locale, nothing changed', async () => {
    const { response, error } = await create({ ...minimal, locale: 'fr' });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { locale: ['The selected locale is invalid.'] } });
    const link = await created({ ...minimal, locale: 'ms' });
    const refused = await put(link._id, { ...minimal, locale: 'zh-TW' });
    expect(refused.error).toEqual({ message: INVALID, errors: { locale: ['The selected locale is invalid.'] } });
    expect(await stored(link._id)).toBe('ms');
  });
});

describe('DELETE /open-payment-links/{id}', () => {
  it('returns the record as it was and makes it 404 for GET, PUT, DELETE and the reports', async () => {
    const link = await created(full);
    const { response, data } = await del(link._id);
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    expect(data!.data).toEqual(link);

    expect((await get(link._id)).response.status).toBe(404);
    expect((await put(link._id, minimal)).response.status).toBe(404);
    expect((await del(link._id)).response.status).toBe(404);
    const params = { path: { open_payment_link_id: link._id } };
    expect((await t.a.client.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params })).response.status).toBe(404);
    expect((await t.a.client.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params })).response.status).toBe(404);
  });

  it('returns an updated link with its updated values', async () => {
    const link = await created(full);
    const updated = (await put(link._id, { ...minimal, title: 'Before delete' })).data!.data;
    const { data } = await del(link._id);
    expect(data!.data).toEqual(updated);
  });

  it('removes the link from the list', async () => {
    const reference = uniqueRef();
    const kept = await created({ ...minimal, reference });
    const gone = await created({ ...minimal, reference });
    await del(gone._id);
    const { data } = await t.a.client.GET('/open-payment-links', { params: { query: { 'filter[reference]': reference } } });
    expect(data!.data.total).toBe(1);
    expect(data!.data.data.map((l) => l._id)).toEqual([kept._id]);
  });

  it('answers 404 for an unknown id', async () => {
    expect((await del('0123456789abcdef01234567')).response.status).toBe(404);
    expect((await del('not-an-id')).response.status).toBe(404);
  });

  it('answers 404 to another business and keeps the link', async () => {
    const link = await created(full);
    const { response } = await del(link._id, t.b.client);
    expect(response.status).toBe(404);
    expect((await get(link._id)).data!.data).toEqual(link);
  });
});

describe('GET /open-payment-links', () => {
  it("lists the business's links newest first in a paginator, without other businesses' links", async () => {
    const reference = uniqueRef();
    const first = await created({ ...minimal, reference });
    const second = await created({ ...minimal, reference });
    await t.b.client.POST('/open-payment-links', { body: { ...minimal, reference } });
    const { response, data } = await t.a.client.GET('/open-payment-links', { params: { query: { 'filter[reference]': reference } } });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ current_page: 1, from: 1, to: 2, total: 2, per_page: 15, last_page: 1, next_page_url: null, prev_page_url: null });
    expect(data!.data.data).toEqual([second, first]);
  });

  it('pages with per_page and sorts oldest first with sort=created_at', async () => {
    const reference = uniqueRef();
    const links = [];
    for (let i = 0; i < 3; i++) links.push(await created({ ...minimal, reference }));
    const page2 = await t.a.client.GET('/open-payment-links', { params: { query: { per_page: 1, page: 2, sort: 'created_at', filter: { reference } } } });
    expect(page2.data!.data).toMatchObject({ current_page: 2, per_page: 1, from: 2, to: 2, total: 3, last_page: 3 });
    expect(page2.data!.data.data.map((l) => l._id)).toEqual([links[1]!._id]);
  });
});
