// OWASP API2 (broken authentication): every operation of openapi.yaml refuses every kind of bad
// credential with the spec's 401 body, before it reads, validates or changes anything: revoked keys
// (by full key and by prefix), keys that are almost right, keys in the wrong place or scheme, and
// headers no client should send (unicode, 8 KB). Only `Authorization: Bearer <live key>` gets in.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, revokeKey } from '../../server/store/api-keys.js';
import { assertConforms } from '../support/contract.js';
import { useService } from '../support/service.js';
import { api, dbView, oneOfEach } from './fixture.js';
import { apiPath, loadSpec, type Spec, type SpecOperation } from './spec.js';

let spec: Spec;
/** Path parameter values: A's live records, so the only thing wrong with each request is its credential. */
const ids: Record<string, string> = {};
const revoked = { byKey: '', byPrefix: '', sibling: '' };
let stored: unknown;
let refusals = 0;

const t = useService();
beforeAll(async () => {
  spec = await loadSpec();
  Object.assign(ids, await oneOfEach(t));

  // Keys that worked, then were revoked each way the store offers; a sibling key of the same business stays live.
  for (const name of ['byKey', 'byPrefix', 'sibling'] as const) {
    revoked[name] = (await issueKey(t.service.db, t.a.business.id)).key;
    expect((await api(t, revoked[name], 'GET', '/api/payment-links')).status).toBe(200);
  }
  expect(await revokeKey(t.service.db, revoked.byKey)).toBe(1);
  expect(await revokeKey(t.service.db, revoked.byPrefix.slice(0, 10))).toBe(1);
  stored = { a: await dbView(t.sql, t.a.business.id), b: await dbView(t.sql, t.b.business.id) };
});

afterAll(async () => {
  console.log(`auth: ${refusals} requests with bad credentials refused`);
});

/** Changes one character of a key while keeping it well-formed (same length and alphabet). */
function flip(key: string, at: number): string {
  const c = key[at]!;
  return key.slice(0, at) + (c === 'A' ? 'B' : 'A') + key.slice(at + 1);
}

interface Variant {
  name: string;
  /** Headers to send (Authorization absent unless set). */
  headers: () => Record<string, string>;
  /** Appended to the path, for keys in the query string. */
  query?: () => string;
}

const variants: Variant[] = [
  { name: 'no credentials at all', headers: () => ({}) },
  { name: 'an empty Authorization header', headers: () => ({ Authorization: '' }) },
  { name: '"Bearer" and nothing else', headers: () => ({ Authorization: 'Bearer' }) },
  { name: '"Bearer " with an empty key', headers: () => ({ Authorization: 'Bearer ' }) },
  { name: 'the key without the Bearer scheme', headers: () => ({ Authorization: t.a.key }) },
  { name: 'the key after "Bearer:"', headers: () => ({ Authorization: `Bearer:${t.a.key}` }) },
  { name: 'the key with the Token scheme', headers: () => ({ Authorization: `Token ${t.a.key}` }) },
  { name: 'Basic auth with the key as user name', headers: () => ({ Authorization: `Basic ${Buffer.from(`${t.a.key}:`).toString('base64')}` }) },
  { name: 'Basic auth with the key as password', headers: () => ({ Authorization: `Basic ${Buffer.from(`api:${t.a.key}`).toString('base64')}` }) },
  { name: 'the raw key with the Basic scheme', headers: () => ({ Authorization: `Basic ${t.a.key}` }) },
  { name: 'a wrong prefix (pk_)', headers: () => ({ Authorization: `Bearer pk_${t.a.key.slice(3)}` }) },
  { name: 'the prefix in capitals', headers: () => ({ Authorization: `Bearer SK_${t.a.key.slice(3)}` }) },
  { name: 'no prefix', headers: () => ({ Authorization: `Bearer ${t.a.key.slice(3)}` }) },
  { name: 'one character short', headers: () => ({ Authorization: `Bearer ${t.a.key.slice(0, -1)}` }) },
  { name: 'one character too many', headers: () => ({ Authorization: `Bearer ${t.a.key}A` }) },
  { name: 'one character changed (well-formed)', headers: () => ({ Authorization: `Bearer ${flip(t.a.key, 20)}` }) },
  { name: 'the last character changed (well-formed)', headers: () => ({ Authorization: `Bearer ${flip(t.a.key, t.a.key.length - 1)}` }) },
  { name: 'the key in upper case', headers: () => ({ Authorization: `Bearer ${t.a.key.toUpperCase()}` }) },
  { name: 'a prefix of the key (the part list-keys shows)', headers: () => ({ Authorization: `Bearer ${t.a.key.slice(0, 10)}` }) },
  { name: "the key's SHA-256 (what the database stores)", headers: () => ({ Authorization: `Bearer ${createHashHex(t.a.key)}` }) },
  { name: 'two keys in one header', headers: () => ({ Authorization: `Bearer ${t.a.key} ${t.b.key}` }) },
  { name: 'the key followed by a comma and another', headers: () => ({ Authorization: `Bearer ${t.a.key},${t.b.key}` }) },
  { name: 'an 8 KB key', headers: () => ({ Authorization: `Bearer sk_${'A'.repeat(8 * 1024)}` }) },
  { name: 'the key with percent-encoded bytes', headers: () => ({ Authorization: `Bearer ${t.a.key.slice(0, -3)}%41` }) },
  { name: 'the key in the query string (api_key)', headers: () => ({}), query: () => `?api_key=${t.a.key}` },
  { name: 'the key in the query string (access_token)', headers: () => ({}), query: () => `?access_token=${t.a.key}` },
  { name: 'the key in the query string (key)', headers: () => ({}), query: () => `?key=${t.a.key}` },
  { name: 'the key in an X-API-Key header', headers: () => ({ 'X-API-Key': t.a.key }) },
  { name: 'the key in a cookie', headers: () => ({ Cookie: `api_key=${t.a.key}; token=${t.a.key}` }) },
  { name: 'the key in a Proxy-Authorization header', headers: () => ({ 'Proxy-Authorization': `Bearer ${t.a.key}` }) },
  { name: 'a key revoked by its full value', headers: () => ({ Authorization: `Bearer ${revoked.byKey}` }) },
  { name: 'a key revoked by its prefix', headers: () => ({ Authorization: `Bearer ${revoked.byPrefix}` }) },
  { name: 'a revoked key in lower-case "bearer"', headers: () => ({ Authorization: `bearer ${revoked.byKey}` }) },
];

function createHashHex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function pathOf(operation: SpecOperation): string {
  return apiPath(operation.template, ids);
}

/** A request that would succeed with A's key: the operation's own example body. */
async function send(operation: SpecOperation, headers: Record<string, string>, query = '') {
  const path = `${pathOf(operation)}${query}`;
  const response = await api(t, '', operation.method, path, operation.body?.example, headers);
  refusals += 1;
  return { path, response };
}

async function expectUnauthenticated(operation: SpecOperation, path: string, response: Awaited<ReturnType<typeof api>>) {
  expect(response.status, `${operation.method} ${path}: ${response.text}`).toBe(401);
  expect(response.body).toEqual({ message: 'Unauthenticated.' });
  await assertConforms({
    method: operation.method,
    path,
    status: 401,
    contentType: response.contentType,
    headers: Object.fromEntries(response.headers),
    body: response.body,
  });
}

describe('401 Unauthenticated. on every operation of openapi.yaml', () => {
  it('the live key passes on every operation (so each 401 below is about the credential alone)', async () => {
    // Deletes last, so the records they remove are still there for the others; recreated for the tests below.
    // Switching the acquirer just before them: on Stripe the sandbox's payout test helpers answer 403 by design.
    const rank = (operation: (typeof spec.operations)[number]) => (operation.method === 'DELETE' ? 2 : operation.operationId === 'setAcquirer' ? 1 : 0);
    const operations = [...spec.operations].sort((x, y) => rank(x) - rank(y));
    for (const operation of operations) {
      const response = await api(t, t.a.key, operation.method, pathOf(operation), operation.body?.example);
      expect(response.status, `${operation.operationId}: ${response.text}`).toBe(200);
    }
    ids.payment_link_id = (
      (await api(t, t.a.key, 'POST', '/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' })).body as {
        data: { _id: string };
      }
    ).data._id;
    ids.open_payment_link_id = (
      (await api(t, t.a.key, 'POST', '/api/open-payment-links', { currency: 'MYR', minimum_amount: '10.00', title: 'Donations' })).body as {
        data: { _id: string };
      }
    ).data._id;
    stored = { a: await dbView(t.sql, t.a.business.id), b: await dbView(t.sql, t.b.business.id) };
  });

  describe.each(variants.map((variant) => [variant.name, variant] as const))('%s', (_name, variant) => {
    it("-> 401 with the spec's body on every operation", async () => {
      for (const operation of spec.operations) {
        const { path, response } = await send(operation, variant.headers(), variant.query?.() ?? '');
        await expectUnauthenticated(operation, path, response);
      }
    });
  });

  it('the key of another business is not a bad credential: B is authenticated (as B)', async () => {
    const response = await api(t, t.b.key, 'GET', `/api/payment-links/${ids.payment_link_id}`);
    expect(response.status).toBe(404);
  });

  it("a revoked key's sibling (same business, never revoked) still works", async () => {
    expect((await api(t, revoked.sibling, 'GET', '/api/payment-links')).status).toBe(200);
  });

  it('every refusal is the same body, so nothing tells a revoked key from a mistyped or absent one', async () => {
    const bodies = new Set<string>();
    for (const variant of variants) {
      const response = await api(t, '', 'GET', `/api/payment-links${variant.query?.() ?? ''}`, undefined, variant.headers());
      bodies.add(`${response.status} ${response.text}`);
    }
    expect([...bodies]).toEqual(['401 {"message":"Unauthenticated."}']);
  });

  it('none of the refused requests read, created, changed or deleted anything', async () => {
    expect({ a: await dbView(t.sql, t.a.business.id), b: await dbView(t.sql, t.b.business.id) }).toEqual(stored);
  });
});

describe('header bytes fetch() cannot send', () => {
  /** node:http lets a header carry any octets; a UTF-8 key is sent as its raw bytes. */
  function rawRequest(method: string, path: string, authorization: Buffer): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(`${t.url}${path}`, { method, headers: { Authorization: authorization.toString('latin1') } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it.each([
    ['a key of 43 non-ASCII letters', `Bearer sk_${'é'.repeat(43)}`],
    ['the key with a Cyrillic look-alike letter', () => `Bearer ${t.a.key.replace(/[a-z]/, 'а')}`],
    ['the key with a zero-width space inside', () => `Bearer ${t.a.key.slice(0, 20)}\u200b${t.a.key.slice(20)}`],
    ['the key with a right-to-left override', () => `Bearer \u202e${t.a.key}`],
    ['an emoji key', `Bearer sk_${'🔑'.repeat(22)}`],
  ] as const)('%s -> 401 on every operation', async (_name, value) => {
    const header = Buffer.from(typeof value === 'function' ? value() : value, 'utf8');
    for (const operation of spec.operations) {
      const response = await rawRequest(operation.method, pathOf(operation), header);
      refusals += 1;
      expect(response.status, `${operation.operationId}: ${response.body}`).toBe(401);
      expect(JSON.parse(response.body)).toEqual({ message: 'Unauthenticated.' });
    }
  });
});
