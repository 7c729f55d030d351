// The bench's peer servers stand for "the service's own work behind another framework and validator".
// If a peer skipped validation, the key check, the rate limiter, the request id or the access line,
// or did other work than the service's handlers, the bench would compare the service with something
// cheaper than itself. Each peer runs here on the service's database and is held to the service's
// answers and headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startChild, type ChildService } from '../support/child.js';
import { useService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

const VALID = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1001', reference: 'INV-1001' };
const INVALID = [
  { ...VALID, amount: 499 },
  { ...VALID, email: 'not an e-mail' },
  { ...VALID, title: undefined },
  { ...VALID, currency: 'ZZZ' },
  { ...VALID, redirect_url: 'javascript:alert(1)' },
];

const t = useService();

/** A link as the service shows it, but for the base URL each server puts in payment_url. */
const comparable = (link: Record<string, unknown>) => ({ ...link, payment_url: String(link.payment_url).replace(/^https?:\/\/[^/]+/, '') });

describe.each(['express', 'fastify'])('the %s peer of the bench', (peer) => {
  let server: ChildService;
  let headers: Record<string, string>;
  beforeAll(async () => {
    server = await startChild({ DATABASE_URL: t.databaseUrl }, await freePort(), `scripts/bench/peer-${peer}.ts`);
    headers = { authorization: `Bearer ${t.a.key}`, 'content-type': 'application/json', accept: 'application/json' };
  }, 60_000);
  afterAll(async () => {
    await server?.kill('SIGKILL');
  });

  it('creates, reads and lists through the service handlers, store and database', async () => {
    const created = await fetch(`${server.url}/api/payment-links`, { method: 'POST', headers, body: JSON.stringify(VALID) });
    expect(created.status).toBe(200);
    const link = ((await created.json()) as { data: Record<string, unknown> }).data;
    // The service itself finds what the peer wrote, field for field.
    const { data: seen } = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: String(link._id) } } });
    expect(comparable(link)).toEqual(comparable(seen!.data as unknown as Record<string, unknown>));

    const fetched = await fetch(`${server.url}/api/payment-links/${String(link._id)}`, { headers });
    expect(fetched.status).toBe(200);
    expect(comparable(((await fetched.json()) as { data: Record<string, unknown> }).data)).toEqual(comparable(link));
    const listed = await fetch(`${server.url}/api/payment-links`, { headers });
    expect(listed.status).toBe(200);
    const page = ((await listed.json()) as { data: { total: number; data: { _id: string }[] } }).data;
    expect(page.data.map((row) => row._id)).toContain(link._id);
    expect(page.total).toBe(page.data.length);
  });

  it('checks the API key as the service does', async () => {
    const anonymous = await fetch(`${server.url}/api/payment-links`, { headers: { accept: 'application/json' } });
    expect(anonymous.status).toBe(401);
    const wrong = await fetch(`${server.url}/api/payment-links`, { headers: { ...headers, authorization: `Bearer sk_${'x'.repeat(43)}` } });
    expect(wrong.status).toBe(401);
    // Another business's key sees another business's links.
    const other = await fetch(`${server.url}/api/payment-links`, { headers: { ...headers, authorization: `Bearer ${t.b.key}` } });
    expect(((await other.json()) as { data: { total: number } }).data.total).toBe(0);
  });

  it('does the per-request work the service does: request id, rate limit, access line, Idempotency-Key', async () => {
    const requestId = `peer-${peer}-1`;
    const listed = await fetch(`${server.url}/api/payment-links`, { headers: { ...headers, 'x-request-id': requestId } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-request-id')).toBe(requestId);
    expect(listed.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(listed.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
    const generated = await fetch(`${server.url}/api/payment-links`, { headers: { ...headers, 'x-request-id': 'not "usable"' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    // One access line with the service's fields, through the service's logger, which writes no key.
    const linesOf = () =>
      server
        .output()
        .split('\n')
        .filter((line) => line.includes(`"request_id":"${requestId}"`))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const lines = await waitFor('the access line', () => linesOf().length > 0 && linesOf());
    expect(lines).toEqual([
      expect.objectContaining({
        service: 'payment-collection',
        msg: 'request',
        method: 'GET',
        status: 200,
        business_id: expect.any(Number),
        duration_ms: expect.any(Number),
      }),
    ]);
    expect(server.output()).not.toContain(t.a.key);

    const keyed = { ...headers, 'idempotency-key': `peer-${peer}-key` };
    const first = await fetch(`${server.url}/api/payment-links`, { method: 'POST', headers: keyed, body: JSON.stringify(VALID) });
    const again = await fetch(`${server.url}/api/payment-links`, { method: 'POST', headers: keyed, body: JSON.stringify(VALID) });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });

  it('refuses what openapi.yaml refuses, before any work', async () => {
    const { data: before } = await t.a.client.GET('/payment-links');
    for (const body of INVALID) {
      const response = await fetch(`${server.url}/api/payment-links`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    const { data: after } = await t.a.client.GET('/payment-links');
    expect(after!.data.total).toBe(before!.data.total);
  });
});
