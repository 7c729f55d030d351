// Payment links over HTTP (the seed's five operations on them): create, replace, read, list and
// delete, with the rules of docs/compatibility.md (Money and limits, Validation errors), through the
// typed client whose every response is also checked against openapi.yaml.
import { describe, expect, it } from 'vitest';
import type { PaymentLink } from '../../client/index.js';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { withService, type Tenant, useService } from '../support/service.js';
import { sleep } from '../support/wait.js';

const t = useService();

type Body = Record<string, unknown>;
interface Result {
  response: Response;
  error?: unknown;
}

const ID = /^[0-9a-f]{24}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UNKNOWN_ID = '0123456789abcdef01234567';
const REQUIRED = { email: 'payer@example.com', currency: 'MYR', amount: 1500, title: 'Invoice 1001' };
const FULL = {
  ...REQUIRED,
  phone_no: '+60123456789',
  description: 'Web design, May 2022',
  redirect_url: 'https://merchant.example.com/invoices/1001/paid',
  reference: 'INV-1001',
  reference_2: 'customer-42',
};

const create = (body: Body, tenant: Tenant = t.a) => tenant.client.POST('/payment-links', { body: body as never });
const read = (id: string, tenant: Tenant = t.a) => tenant.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
const replace = (id: string, body: Body, tenant: Tenant = t.a) =>
  tenant.client.PUT('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } }, body: body as never });
const remove = (id: string, tenant: Tenant = t.a) => tenant.client.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
const row = (id: string) => t.sql('payment_links').where({ _id: id }).first();

async function createLink(body: Body = {}, tenant: Tenant = t.a): Promise<PaymentLink> {
  const result = await create({ ...REQUIRED, ...body }, tenant);
  expect(result.response.status, JSON.stringify(result.error)).toBe(200);
  return result.data!.data;
}

async function readLink(id: string): Promise<PaymentLink> {
  const result = await read(id);
  expect(result.response.status).toBe(200);
  return result.data!.data;
}

/** What a payment does to a link (payments themselves arrive through the hosted page). */
async function markPaid(id: string): Promise<void> {
  await t.sql('payment_links').where({ _id: id }).update({ status: 'Paid', paid: true });
}

/** A business of its own, so that list assertions see only this test's links. */
let tenants = 0;
async function freshTenant(): Promise<Tenant> {
  const business = await findOrCreateBusiness(t.service.db, `Payment links test ${++tenants}`);
  const { key } = await issueKey(t.service.db, business.id);
  return { business, key, client: t.clientFor(key) };
}

/** A 422 carries exactly the seed's shape: the fixed message and every failing field, nothing else. */
function expectInvalid(result: Result, errors: Record<string, string[]>): void {
  expect(result.response.status).toBe(422);
  expect(result.error).toStrictEqual({ message: 'The given data was invalid.', errors });
}

/** The `errors` member of a 422 body, for fields whose message list is checked by inclusion. */
function fieldErrors(result: Result): Record<string, string[]> {
  expect(result.error).toStrictEqual({ message: 'The given data was invalid.', errors: expect.any(Object) });
  return (result.error as { errors: Record<string, string[]> }).errors;
}

/** Every error other than 422 is `{message}` alone. */
function expectError(result: Result, status: number): void {
  expect(result.response.status).toBe(status);
  expect(result.error).toStrictEqual({ message: expect.any(String) });
  expect((result.error as { message: string }).message).not.toBe('');
}

/** A new link of business A: the given fields, every other optional field null, Active and unpaid. */
function expectFreshLink(link: PaymentLink, fields: Body): void {
  expect(link).toStrictEqual({
    _id: expect.stringMatching(ID),
    business_id: t.a.business.id,
    phone_no: null,
    description: null,
    redirect_url: null,
    reference: null,
    reference_2: null,
    expires_at: null,
    locale: null,
    ...fields,
    status: 'Active',
    paid: false,
    payment_url: `${t.service.publicUrl}/payment/pay?id=${link._id}`,
    created_at: expect.stringMatching(TIMESTAMP),
    updated_at: expect.stringMatching(TIMESTAMP),
  });
}

const chars = (n: number, c = 'x') => c.repeat(n);
/** A syntactically valid address of exactly `length` characters (64-character local part, valid labels). */
function emailOfLength(length: number): string {
  const local = chars(64, 'a');
  const tld = '.com';
  let rest = length - local.length - 1 - tld.length;
  const labels: string[] = [];
  while (rest > 0) {
    const size = Math.min(63, rest);
    labels.push(chars(size, String.fromCharCode(98 + labels.length)));
    rest -= size + 1;
  }
  const address = `${local}@${labels.join('.')}${tld}`;
  if (address.length !== length) throw new Error(`emailOfLength(${length}) built ${address.length} characters`);
  return address;
}
const urlOfLength = (length: number) => {
  const base = 'https://merchant.example.com/';
  return base + chars(length - base.length, 'p');
};

describe('POST /payment-links (create)', () => {
  it('creates an active, unpaid link with every field echoed and the envelope of a success', async () => {
    const before = Date.now();
    const result = await create({ ...FULL, send_email: false });
    expect(result.response.status).toBe(200);
    expect(result.data).toStrictEqual({
      success: true,
      data: expect.any(Object),
      errors: null,
      meta: { timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/), timezone: 'UTC' },
    });
    const link = result.data!.data;
    expectFreshLink(link, FULL);
    expect(link.created_at).toBe(link.updated_at);
    const created = Date.parse(link.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('returns the same record on GET as on create', async () => {
    const link = await createLink(FULL);
    expect(await readLink(link._id)).toStrictEqual(link);
  });

  it('gives every link its own id', async () => {
    const first = await createLink();
    const second = await createLink();
    expect(first._id).not.toBe(second._id);
  });

  it.each([
    ['a JSON integer', 1500],
    ['an integer string', '1500'],
  ])('accepts amount as %s, storing and returning the integer 1500', async (_name, amount) => {
    const link = await createLink({ amount });
    expect(link.amount).toBe(1500);
    expect((await readLink(link._id)).amount).toBe(1500);
    expect(Number((await row(link._id)).amount)).toBe(1500);
  });

  it('stores and returns omitted optional fields as null', async () => {
    const link = await createLink();
    expectFreshLink(link, REQUIRED);
    expect(await row(link._id)).toMatchObject({ phone_no: null, description: null, redirect_url: null, reference: null, reference_2: null });
  });

  it('stores and returns optional fields sent as null as null', async () => {
    const link = await createLink({ phone_no: null, description: null, redirect_url: null, reference: null, reference_2: null });
    expectFreshLink(link, REQUIRED);
  });

  it.each([true, false])('accepts send_email %s and never returns it', async (sendEmail) => {
    const result = await create({ ...REQUIRED, send_email: sendEmail });
    expect(result.response.status).toBe(200);
    const link = result.data!.data;
    expect(link).not.toHaveProperty('send_email');
    expect(await readLink(link._id)).not.toHaveProperty('send_email');
  });

  it('builds payment_url from PUBLIC_URL, not from the address the request came to', async () => {
    await withService({ publicUrl: 'https://pay.example.test' }, async (other) => {
      const { data } = await other.a.client.POST('/payment-links', { body: REQUIRED });
      expect(data!.data.payment_url).toBe(`https://pay.example.test/payment/pay?id=${data!.data._id}`);
    });
  });

  it('ignores read-only and unknown fields and stores none of them', async () => {
    const forged = {
      _id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      business_id: t.b.business.id,
      status: 'Paid',
      paid: true,
      payment_url: 'https://evil.example/pay',
      created_at: '2000-01-01T00:00:00.000000Z',
      updated_at: '2000-01-01T00:00:00.000000Z',
      deleted_at: '2000-01-01T00:00:00.000000Z',
      token: 'x',
      foo: 'bar',
    };
    const result = await create({ ...REQUIRED, ...forged });
    expect(result.response.status).toBe(200);
    const link = result.data!.data;
    expectFreshLink(link, REQUIRED);
    expect(link._id).not.toBe(forged._id);
    expect(link.created_at).not.toBe(forged.created_at);
    expect(link).not.toHaveProperty('foo');

    expect(await readLink(link._id)).toStrictEqual(link);
    expectError(await read(forged._id), 404);
    expectError(await read(link._id, t.b), 404);
    const stored = await row(link._id);
    expect(stored).toMatchObject({ business_id: t.a.business.id, status: 'Active', deleted_at: null });
    expect(Boolean(stored.paid)).toBe(false);
    expect(stored).not.toHaveProperty('foo');
    expect(await row(forged._id)).toBeUndefined();
  });
});

// The same rules apply to create and to PUT (docs/compatibility.md, Validation errors: every
// required field again), so every validation case runs against both.
describe.each([
  ['create', (body: Body) => create(body)],
  [
    'update',
    async (body: Body) => {
      const link = await createLink(FULL);
      return replace(link._id, body);
    },
  ],
] as const)('validation on %s', (_operation, send) => {
  const expectAccepted = async (body: Body, expected: Body) => {
    const result = await send({ ...REQUIRED, ...body });
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    expect(result.data!.data).toMatchObject(expected);
  };
  const expectRejected = async (body: Body, errors: Record<string, string[]>) => expectInvalid(await send({ ...REQUIRED, ...body }), errors);

  it('reports every missing required field at once, with the seed texts', async () => {
    expectInvalid(await send({}), {
      currency: ['The currency field is required.'],
      email: ['The email field is required.'],
      amount: ['The amount field is required.'],
      title: ['The title field is required.'],
    });
  });

  it('reports empty strings in required fields as missing, as Laravel does', async () => {
    expectInvalid(await send({ email: '', currency: '', amount: '', title: '' }), {
      currency: ['The currency field is required.'],
      email: ['The email field is required.'],
      amount: ['The amount field is required.'],
      title: ['The title field is required.'],
    });
  });

  it('reports only the missing required fields when the others are present', async () => {
    expectInvalid(await send({ email: 'payer@example.com', title: 'Invoice', description: 'only some fields' }), {
      currency: ['The currency field is required.'],
      amount: ['The amount field is required.'],
    });
  });

  it('reports every failing field of one body at once', async () => {
    expectInvalid(await send({ email: 'nope', currency: 'myr', amount: 499, title: chars(51), reference: chars(51), send_email: 'yes' }), {
      email: ['The email must be a valid email address.'],
      currency: ['The currency must be a valid ISO 4217 currency code.'],
      amount: ['The amount must be at least 500.'],
      title: ['The title must not be greater than 50 characters.'],
      reference: ['The reference must not be greater than 50 characters.'],
      send_email: ['The send email field must be true or false.'],
    });
  });

  it.each([
    [499, { amount: ['The amount must be at least 500.'] }],
    ['499', { amount: ['The amount must be at least 500.'] }],
    [3000001, { amount: ['The amount must not be greater than 3000000.'] }],
    ['3000001', { amount: ['The amount must not be greater than 3000000.'] }],
  ])('rejects amount %j outside 500..3000000', async (amount, errors) => {
    await expectRejected({ amount }, errors);
  });

  it.each([
    [500, 500],
    ['500', 500],
    [3000000, 3000000],
    ['3000000', 3000000],
  ])('accepts amount %j at the bounds as the integer %d', async (amount, expected) => {
    await expectAccepted({ amount }, { amount: expected });
  });

  it.each([10.5, 'abc', true, '10.5', '1e3'])('rejects amount %j: "The amount must be an integer."', async (amount) => {
    await expectRejected({ amount }, { amount: ['The amount must be an integer.'] });
  });

  it('accepts a title of 50 characters and rejects one of 51', async () => {
    await expectAccepted({ title: chars(50) }, { title: chars(50) });
    await expectRejected({ title: chars(51) }, { title: ['The title must not be greater than 50 characters.'] });
  });

  it.each([
    ['reference', 'The reference must not be greater than 50 characters.'],
    ['reference_2', 'The reference 2 must not be greater than 50 characters.'],
  ])('accepts a %s of 50 characters and rejects one of 51', async (field, message) => {
    await expectAccepted({ [field]: chars(50) }, { [field]: chars(50) });
    await expectRejected({ [field]: chars(51) }, { [field]: [message] });
  });

  it('accepts a description of 1000 characters and rejects one of 1001', async () => {
    await expectAccepted({ description: chars(1000) }, { description: chars(1000) });
    await expectRejected({ description: chars(1001) }, { description: ['The description must not be greater than 1000 characters.'] });
  });

  it('accepts a phone_no of 20 characters and rejects one of 21', async () => {
    await expectAccepted({ phone_no: chars(20, '1') }, { phone_no: chars(20, '1') });
    await expectRejected({ phone_no: chars(21, '1') }, { phone_no: ['The phone no must not be greater than 20 characters.'] });
  });

  it.each(['not-an-email', 'payer@', '@example.com', 'payer example@example.com'])('rejects the e-mail %j', async (email) => {
    await expectRejected({ email }, { email: ['The email must be a valid email address.'] });
  });

  it('accepts an e-mail of 254 characters and rejects one of 255', async () => {
    await expectAccepted({ email: emailOfLength(254) }, { email: emailOfLength(254) });
    const result = await send({ ...REQUIRED, email: emailOfLength(255) });
    expect(result.response.status).toBe(422);
    const errors = fieldErrors(result);
    expect(Object.keys(errors)).toEqual(['email']);
    expect(errors.email).toContain('The email must not be greater than 254 characters.');
  });

  it.each(['USD', 'SGD', 'EUR'])('accepts the ISO 4217 currency %s', async (currency) => {
    await expectAccepted({ currency }, { currency });
  });

  it.each(['myr', 'Myr', 'ABC', 'ZZZ', 'MY', 'MYRR', '123'])('rejects the currency %j', async (currency) => {
    await expectRejected({ currency }, { currency: ['The currency must be a valid ISO 4217 currency code.'] });
  });

  it.each(['http://merchant.example.com/done', 'https://merchant.example.com/done?order=7#top'])('accepts the redirect_url %s', async (redirect_url) => {
    await expectAccepted({ redirect_url }, { redirect_url });
  });

  it('accepts a redirect_url of 2048 characters', async () => {
    await expectAccepted({ redirect_url: urlOfLength(2048) }, { redirect_url: urlOfLength(2048) });
  });

  it.each(['javascript:alert(1)', '/thanks', 'merchant.example.com/done', 'ftp://merchant.example.com/file', 'data:text/html,hi'])(
    'rejects the redirect_url %j',
    async (redirect_url) => {
      await expectRejected({ redirect_url }, { redirect_url: ['The redirect url format is invalid.'] });
    },
  );

  it('rejects a redirect_url of 2049 characters', async () => {
    const result = await send({ ...REQUIRED, redirect_url: urlOfLength(2049) });
    expect(result.response.status).toBe(422);
    const errors = fieldErrors(result);
    expect(Object.keys(errors)).toEqual(['redirect_url']);
    expect(errors.redirect_url).toContain('The redirect url format is invalid.');
  });

  it.each(['yes', 'true', null])('rejects send_email %j', async (send_email) => {
    await expectRejected({ send_email }, { send_email: ['The send email field must be true or false.'] });
  });
});

describe('PUT /payment-links/{id} (replace)', () => {
  it('replaces the writable fields, clears omitted optional ones and keeps created_at', async () => {
    const link = await createLink(FULL);
    await sleep(20);
    const body = { email: 'other@example.com', currency: 'SGD', amount: '2500', title: 'Invoice 1001 (revised)', reference: 'INV-1001-R', send_email: false };
    const result = await replace(link._id, body);
    expect(result.response.status).toBe(200);
    expect(result.data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    const updated = result.data!.data;
    expect(updated).toStrictEqual({
      ...link,
      email: 'other@example.com',
      currency: 'SGD',
      amount: 2500,
      title: 'Invoice 1001 (revised)',
      phone_no: null,
      description: null,
      redirect_url: null,
      reference: 'INV-1001-R',
      reference_2: null,
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(updated.created_at).toBe(link.created_at);
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(link.updated_at));
    expect(updated).not.toHaveProperty('send_email');
    expect(await readLink(link._id)).toStrictEqual(updated);
    expect(Number((await row(link._id)).amount)).toBe(2500);
  });

  it('sets optional fields that the link did not have', async () => {
    const link = await createLink();
    const result = await replace(link._id, FULL);
    expect(result.response.status).toBe(200);
    expect(result.data!.data).toStrictEqual({ ...link, ...FULL, updated_at: expect.stringMatching(TIMESTAMP) });
  });

  it('requires every required field again and leaves the link unchanged when invalid', async () => {
    const link = await createLink(FULL);
    expectInvalid(await replace(link._id, { title: 'Only a title', description: 'new' }), {
      currency: ['The currency field is required.'],
      email: ['The email field is required.'],
      amount: ['The amount field is required.'],
    });
    expectInvalid(await replace(link._id, { ...FULL, amount: 10 }), { amount: ['The amount must be at least 500.'] });
    expect(await readLink(link._id)).toStrictEqual(link);
  });

  it('ignores read-only and unknown fields and stores none of them', async () => {
    const link = await createLink(FULL);
    const forged = {
      _id: 'bbbbbbbbbbbbbbbbbbbbbbbb',
      business_id: t.b.business.id,
      status: 'Paid',
      paid: true,
      payment_url: 'https://evil.example/pay',
      created_at: '2000-01-01T00:00:00.000000Z',
      updated_at: '2000-01-01T00:00:00.000000Z',
      foo: 'bar',
    };
    const result = await replace(link._id, { ...FULL, title: 'Changed', ...forged });
    expect(result.response.status).toBe(200);
    expect(result.data!.data).toStrictEqual({ ...link, title: 'Changed', updated_at: expect.stringMatching(TIMESTAMP) });
    expect(result.data!.data.updated_at).not.toBe(forged.updated_at);
    expect(await readLink(link._id)).toStrictEqual(result.data!.data);
    expectError(await read(forged._id), 404);
    expectError(await read(link._id, t.b), 404);
    const stored = await row(link._id);
    expect(stored).toMatchObject({ business_id: t.a.business.id, status: 'Active', title: 'Changed' });
    expect(Boolean(stored.paid)).toBe(false);
    expect(await row(forged._id)).toBeUndefined();
  });

  it('leaves a paid link alone: 409 with {message}, nothing changed', async () => {
    const link = await createLink(FULL);
    await markPaid(link._id);
    const paid = await readLink(link._id);
    expect(paid).toMatchObject({ status: 'Paid', paid: true });
    expectError(await replace(link._id, { ...FULL, title: 'Too late' }), 409);
    expect(await readLink(link._id)).toStrictEqual(paid);
  });
});

describe("locale: the language of the link's payer", () => {
  it('is stored and returned as sent, null when omitted, and follows PUT: changed, or cleared when omitted', async () => {
    const link = await createLink({ locale: 'ms' });
    expect(link.locale).toBe('ms');
    expect((await readLink(link._id)).locale).toBe('ms');
    expect((await row(link._id)).locale).toBe('ms');
    const changed = await replace(link._id, { ...REQUIRED, locale: 'zh' });
    expect(changed.data!.data.locale).toBe('zh');
    expect((await row(link._id)).locale).toBe('zh');
    const cleared = await replace(link._id, REQUIRED);
    expect(cleared.data!.data.locale).toBeNull();
    expect((await row(link._id)).locale).toBeNull();
    expect((await createLink({ locale: null })).locale).toBeNull();
    expect((await createLink({ locale: ' en ' })).locale).toBe('en');
  });

  it.each(['fr', 'MS', 'zh-CN', 7])('refuses %j: 422 on locale, nothing written', async (locale) => {
    expectInvalid(await create({ ...REQUIRED, locale }), { locale: [locale === 7 ? 'The locale must be a string.' : 'The selected locale is invalid.'] });
    const link = await createLink({ locale: 'ms' });
    expect((await replace(link._id, { ...REQUIRED, locale })).response.status).toBe(422);
    expect((await readLink(link._id)).locale).toBe('ms');
  });
});

describe('GET /payment-links/{id}', () => {
  it("is 404 with {message} for another business's link", async () => {
    const link = await createLink();
    expectError(await read(link._id, t.b), 404);
  });
});

describe('DELETE /payment-links/{id}', () => {
  it('returns the link as it was; afterwards GET, PUT and DELETE are 404 and it leaves the list', async () => {
    const tenant = await freshTenant();
    const link = await createLink({ ...FULL, reference: 'DEL-1' }, tenant);
    const kept = await createLink({ ...FULL, reference: 'DEL-2' }, tenant);

    const deleted = await remove(link._id, tenant);
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    expect(deleted.data!.data).toStrictEqual(link);

    expectError(await read(link._id, tenant), 404);
    expectError(await replace(link._id, FULL, tenant), 404);
    expectError(await remove(link._id, tenant), 404);

    const list = await tenant.client.GET('/payment-links', {});
    expect(list.response.status).toBe(200);
    expect(list.data!.data.total).toBe(1);
    expect(list.data!.data.data.map((l) => l._id)).toEqual([kept._id]);
    expect((await read(kept._id, tenant)).data!.data).toStrictEqual(kept);
  });

  it('refuses a paid link: 409 with {message}, the link stays', async () => {
    const link = await createLink();
    await markPaid(link._id);
    const paid = await readLink(link._id);
    expectError(await remove(link._id), 409);
    expect(await readLink(link._id)).toStrictEqual(paid);
    expect((await row(link._id)).deleted_at).toBeNull();
  });

  it("is 404 for another business's link and leaves it in place", async () => {
    const link = await createLink();
    expectError(await remove(link._id, t.b), 404);
    expectError(await replace(link._id, FULL, t.b), 404);
    expect(await readLink(link._id)).toStrictEqual(link);
  });
});

describe('unknown and malformed ids', () => {
  const ids = async () => {
    const link = await createLink();
    return [UNKNOWN_ID, 'abc', link._id.toUpperCase(), `${link._id}0`, link._id.slice(1), 'zzzzzzzzzzzzzzzzzzzzzzzz', "' or 1=1 --"];
  };

  it('GET is 404 with {message}', async () => {
    for (const id of await ids()) expectError(await read(id), 404);
  });

  it('PUT with a valid body is 404 with {message}', async () => {
    for (const id of await ids()) expectError(await replace(id, FULL), 404);
  });

  it('DELETE is 404 with {message}', async () => {
    for (const id of await ids()) expectError(await remove(id), 404);
  });
});

describe('GET /payment-links (basics)', () => {
  it("lists the caller's links as GET shows them, newest first, in a paginator", async () => {
    const tenant = await freshTenant();
    const first = await createLink({ reference: 'L-1' }, tenant);
    await sleep(5);
    const second = await createLink({ ...FULL, reference: 'L-2' }, tenant);
    const result = await tenant.client.GET('/payment-links', {});
    expect(result.response.status).toBe(200);
    expect(result.data).toMatchObject({ success: true, errors: null, meta: { timezone: 'UTC' } });
    const path = `${t.service.publicUrl}/api/payment-links`;
    expect(result.data!.data).toStrictEqual({
      current_page: 1,
      data: [second, first],
      first_page_url: `${path}?page=1`,
      from: 1,
      last_page: 1,
      last_page_url: `${path}?page=1`,
      next_page_url: null,
      path,
      per_page: 15,
      prev_page_url: null,
      to: 2,
      total: 2,
    });
  });
});
