// Operability: every request gets an id (the caller's X-Request-Id when usable) that comes back on the
// response and is on its log lines; one JSON access line per request names the route template; and
// nothing sensitive (API keys, card numbers, CVCs, activation tokens) is ever written, even when an
// error message carries it.
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { revokeKey } from '../../server/store/api-keys.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import type { AuthorizeRequest } from '../../server/acquirers/acquirer.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { raw, useService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

const PAYER_EMAIL = 'leaky.payer@example.com';
const RESTRICTED_KEY = 'rk_live_51H8xYzAbCdEfGhIjKlMnOpQrSt';

/** An acquirer whose outage message quotes the card, the payer's address and its key, as badly written SDKs do. */
class LeakyProvider extends SandboxAcquirer {
  override async authorize(request: AuthorizeRequest) {
    if (request.card.number.startsWith('5555'))
      throw new Error(`acquirer unreachable while charging ${request.card.number} (cvc: ${request.card.cvc}) for <${PAYER_EMAIL}> with ${RESTRICTED_KEY}`);
    return super.authorize(request);
  }
}

const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});
const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const accessLines = () => records().filter((record) => record.msg === 'request');

const secrets: string[] = [];
const t = useService({ logger: createLogger({ level: 'info', destination: capture }), provider: new LeakyProvider() });
beforeAll(async () => {
  secrets.push(t.a.key, t.b.key);
});

describe('request ids', () => {
  it('echoes a usable X-Request-Id and puts it on the access line', async () => {
    const response = await raw(`${t.apiUrl}/payment-links`, { key: t.a.key, headers: { 'x-request-id': 'merchant-7f3a:retry.2' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('merchant-7f3a:retry.2');
    const line = await waitFor('the access line', () => accessLines().find((record) => record.request_id === 'merchant-7f3a:retry.2'));
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '/api/payment-links', status: 200, business_id: t.a.business.id });
    expect(typeof line.duration_ms).toBe('number');
    expect(typeof line.time).toBe('string');
  });

  it('replaces an unusable one (control characters, quotes, too long) with a UUID', async () => {
    for (const sent of ['bad id with spaces', 'x"}{"level":60', 'a'.repeat(129)]) {
      const response = await raw(`${t.apiUrl}/payment-links`, { key: t.a.key, headers: { 'x-request-id': sent } });
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(lines.some((line) => line.includes('"level":60'))).toBe(false);
  });

  it('gives every response its own id, on errors and pages too', async () => {
    const responses = await Promise.all([
      raw(`${t.apiUrl}/payment-links/0123456789abcdef01234567`, { key: t.a.key }),
      raw(`${t.apiUrl}/payment-links`, { key: 'sk_not_a_key' }),
      raw(`${t.url}/payment/pay?id=0123456789abcdef01234567`),
      raw(`${t.url}/health`),
    ]);
    expect(responses.map((response) => response.status)).toEqual([404, 401, 404, 200]);
    const ids = responses.map((response) => response.headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toBeTruthy();
  });
});

describe('access lines', () => {
  it('name the route template, never the raw path or query', async () => {
    const created = await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Logged' } });
    const id = created.data!.data._id;
    await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
    await raw(`${t.apiUrl}/payment-links?filter%5Bemail%5D=secret-payer%40example.com`, { key: t.a.key });
    const token = await t.a.client.POST('/tokenizations/create-token', { body: { email: 'card@example.com', title: 'Card', description: 'Plan' } });
    const activation = new URL(token.data!.data.activation_url);
    await raw(activation.toString());
    await waitFor('the lines', () => accessLines().some((record) => record.route === '/tokenization/activation/:token'));
    const routes = accessLines().map((record) => `${record.method} ${record.route} ${record.status}`);
    expect(routes).toContain('POST /api/payment-links 200');
    expect(routes).toContain('GET /api/payment-links/{payment_link_id} 200');
    expect(routes).toContain('GET /tokenization/activation/:token 200');
    const text = lines.join('\n');
    expect(text).not.toContain(id);
    expect(text).not.toContain('secret-payer');
    expect(text).not.toContain(activation.pathname.split('/').pop()!);
  });

  it('count answers the app gives before routing (unknown paths, 405) with a null route', async () => {
    const response = await raw(`${t.url}/no/such/page`);
    expect(response.status).toBe(404);
    await waitFor('the line', () => accessLines().find((record) => record.request_id === response.headers.get('x-request-id')));
    expect(accessLines().find((record) => record.request_id === response.headers.get('x-request-id'))).toMatchObject({ route: null, status: 404 });
  });
});

describe('nothing sensitive is logged', () => {
  it('keys, card numbers, CVCs and e-mail addresses stay out of every line, including a 500 whose error quotes them', async () => {
    const revoked = t.b.key;
    await revokeKey(t.service.db, revoked);
    await raw(`${t.apiUrl}/payment-links`, { key: revoked });
    await raw(`${t.apiUrl}/payment-links`, { key: `${t.a.key}x` });
    await raw(`${t.apiUrl}/payment-links`, { headers: { authorization: `Basic ${Buffer.from(`${t.a.key}:`).toString('base64')}` } });

    const link = await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 2500, title: 'Card logged?' } });
    const url = new URL(link.data!.data.payment_url);
    const declined = new Payer(t.url);
    const form = await declined.open(url.pathname + url.search);
    const leaky = await declined.submit(form, { name: 'Leaky', card_number: '5555 5555 5555 4444', expiry: '12/39', cvc: '987' });
    expect(leaky.status, leaky.html).toBe(500);
    const payer = new Payer(t.url);
    const again = await payer.open(url.pathname + url.search);
    const paid = await payer.submit(again, { name: 'Paying', ...GOOD_CARD });
    expect(paid.status).toBe(303);

    const failure = await waitFor('the error line', () => records().find((record) => record.msg === 'request failed'));
    expect(failure).toMatchObject({ level: 50, err: { message: expect.stringContaining('[card number redacted]') } });
    expect(JSON.stringify(failure)).toContain('cvc: [redacted]');
    expect(JSON.stringify(failure)).toContain('for <l***@example.com> with rk_[redacted]');

    const text = lines.join('\n');
    for (const secret of [...secrets, `${t.a.key}x`, RESTRICTED_KEY, PAYER_EMAIL]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/sk_[A-Za-z0-9_-]{20,}/);
    for (const number of ['5555555555554444', '5555 5555 5555 4444', '4242424242424242', '4242 4242 4242 4242']) expect(text).not.toContain(number);
    // The CVC as a value of its own (not inside a request id, a duration or a timestamp), or next to its name.
    expect(text).not.toMatch(/(?<![\w.:-])987(?!\w)/);
    expect(text).not.toMatch(/cvc\W{0,4}\d{3,4}/i);
    expect(text).not.toMatch(/authorization|cookie/i);
  });
});
