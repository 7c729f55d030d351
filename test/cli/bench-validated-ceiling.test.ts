// The bench's validated ceiling stands for "the bare ceiling plus the contract's validation and
// nothing else". If it stopped validating, the bench would report validation as free; if it answered
// anything but the captured envelopes, it would be measuring other work. Both are checked here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startChild, type ChildService } from '../support/child.js';

const bodies = {
  create: { success: true, data: { _id: 'created' }, errors: null },
  get: { success: true, data: { _id: 'fetched' }, errors: null },
  list: { success: true, data: { current_page: 1, data: [] }, errors: null },
};
const VALID = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1001' };
const headers = { 'content-type': 'application/json', accept: 'application/json' };

let dir: string;
let server: ChildService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'validated-ceiling-'));
  const bodiesFile = join(dir, 'bodies.json');
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  server = await startChild({ CEILING_BODIES: bodiesFile }, await freePort(), 'scripts/bench/validated-ceiling.ts');
});

afterAll(async () => {
  await server?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const post = (body: unknown) => fetch(`${server.url}/api/payment-links`, { method: 'POST', headers, body: JSON.stringify(body) });

describe('the validated ceiling of the bench', () => {
  it('answers the three measured requests with the captured envelopes', async () => {
    const created = await post(VALID);
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual(bodies.create);
    const fetched = await fetch(`${server.url}/api/payment-links/6284ff16d4b1c2a3e4f50003`, { headers });
    expect(fetched.status).toBe(200);
    expect(await fetched.json()).toEqual(bodies.get);
    const listed = await fetch(`${server.url}/api/payment-links`, { headers });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual(bodies.list);
  });

  it('validates bodies against openapi.yaml', async () => {
    for (const body of [
      { ...VALID, amount: 499 },
      { ...VALID, email: 'not an e-mail' },
      { ...VALID, title: undefined },
      { ...VALID, currency: 'XXQ' },
    ]) {
      expect((await post(body)).status, JSON.stringify(body)).toBe(422);
    }
  });

  it('validates query parameters and routes as the service does', async () => {
    expect((await fetch(`${server.url}/api/payment-links?per_page=abc`, { headers })).status).toBe(422);
    expect((await fetch(`${server.url}/api/payment-links?no_such_filter=1`, { headers })).status).toBe(422);
    expect((await fetch(`${server.url}/api/no-such-resource`, { headers })).status).toBe(404);
    expect((await fetch(`${server.url}/api/payment-links`, { method: 'PATCH', headers })).status).toBe(405);
  });
});
