// OWASP API4 (unrestricted resource consumption): every bound the contract sets is enforced at its
// edge, read from openapi.yaml rather than copied: numeric query bounds (per_page, page,
// filter[limit]), every string maxLength in every write body, query filter and header, the 1 MiB body
// limit however the body arrives (declared, chunked, gzip-compressed), the hosted forms' limit, and
// the length of the query string itself (4096 bytes, then 414; past Node's 16 KiB header limit, 431).
// Every refusal is a clean JSON answer, never a 500.
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertConforms } from '../support/contract.js';
import { useService } from '../support/service.js';
import { api, oneOfEach, readCreated } from './fixture.js';
import {
  apiPath,
  filtersOf,
  hasOwnMaxLength,
  isFreeText,
  loadSpec,
  propertiesOf,
  queryString,
  resourceOf,
  types,
  type Schema,
  type Spec,
  type SpecOperation,
} from './spec.js';

const MiB = 1024 * 1024;
const VALIDATION = 'The given data was invalid.';

let spec: Spec;
const ids: Record<string, string> = {};

/** Laravel's name for a field in messages: underscores as spaces (filters keep their dotted name). */
const label = (field: string) => field.replace(/_/g, ' ');

const t = useService();
beforeAll(async () => {
  spec = await loadSpec();
  Object.assign(ids, await oneOfEach(t));
});

const pathOf = (operation: SpecOperation) => apiPath(operation.template, ids);

/**
 * Choosing Stripe stops the charges of the business's sandbox-saved card (createCharge's 422), so
 * whichever check chose it puts the sandbox back for the checks after it.
 */
async function putBackTheSandbox(operation: SpecOperation, status: number) {
  if (operation.operationId === 'setAcquirer' && status === 200)
    expect((await api(t, t.a.key, 'PUT', '/api/business/acquirer', { acquirer: 'sandbox' })).status).toBe(200);
}

async function call(operation: SpecOperation, options: { query?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const path = `${pathOf(operation)}${options.query ?? ''}`;
  const response = await api(t, t.a.key, operation.method, path, options.body, options.headers);
  await putBackTheSandbox(operation, response.status);
  await assertConforms({
    method: operation.method,
    path,
    status: response.status,
    contentType: response.contentType,
    headers: Object.fromEntries(response.headers),
    body: response.body,
  });
  return response;
}

function errorsOf(response: { body: unknown }): Record<string, string[]> {
  expect((response.body as { message?: string }).message).toBe(VALIDATION);
  return (response.body as { errors: Record<string, string[]> }).errors;
}

/** PUTs and DELETEs change the shared records; bounds are checked on reads and creates, and on PUT bodies. */
const safe = (operation: SpecOperation) => operation.method !== 'DELETE';

describe('numeric query bounds', () => {
  interface Bound {
    operation: SpecOperation;
    /** e.g. per_page, or filter[limit] */
    name: string;
    /** the key of the 422 errors, e.g. per_page or filter.limit */
    errorKey: string;
    query: (value: string | number) => Record<string, unknown>;
    schema: Schema;
  }
  const bounds = (): Bound[] =>
    spec.operations.flatMap((operation) =>
      operation.query.flatMap((parameter): Bound[] => {
        if (!types(parameter.schema).includes('integer')) return [];
        const errorKey = filtersOf(operation).find((filter) => filter.name === parameter.name)?.errorKey ?? parameter.name;
        // The last page a list reaches is its window at one record per page (openapi.yaml, Page).
        const context = parameter.name === 'page' ? { per_page: 1 } : {};
        return [{ operation, name: parameter.name, errorKey, query: (v) => ({ ...context, [parameter.name]: v }), schema: parameter.schema }];
      }),
    );

  it('per_page, page and filter[limit] are all bounded in the spec, on every operation that takes them', () => {
    const found = bounds().map((b) => `${b.operation.operationId} ${b.name}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'listPaymentLinks per_page',
        'listOpenPaymentLinks per_page',
        'listPaymentLinks page',
        'getOpenPaymentLinkTopCollection filter[limit]',
        'getOpenPaymentLinkTotalCollection filter[limit]',
      ]),
    );
    for (const bound of bounds()) expect(bound.schema.maximum, `${bound.operation.operationId} ${bound.name} has no maximum`).toBeTypeOf('number');
  });

  it("the maximum is accepted; one more is 422 with Laravel's text; so is anything below the minimum or not an integer", async () => {
    for (const bound of bounds()) {
      const where = `${bound.operation.operationId} ${bound.name}`;
      const max = bound.schema.maximum!;
      const min = bound.schema.minimum ?? 1;
      expect((await call(bound.operation, { query: queryString(bound.query(max)) })).status, `${where}=${max}`).toBe(200);

      const over = await call(bound.operation, { query: queryString(bound.query(max + 1)) });
      expect(over.status, `${where}=${max + 1}`).toBe(422);
      expect(errorsOf(over)).toEqual({ [bound.errorKey]: [`The ${label(bound.errorKey)} must not be greater than ${max}.`] });

      const under = await call(bound.operation, { query: queryString(bound.query(min - 1)) });
      expect(under.status, `${where}=${min - 1}`).toBe(422);
      expect(errorsOf(under)).toEqual({ [bound.errorKey]: [`The ${label(bound.errorKey)} must be at least ${min}.`] });

      for (const value of ['abc', '1.5', '99999999999999999999999', '1e9', `${max}.5`, 'null', '[]']) {
        const response = await call(bound.operation, { query: queryString(bound.query(value)) });
        expect(response.status, `${where}=${JSON.stringify(value)}: ${response.text}`).toBe(422);
        expect(Object.keys(errorsOf(response))).toEqual([bound.errorKey]);
      }
      // Spellings a lenient integer parser reads as a number: accepted or refused, never past the bound.
      for (const value of ['1e2', '0x10', '-0', ' 5', '']) {
        const response = await call(bound.operation, { query: queryString(bound.query(value)) });
        expect([200, 422], `${where}=${JSON.stringify(value)}`).toContain(response.status);
      }
    }
  });

  it('a page never holds more records than per_page', async () => {
    for (let i = 0; i < 3; i += 1)
      await api(t, t.a.key, 'POST', '/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: `Bulk ${i}` });
    const response = await api(t, t.a.key, 'GET', '/api/payment-links?per_page=2');
    const page = (response.body as { data: { per_page: number; data: unknown[] } }).data;
    expect(page.per_page).toBe(2);
    expect(page.data).toHaveLength(2);
  });
});

describe('string lengths', () => {
  /** A valid value of exactly `length` characters for a field, from its format or its example. */
  function valueOfLength(field: string, schema: Schema, example: unknown, length: number): string {
    if (schema.format === 'email') return `${'a'.repeat(length - '@example.com'.length)}@example.com`;
    // Base64 of an image (a logo): a PNG's signature padded with zeros to the bytes that many characters carry.
    if (schema.format === 'byte') {
      const png = Buffer.from(String(example), 'base64');
      const bytes = Math.ceil(length / 4) * 3 - (length % 4 === 0 ? 2 : 0);
      return Buffer.concat([png, Buffer.alloc(Math.max(0, bytes - png.length))])
        .toString('base64')
        .slice(0, length);
    }
    // On the example's host (a webhook URL's host must resolve, which the tests' resolver does for it).
    if (schema.format === 'http-url') {
      const origin = `${typeof example === 'string' ? new URL(example).origin : 'https://example.com'}/`;
      return `${origin}${'a'.repeat(length - origin.length)}`;
    }
    // A document (a CSV): the example and a last line of one long cell, which its reader answers as unreadable.
    if (schema.contentMediaType && typeof example === 'string') return `${example.trimEnd()}\n${'x'.repeat(length - example.trimEnd().length - 1)}`;
    // A date-time far ahead, its fractional seconds as long as needed.
    if (schema.format === 'date-time') return `2099-01-01T00:00:00.${'0'.repeat(length - '2099-01-01T00:00:00.Z'.length)}Z`;
    // Amounts and other numerals: the example, zero-padded on the left, is the same number.
    if (/^[0-9.]+$/.test(String(example ?? ''))) return String(example).padStart(length, '0');
    // A value with a fixed prefix (a Stripe key sk_test_…, a signing secret whsec_…): the example, padded.
    if (typeof example === 'string' && /^[a-z]+_/.test(example)) return example.padEnd(length, 'x').slice(0, length);
    return 'x'.repeat(length);
  }

  const stringFields = (operation: SpecOperation) =>
    Object.entries(propertiesOf(operation.body!.schema)).filter(([, schema]) => types(schema).includes('string') && hasOwnMaxLength(schema));

  it('every text field of every write body has a maxLength in the spec', () => {
    for (const operation of spec.operations.filter((o) => o.body)) {
      for (const [field, schema] of Object.entries(propertiesOf(operation.body!.schema))) {
        if (types(schema).includes('string') && !schema.enum && schema.format !== 'iso4217')
          expect(schema.maxLength, `${operation.operationId} ${field}`).toBeTypeOf('number');
      }
    }
  });

  it('each field at its maxLength is accepted and stored whole; one character more is 422 naming that field', async () => {
    for (const operation of spec.operations.filter((o) => o.body && safe(o))) {
      for (const [field, schema] of stringFields(operation)) {
        const example = operation.body!.example;
        const where = `${operation.operationId} ${field}`;
        const max = schema.maxLength!;
        const fits = valueOfLength(field, schema, example[field], max);
        const accepted = await call(operation, { body: { ...example, [field]: fits } });
        expect(accepted.status, `${where} at ${max}: ${accepted.text}`).toBe(200);
        const stored = (accepted.body as { data: Record<string, unknown> }).data[field];
        // A document is read, not stored as it was sent: a bank statement answers its lines.
        // A date-time is stored as the same instant, written the API's way.
        if (schema.format === 'date-time') expect(Date.parse(String(stored)), where).toBe(Date.parse(fits));
        else if (typeof stored === 'string') expect(stored, where).toBe(fits);

        const rejected = await call(operation, { body: { ...example, [field]: valueOfLength(field, schema, example[field], max + 1) } });
        expect(rejected.status, `${where} at ${max + 1}`).toBe(422);
        expect(errorsOf(rejected)[field], where).toContain(`The ${label(field)} must not be greater than ${max} characters.`);
      }
    }
  });

  it('lengths count characters, not UTF-16 units or bytes: maxLength emoji fit, and read back whole', async () => {
    for (const operation of spec.operations.filter((o) => o.body && safe(o))) {
      for (const [field, schema] of stringFields(operation)) {
        // A write-only field (a secret) is never read back, and has a form of its own.
        if (schema.writeOnly) continue;
        if (!isFreeText(schema) || schema.pattern?.startsWith('^[0-9]') || /^[0-9.]+$/.test(String(operation.body!.example[field] ?? ''))) continue;
        const where = `${operation.operationId} ${field}`;
        const value = '😀'.repeat(schema.maxLength!);
        const accepted = await call(operation, { body: { ...operation.body!.example, [field]: value } });
        expect(accepted.status, `${where}: ${accepted.text}`).toBe(200);
        const data = (accepted.body as { data: Record<string, string> }).data;
        const read = await readCreated(t, t.a.key, resourceOf(operation.template), data);
        expect((read.body as { data: Record<string, string> }).data[field], where).toBe(value);
        const over = await call(operation, { body: { ...operation.body!.example, [field]: '😀'.repeat(schema.maxLength! + 1) } });
        expect(over.status, where).toBe(422);
      }
    }
  });

  it('text filters in the query are bounded too', async () => {
    let checked = 0;
    for (const operation of spec.operations) {
      for (const { name, member, errorKey, schema } of filtersOf(operation)) {
        if (!hasOwnMaxLength(schema)) continue;
        checked += 1;
        const value = (length: number) => (member === 'email' ? `${'a'.repeat(length - 12)}@example.com` : 'x'.repeat(length));
        const fits = await call(operation, { query: queryString({ [name]: value(schema.maxLength) }) });
        expect(fits.status, `${operation.operationId} ${name}`).toBe(200);
        const over = await call(operation, { query: queryString({ [name]: value(schema.maxLength + 1) }) });
        expect(over.status).toBe(422);
        expect(errorsOf(over)).toEqual({ [errorKey]: [`The filter.${label(member)} must not be greater than ${schema.maxLength} characters.`] });
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('header parameters with a maxLength (Idempotency-Key) are bounded', async () => {
    let checked = 0;
    for (const operation of spec.operations.filter((o) => o.body && safe(o))) {
      for (const header of operation.headers.filter((h) => typeof h.schema.maxLength === 'number')) {
        checked += 1;
        const max = header.schema.maxLength!;
        const fits = await call(operation, { body: operation.body!.example, headers: { [header.name]: `k${Date.now()}`.padEnd(max, 'k') } });
        expect(fits.status, `${operation.operationId} ${header.name} at ${max}`).toBe(200);
        const over = await call(operation, { body: operation.body!.example, headers: { [header.name]: 'k'.repeat(max + 1) } });
        expect(over.status).toBe(422);
        const key = header.name.toLowerCase().replace(/-/g, '_');
        expect(errorsOf(over)[key]).toEqual([`The ${label(key)} must not be greater than ${max} characters.`]);
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

/**
 * node:http on a connection of its own, the body sent as the given chunks (chunked when there is no
 * content-length). A server may answer a refused body before reading it and then drop the
 * connection; that must not break a later test's pooled fetch, and a write error after the answer
 * has arrived is expected.
 */
function onFreshConnection(method: string, path: string, chunks?: (string | Buffer)[], headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; body: unknown; contentType: string | null }>(
    (resolve, reject) => {
      let answered = false;
      const length = chunks && !headers['transfer-encoding'] ? { 'content-length': String(chunks.reduce((n, c) => n + Buffer.byteLength(c), 0)) } : {};
      const req = request(`${t.url}${path}`, { method, agent: false, headers: { Authorization: `Bearer ${t.a.key}`, ...headers, ...length } }, (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // HTML or empty: compared as text
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, body, contentType: res.headers['content-type'] ?? null });
        });
      });
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      for (const chunk of chunks ?? []) req.write(chunk);
      req.end();
    },
  );
}

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('body size: 1 MiB', () => {
  const TOO_LARGE = { message: 'The request body must not be larger than 1 MiB.' };

  /** The operation's example padded with an unknown field to exactly `size` bytes. */
  function padded(operation: SpecOperation, size: number): string {
    const base = JSON.stringify({ ...operation.body!.example, padding: '' });
    return JSON.stringify({ ...operation.body!.example, padding: 'x'.repeat(size - Buffer.byteLength(base)) });
  }

  it("on every operation with a body: 1 MiB + 1 byte is 413 with the spec's body; exactly 1 MiB is accepted", async () => {
    for (const operation of spec.operations.filter((o) => o.body)) {
      const path = pathOf(operation);
      const tooLarge = await onFreshConnection(operation.method, path, [padded(operation, MiB + 1)], JSON_HEADERS);
      expect(tooLarge.status, `${operation.operationId}`).toBe(413);
      expect(tooLarge.body).toEqual(TOO_LARGE);
      await assertConforms({
        method: operation.method,
        path,
        status: 413,
        contentType: tooLarge.contentType,
        headers: tooLarge.headers as Record<string, string>,
        body: tooLarge.body,
      });
      if (!safe(operation)) continue;
      const fits = await onFreshConnection(operation.method, path, [padded(operation, MiB)], JSON_HEADERS);
      expect(fits.status, `${operation.operationId} at exactly 1 MiB`).toBe(200);
      await putBackTheSandbox(operation, fits.status);
    }
  });

  it('a chunked body without Content-Length is cut off at 1 MiB too', async () => {
    const chunks = ['{"title":"', ...Array.from({ length: 20 }, () => 'x'.repeat(64 * 1024)), '"}'];
    const response = await onFreshConnection('POST', '/api/payment-links', chunks, { ...JSON_HEADERS, 'transfer-encoding': 'chunked' });
    expect(response.status).toBe(413);
    expect(response.body).toEqual(TOO_LARGE);
  });

  it('a gzip bomb (10 KB that inflates to 10 MiB) is 413, not inflated into memory and accepted', async () => {
    const bomb = gzipSync(
      Buffer.from(JSON.stringify({ email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Bomb', padding: ' '.repeat(10 * MiB) })),
    );
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const response = await onFreshConnection('POST', '/api/payment-links', [bomb], { ...JSON_HEADERS, 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(response.body).toEqual(TOO_LARGE);
  });

  it('the hosted payment forms refuse a body over their 16 KB limit with a 413 page, not a server error', async () => {
    const link = await api(t, t.a.key, 'GET', `/api/open-payment-links/${ids.open_payment_link_id}`);
    const url = new URL((link.body as { data: { payment_url: string } }).data.payment_url);
    const token = await api(t, t.a.key, 'GET', `/api/tokenizations/${ids.token_id}`);
    const activation = new URL((token.body as { data: { activation_url: string } }).data.activation_url);
    for (const path of [url.pathname + url.search, activation.pathname]) {
      const opened = await onFreshConnection('GET', path);
      const cookie = String(opened.headers['set-cookie'] ?? '').split(';')[0]!;
      const csrf = /name="csrf_token" value="([^"]*)"/.exec(opened.text)?.[1] ?? '';
      const attempt = /name="attempt_id" value="([^"]*)"/.exec(opened.text)?.[1] ?? '';
      const form = new URLSearchParams({ csrf_token: csrf, attempt_id: attempt, name: 'x'.repeat(17 * 1024) }).toString();
      const response = await onFreshConnection('POST', path, [form], { 'content-type': 'application/x-www-form-urlencoded', cookie });
      expect(response.status, path).toBe(413);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.text).toContain('This form is too large');
    }
  });
});

describe('query string length', () => {
  /** A query of exactly `bytes` bytes (without the "?"). */
  const query = (bytes: number) => `?pad=${'x'.repeat(bytes - 4)}`;

  it.each([
    ['4097 bytes', 4097],
    ['10 KB', 10 * 1024],
  ])("%s on every operation -> 414 with the spec's body", async (_name, bytes) => {
    // DELETEs included: the refusal comes before anything is looked up or changed.
    for (const operation of spec.operations) {
      const response = await call(operation, { query: query(bytes), body: operation.body?.example });
      expect(response.status, `${operation.operationId}: ${response.text.slice(0, 200)}`).toBe(414);
      expect(operation.examples['414'], `${operation.operationId} declares no 414 example`).toBeDefined();
      expect(response.body).toEqual(operation.examples['414']);
    }
  });

  it('4096 bytes is not too long (the unknown parameter is then refused as a 422)', async () => {
    for (const operation of spec.operations) {
      // Raw: operations without query parameters do not declare the 422 they answer here (reported).
      const response = await api(t, t.a.key, operation.method, `${pathOf(operation)}${query(4096)}`, operation.body?.example);
      expect(response.status, operation.operationId).toBe(422);
      expect(Object.keys(errorsOf(response))).toEqual(['pad']);
    }
  });

  it("100 KB is refused before the application with a JSON 4xx (Node's 16 KiB request-head limit), and the server keeps serving", async () => {
    for (const operation of spec.operations) {
      const response = await api(t, t.a.key, operation.method, `${pathOf(operation)}${query(100 * 1024)}`, operation.body?.example);
      expect([414, 431], `${operation.operationId}: ${response.status}`).toContain(response.status);
      expect(response.contentType).toMatch(/^application\/json/);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
    expect((await api(t, t.a.key, 'GET', '/api/payment-links')).status).toBe(200);
  });

  it('a long query is refused without echoing it back', async () => {
    const response = await api(t, t.a.key, 'GET', `/api/payment-links${query(10 * 1024)}`);
    expect(response.text.length).toBeLessThan(1024);
  });
});
