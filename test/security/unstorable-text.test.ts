// Text a database cannot keep as sent. PostgreSQL refuses the NUL character outright (the request
// became a 500 Server Error on create, update, list filters and the payer's name on the hosted
// forms), and an unpaired UTF-16 surrogate is stored as U+FFFD on both databases, so the record read
// back differed from the one the create answered. Both are now refused up front, the same way on
// SQLite and PostgreSQL; every text field, filter and form field is tried.
import { beforeAll, describe, expect, it } from 'vitest';
import { assertConforms } from '../support/contract.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import { api, oneOfEach } from './fixture.js';
import { apiPath, filtersOf, isFreeText, loadSpec, propertiesOf, queryString, types, type Spec, type SpecOperation } from './spec.js';

let spec: Spec;
const ids: Record<string, string> = {};

const UNSTORABLE: [string, string][] = [
  ['a NUL character', 'Invoice\u0000 1'],
  ['a lone high surrogate', 'Invoice \ud800'],
  ['a lone low surrogate', '\udc00 Invoice'],
];

const t = useService();
beforeAll(async () => {
  spec = await loadSpec();
  Object.assign(ids, await oneOfEach(t));
});

/** Free-text fields: strings without a format or pattern of their own (those already refuse odd characters). */
const textFields = (operation: SpecOperation) =>
  Object.entries(propertiesOf(operation.body!.schema)).filter(
    ([, schema]) => types(schema).includes('string') && !schema.enum && (isFreeText(schema) || schema.format === 'http-url'),
  );

describe.each(UNSTORABLE)('%s', (_name, bad) => {
  it('in any text field of any write body -> 422 for that field, on either database', async () => {
    let checked = 0;
    for (const operation of spec.operations.filter((o) => o.body)) {
      for (const [field, schema] of textFields(operation)) {
        const value = schema.format === 'http-url' ? `https://example.com/${bad}` : bad;
        const path = apiPath(operation.template, ids);
        const response = await api(t, t.a.key, operation.method, path, { ...operation.body!.example, [field]: value });
        expect(response.status, `${operation.operationId} ${field}: ${response.text}`).toBe(422);
        await assertConforms({
          method: operation.method,
          path,
          status: 422,
          contentType: response.contentType,
          headers: Object.fromEntries(response.headers),
          body: response.body,
        });
        expect(Object.keys((response.body as { errors: object }).errors), `${operation.operationId} ${field}`).toEqual([field]);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

/** Text filters of every list: strings without enum or format. */
function textFilters(): { operation: SpecOperation; name: string; errorKey: string }[] {
  return spec.operations.flatMap((operation) =>
    filtersOf(operation)
      .filter(({ schema }) => types(schema).includes('string') && !schema.enum && isFreeText(schema))
      .map(({ name, errorKey }) => ({ operation, name, errorKey })),
  );
}

describe('in the query string of a list', () => {
  it('a NUL in any text filter -> 422 for that filter, never a server error', async () => {
    expect(textFilters().length).toBeGreaterThan(0);
    for (const { operation, name, errorKey } of textFilters()) {
      const path = `${apiPath(operation.template, ids)}${queryString({ [name]: 'REF\u00001' })}`;
      const response = await api(t, t.a.key, 'GET', path);
      expect(response.status, `${path}: ${response.text}`).toBe(422);
      await assertConforms({
        method: 'GET',
        path,
        status: 422,
        contentType: response.contentType,
        headers: Object.fromEntries(response.headers),
        body: response.body,
      });
      expect(Object.keys((response.body as { errors: object }).errors)).toEqual([errorKey]);
    }
  });

  // A lone surrogate cannot be percent-encoded as UTF-8; what arrives instead is invalid UTF-8.
  it.each(['%ED%A0%80', '%FF', '%C0%AF', '%F4%90%80%80'])(
    'invalid UTF-8 (%s) in any text filter is a 4xx or an empty page, never a server error',
    async (bytes) => {
      for (const { operation, name } of textFilters()) {
        const path = `${apiPath(operation.template, ids)}?${encodeURIComponent(name)}=REF${bytes}`;
        const response = await api(t, t.a.key, 'GET', path);
        expect(response.status, `${path}: ${response.text}`).toBeLessThan(500);
        await assertConforms({
          method: 'GET',
          path,
          status: response.status,
          contentType: response.contentType,
          headers: Object.fromEntries(response.headers),
          body: response.body,
        });
        if (response.status === 200) expect((response.body as { data: { total: number } }).data.total).toBe(0);
      }
    },
  );
});

describe("the payer's name on the hosted forms", () => {
  it.each([
    ['a NUL character', 'Payer\u0000Name'],
    ['another control character', 'Payer\u0001Name'],
  ])('with %s -> the form again (422) with the name marked, nothing charged or saved', async (_name, name) => {
    const link = await api(t, t.a.key, 'GET', `/api/open-payment-links/${ids.open_payment_link_id}`);
    const url = new URL((link.body as { data: { payment_url: string } }).data.payment_url);
    // A token of its own: the fixture's token already has a saved card, and its page says so.
    const token = await api(t, t.a.key, 'POST', '/api/tokenizations/create-token', { email: 'payer@example.com', title: 'Card', description: 'Plan' });
    const activation = new URL((token.body as { data: { activation_url: string } }).data.activation_url);
    const before = await t.sql('payments').count({ n: '*' }).first();
    for (const path of [url.pathname + url.search, activation.pathname]) {
      const payer = new Payer(t.url);
      const form = await payer.open(path);
      const page = await payer.submit(form, { amount: '10.00', email: 'payer@example.com', name, ...GOOD_CARD });
      expect(page.status, `${path}: ${page.html.slice(0, 200)}`).toBe(422);
      expect(page.html).toMatch(/id="name"[^>]*aria-invalid="true"/);
    }
    expect(await t.sql('payments').count({ n: '*' }).first()).toEqual(before);
    const tokenId = (token.body as { data: { _id: string } }).data._id;
    expect((await api(t, t.a.key, 'GET', `/api/tokenizations/${tokenId}`)).body).toMatchObject({ data: { status: 'pending' } });
  });
});

it('a paired surrogate (an emoji) is ordinary text and is kept as sent', async () => {
  const response = await api(t, t.a.key, 'POST', '/api/payment-links', {
    email: 'payer@example.com',
    currency: 'MYR',
    amount: 1000,
    title: 'Thanks 🙏',
    description: 'Café ☕ 😀',
  });
  expect(response.status).toBe(200);
  const id = (response.body as { data: { _id: string } }).data._id;
  expect(((await api(t, t.a.key, 'GET', `/api/payment-links/${id}`)).body as { data: object }).data).toMatchObject({
    title: 'Thanks 🙏',
    description: 'Café ☕ 😀',
  });
});
