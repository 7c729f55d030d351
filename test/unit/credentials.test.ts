// The gate takes from each operation's `security` which credentials it accepts, and refuses the other
// kind with 403 naming the one it takes: a key on a session-only operation (the team's), and, the
// reverse, a member's session on a key-only operation (none in openapi.yaml today, so one is made
// here from getPayment), before any handler runs.
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { Document } from 'openapi-backend';
import { afterEach, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../server/domain/permissions.js';
import { createHttpApp, type Caller } from '../../server/http/app.js';
import { loadContract, readSpecDocument } from '../../server/http/contract.js';
import type { Handlers } from '../../server/http/operations.js';
import type { Scopes } from '../../server/http/routes.js';
import { silentLogger } from '../../server/logger.js';
import { MemoryRateLimiter } from '../../server/rate-limits/backends.js';
import { csrfTokenOf } from '../../server/domain/sessions.js';

type Operations = Record<string, Record<string, Record<string, unknown>>>;

const SESSION = 'a'.repeat(43);
const caller = (kind: 'key' | 'session'): Caller => ({
  business: { id: 1, name: 'Test' },
  actor: kind === 'key' ? { kind: 'api_key', id: 'f'.repeat(24), name: 'key' } : { kind: 'user', id: 'e'.repeat(24), email: 'm@example.com' },
  permissions: new Set(PERMISSIONS),
  rateKey: kind,
});

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** The gate and router over openapi.yaml with getPayment made key-only; every handler answers 200 with what it was asked. */
async function serve(): Promise<string> {
  const document = structuredClone(readSpecDocument()) as unknown as { paths: Operations };
  const getPayment = Object.values(document.paths)
    .flatMap((item) => Object.values(item))
    .find((operation) => operation.operationId === 'getPayment')!;
  getPayment.security = [{ bearerAuth: [] }];
  const contract = await loadContract(document as unknown as Document);
  const handlers = Object.fromEntries(
    contract.operations.map((operation) => [operation.operationId, { handle: async () => ({ status: 200, body: { reached: operation.operationId } }) }]),
  ) as unknown as Handlers<null>;
  const scopes: Scopes<null> = {
    plain: null,
    idempotent: async (_r, _t, work) => ({ kind: 'ran', reply: await work(null) }),
    write: async (_t, _a, work) => work(null),
    settle: async () => {},
  };
  const app = createHttpApp({
    contract,
    handlers,
    scopes,
    pages: async (ctx) => void (ctx.status = 404),
    findCaller: async () => caller('key'),
    findSession: async (token) => (token === SESSION ? caller('session') : undefined),
    publicUrl: 'http://127.0.0.1',
    limiter: new MemoryRateLimiter(1_000_000),
    logger: silentLogger(),
    dependencies: { database: async () => {} },
    draining: () => false,
  });
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('credentials per operation', () => {
  it('refuses a key on a session-only operation and a session on a key-only one (403 naming the one it takes); each takes its own', async () => {
    const url = await serve();
    const withKey = { Authorization: `Bearer sk_${'k'.repeat(43)}` };
    const withSession = { Cookie: `pcs_session=${SESSION}`, 'X-CSRF-Token': csrfTokenOf(SESSION) };

    const keyOnTeam = await fetch(`${url}/api/team/members`, { headers: withKey });
    expect(keyOnTeam.status).toBe(403);
    expect(await keyOnTeam.json()).toMatchObject({ required_credential: 'session' });
    const sessionOnTeam = await fetch(`${url}/api/team/members`, { headers: withSession });
    expect(await sessionOnTeam.json()).toEqual({ reached: 'listTeamMembers' });

    const sessionOnKeyOnly = await fetch(`${url}/api/payments/${'0'.repeat(24)}`, { headers: withSession });
    expect(sessionOnKeyOnly.status).toBe(403);
    expect(await sessionOnKeyOnly.json()).toEqual({ message: 'This operation takes an API key, not a signed-in session.', required_credential: 'api_key' });
    const keyOnKeyOnly = await fetch(`${url}/api/payments/${'0'.repeat(24)}`, { headers: withKey });
    expect(await keyOnKeyOnly.json()).toEqual({ reached: 'getPayment' });

    // Both take both where the document's default security stands.
    for (const headers of [withKey, withSession]) expect(await (await fetch(`${url}/api/payments`, { headers })).json()).toEqual({ reached: 'listPayments' });
  });
});
