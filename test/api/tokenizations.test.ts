// POST /tokenizations/create-token: what a new token looks like and how its input is judged; GET
// /tokenizations: the business's tokens, paged and filtered.
import { describe, expect, it } from 'vitest';
import { activateToken } from '../../server/store/tokens.js';
import { raw, useService, type TestService } from '../support/service.js';

const t = useService();

const INVALID = 'The given data was invalid.';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const META_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;
const OBJECT_ID = /^[0-9a-f]{24}$/;
const TOKEN = /^[0-9a-f]{64}$/;

const valid = {
  email: 'payer@example.com',
  phone_no: '+60123456789',
  redirect_url: 'https://merchant.example.com/cards/saved?plan=monthly',
  title: 'Monthly subscription',
  description: 'Card for the monthly plan',
};

function createToken(body: Record<string, unknown>, service: TestService = t) {
  return service.a.client.POST('/tokenizations/create-token', { body: body as never });
}

/** Milliseconds since the epoch of a `...T..:..:..ffffffZ` timestamp. */
const millis = (timestamp: string) => Date.parse(`${timestamp.slice(0, 23)}Z`);

describe('POST /tokenizations/create-token: success', () => {
  it('returns 200 with the envelope, every request field echoed and a pending token', async () => {
    const before = Date.now();
    const { response, data } = await createToken(valid);
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    expect(data!.meta.timestamp).toMatch(META_TIMESTAMP);

    const token = data!.data;
    expect(token).toEqual({
      _id: expect.stringMatching(OBJECT_ID),
      email: valid.email,
      phone_no: valid.phone_no,
      redirect_url: valid.redirect_url,
      title: valid.title,
      description: valid.description,
      token: expect.stringMatching(TOKEN),
      activation_url: `${t.service.publicUrl}/tokenization/activation/${token.token}`,
      status: 'pending',
      card: null,
      card_removed_at: null,
      locale: null,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: token.created_at,
    });
    expect(millis(token.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(millis(token.created_at)).toBeLessThanOrEqual(after + 1000);
  });

  it("uses the server's own address for activation_url when PUBLIC_URL is not set", async () => {
    const { data } = await createToken(valid);
    expect(t.service.publicUrl).toBe(t.url);
    expect(data!.data.activation_url).toBe(`${t.url}/tokenization/activation/${data!.data.token}`);
    expect(new URL(data!.data.activation_url).pathname.split('/').pop()).toBe(data!.data.token);
  });

  it('returns null for omitted optional fields', async () => {
    const { response, data } = await createToken({ email: 'a@example.com', title: 'T', description: 'D' });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ email: 'a@example.com', title: 'T', description: 'D', phone_no: null, redirect_url: null, status: 'pending' });
  });

  it('gives every token its own token value and _id', async () => {
    const first = await createToken(valid);
    const second = await createToken(valid);
    expect(first.data!.data.token).toMatch(TOKEN);
    expect(second.data!.data.token).toMatch(TOKEN);
    expect(second.data!.data.token).not.toBe(first.data!.data.token);
    expect(second.data!.data._id).not.toBe(first.data!.data._id);
    expect(second.data!.data.activation_url).not.toBe(first.data!.data.activation_url);
  });

  it('accepts a title of exactly 50 characters and a phone_no of exactly 20', async () => {
    const title = 'x'.repeat(50);
    const phone = '+'.padEnd(20, '1');
    const { response, data } = await createToken({ ...valid, title, phone_no: phone });
    expect(response.status).toBe(200);
    expect(data!.data.title).toBe(title);
    expect(data!.data.phone_no).toBe(phone);
  });

  it('accepts a plain http redirect_url', async () => {
    const { response, data } = await createToken({ ...valid, redirect_url: 'http://merchant.example.com/back' });
    expect(response.status).toBe(200);
    expect(data!.data.redirect_url).toBe('http://merchant.example.com/back');
  });

  it('ignores read-only fields in the body (token, _id, status, activation_url, card, timestamps)', async () => {
    const forgedToken = 'f'.repeat(64);
    const forgedId = 'a'.repeat(24);
    const { response, data } = await createToken({
      ...valid,
      token: forgedToken,
      _id: forgedId,
      status: 'active',
      activation_url: 'https://evil.example.com/steal',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
      created_at: '2000-01-01T00:00:00.000000Z',
      updated_at: '2000-01-01T00:00:00.000000Z',
    });
    expect(response.status).toBe(200);
    const token = data!.data;
    expect(token.token).toMatch(TOKEN);
    expect(token.token).not.toBe(forgedToken);
    expect(token._id).toMatch(OBJECT_ID);
    expect(token._id).not.toBe(forgedId);
    expect(token.status).toBe('pending');
    expect(token.card).toBeNull();
    expect(token.activation_url).toBe(`${t.service.publicUrl}/tokenization/activation/${token.token}`);
    expect(token.created_at).not.toBe('2000-01-01T00:00:00.000000Z');
    expect(token.updated_at).not.toBe('2000-01-01T00:00:00.000000Z');

    // Nothing was stored from the forged values either.
    const stored = await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: token._id } } });
    expect(stored.data!.data).toEqual(token);
    const forged = await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: forgedId } } });
    expect(forged.response.status).toBe(404);
    expect(await t.sql('tokens').where({ token: forgedToken }).first()).toBeUndefined();
  });
});

describe("locale: the language of the token's payer", () => {
  it('is stored and returned as sent, and null when omitted or null', async () => {
    const { data } = await createToken({ ...valid, locale: 'ms' });
    expect(data!.data.locale).toBe('ms');
    expect(await t.sql('tokens').where({ _id: data!.data._id }).first()).toMatchObject({ locale: 'ms' });
    const read = await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: data!.data._id } } });
    expect(read.data!.data.locale).toBe('ms');
    expect((await createToken(valid)).data!.data.locale).toBeNull();
    expect((await createToken({ ...valid, locale: null })).data!.data.locale).toBeNull();
  });

  it('refuses a language the pages do not speak: 422 on locale', async () => {
    const { response, error } = await createToken({ ...valid, locale: 'en-GB' });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { locale: ['The selected locale is invalid.'] } });
  });
});

describe('POST /tokenizations/create-token with PUBLIC_URL', () => {
  const p = useService({ publicUrl: 'https://pay.example.com' });

  it('builds activation_url from PUBLIC_URL', async () => {
    const { response, data } = await createToken(valid, p);
    expect(response.status).toBe(200);
    expect(data!.data.activation_url).toBe(`https://pay.example.com/tokenization/activation/${data!.data.token}`);
    expect(data!.data.activation_url).not.toContain(p.url);
  });
});

describe('POST /tokenizations/create-token: validation', () => {
  it("reports missing email, title and description at once with the seed's texts", async () => {
    const { response, data, error } = await createToken({});
    expect(response.status).toBe(422);
    expect(data).toBeUndefined();
    expect(error).toEqual({
      message: INVALID,
      errors: {
        email: ['The email field is required.'],
        title: ['The title field is required.'],
        description: ['The description field is required.'],
      },
    });
  });

  it('reports only the fields that are missing', async () => {
    const { response, error } = await createToken({ email: valid.email, phone_no: valid.phone_no });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { title: ['The title field is required.'], description: ['The description field is required.'] } });
  });

  it('has no success, data or meta members in a 422 body', async () => {
    const response = await raw(`${t.apiUrl}/tokenizations/create-token`, {
      key: t.a.key,
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: valid.email }),
    });
    expect(response.status).toBe(422);
    expect(response.contentType).toMatch(/^application\/json/);
    expect(Object.keys(response.body as object).sort()).toEqual(['errors', 'message']);
  });

  it('rejects a title of 51 characters', async () => {
    const { response, error } = await createToken({ ...valid, title: 'x'.repeat(51) });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { title: ['The title must not be greater than 50 characters.'] } });
  });

  it.each(['not-an-email', 'payer@', '@example.com', 'pay er@example.com', 'payer@@example.com'])('rejects the email %j', async (email) => {
    const { response, error } = await createToken({ ...valid, email });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { email: ['The email must be a valid email address.'] } });
  });

  it.each(['javascript:alert(1)', 'ftp://merchant.example.com/file', 'merchant.example.com/back', '/relative/path', 'not a url'])(
    'rejects the redirect_url %j',
    async (redirect_url) => {
      const { response, error } = await createToken({ ...valid, redirect_url });
      expect(response.status).toBe(422);
      expect(error).toEqual({ message: INVALID, errors: { redirect_url: ['The redirect url format is invalid.'] } });
    },
  );

  it('rejects a phone_no over 20 characters', async () => {
    const { response, error } = await createToken({ ...valid, phone_no: '+'.padEnd(21, '1') });
    expect(response.status).toBe(422);
    expect(error).toEqual({ message: INVALID, errors: { phone_no: ['The phone no must not be greater than 20 characters.'] } });
  });

  it('reports every failing field in one response', async () => {
    const { response, error } = await createToken({ email: 'nope', title: 'x'.repeat(51), redirect_url: 'javascript:alert(1)' });
    expect(response.status).toBe(422);
    expect(error).toEqual({
      message: INVALID,
      errors: {
        email: ['The email must be a valid email address.'],
        title: ['The title must not be greater than 50 characters.'],
        description: ['The description field is required.'],
        redirect_url: ['The redirect url format is invalid.'],
      },
    });
  });

  it('stores nothing when validation fails', async () => {
    const before = await t.sql('tokens').count({ n: '*' }).first();
    await createToken({ ...valid, title: 'x'.repeat(51) });
    const after = await t.sql('tokens').count({ n: '*' }).first();
    expect(Number(after!.n)).toBe(Number(before!.n));
  });
});

describe('GET /tokenizations: the list', () => {
  it("pages the business's tokens newest first, each as GET /tokenizations/{token_id} shows it, and filters by status, e-mail and day", async () => {
    const made = [];
    for (const email of ['siti.list@example.com', 'ravi.list@example.com', 'siti.list@example.com']) {
      const { data } = await createToken({ ...valid, email });
      made.push(data!.data);
    }
    await activateToken(t.service.db, made[1]!.token, {
      brand: 'visa',
      last4: '4242',
      exp_month: 12,
      exp_year: 2030,
      reference: 'card_1',
      acquirer: 'sandbox',
    });
    // Another business's token is never listed.
    await t.b.client.POST('/tokenizations/create-token', { body: { ...valid, email: 'siti.list@example.com' } });
    const ids = (page: { data?: { data: { data: { _id: string }[] } } }) => page.data!.data.data.map((token) => token._id);

    const newest = await t.a.client.GET('/tokenizations', { params: { query: { per_page: 2 } } });
    expect(newest.response.status).toBe(200);
    expect(ids(newest)).toEqual([made[2]!._id, made[1]!._id]);
    expect(newest.data!.data).toMatchObject({ per_page: 2, current_page: 1, last_page: Math.ceil(newest.data!.data.total / 2) });
    const one = await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: made[1]!._id } } });
    expect(newest.data!.data.data[1]).toEqual(one.data!.data);
    expect(newest.data!.data.data[1]).toMatchObject({ status: 'active', card: { brand: 'visa', last4: '4242' } });

    const siti = await t.a.client.GET('/tokenizations', { params: { query: { 'filter[email]': 'siti.list@example.com' } } });
    expect(ids(siti)).toEqual([made[2]!._id, made[0]!._id]);
    expect(siti.data!.data.total).toBe(2);
    const oldest = await t.a.client.GET('/tokenizations', { params: { query: { 'filter[email]': 'siti.list@example.com', sort: 'created_at' } } });
    expect(ids(oldest)).toEqual([made[0]!._id, made[2]!._id]);
    const active = await t.a.client.GET('/tokenizations', { params: { query: { 'filter[status]': 'active' } } });
    expect(ids(active)).toContain(made[1]!._id);
    expect(active.data!.data.data.every((token) => token.status === 'active')).toBe(true);
    const pendingSiti = await t.a.client.GET('/tokenizations', {
      params: { query: { 'filter[email]': 'siti.list@example.com', 'filter[status]': 'pending' } },
    });
    expect(ids(pendingSiti)).toEqual([made[2]!._id, made[0]!._id]);
    const activeSiti = await t.a.client.GET('/tokenizations', { params: { query: { 'filter[email]': 'siti.list@example.com', 'filter[status]': 'active' } } });
    expect(activeSiti.data!.data).toMatchObject({ total: 0, data: [] });
    const today = new Date().toISOString().slice(0, 10);
    const dated = await t.a.client.GET('/tokenizations', {
      params: { query: { 'filter[email]': 'siti.list@example.com', 'filter[created_at_between]': `${today},${today}` } },
    });
    expect(dated.data!.data.total).toBe(2);
    const before = await t.a.client.GET('/tokenizations', { params: { query: { 'filter[created_at_between]': '2020-01-01,2020-01-31' } } });
    expect(before.data!.data).toMatchObject({ total: 0, data: [] });
  });

  it('refuses a status it does not know, with the field named', async () => {
    const { response, error } = await t.a.client.GET('/tokenizations', { params: { query: { 'filter[status]': 'removed' as never } } });
    expect(response.status).toBe(422);
    expect(Object.keys((error as { errors: Record<string, string[]> }).errors)).toEqual(['filter.status']);
  });
});
