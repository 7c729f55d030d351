// ASVS 8.2.1: API answers carry secrets (a new key's secret, a two-factor secret, recovery codes, the
// CSRF token of /auth/me), so every answer under /api says `Cache-Control: no-store`, errors included.
// Every operation of openapi.yaml is called as its contract says (with the key, as a signed-in owner,
// or by anyone), with its own example body and real records; then each error the gate and the router
// answer. An operation whose contract declares its own Cache-Control (a QR code) is held to that.
import { beforeAll, describe, expect, it } from 'vitest';
import { dereferencedSpec } from '../support/contract.js';
import { createSetupLink } from '../../server/usecases/members/accounts.js';
import { PASSWORD, member, signIn } from '../support/members.js';
import { mailTo } from '../support/member-mail.js';
import { raw, useService } from '../support/service.js';
import { api, oneOfEach, teamRecords } from './fixture.js';
import { HTTP_METHODS, apiPath } from './spec.js';

interface Operation {
  operationId: string;
  method: string;
  template: string;
  caller: 'key' | 'session' | 'anyone';
  body: unknown;
  /** The Cache-Control each status declares, where one does. */
  declared: Record<string, string>;
}

interface RawOperation {
  operationId: string;
  security?: Record<string, unknown>[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses: Record<string, { headers?: Record<string, { schema?: { enum?: string[] } }> }>;
}

async function contractOperations(): Promise<Operation[]> {
  const document = (await dereferencedSpec()) as { security: Record<string, unknown>[]; paths: Record<string, Record<string, RawOperation>> };
  return Object.entries(document.paths).flatMap(([template, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item[method.toLowerCase()];
      if (!operation) return [];
      const security = operation.security ?? document.security;
      const caller = security.length === 0 ? 'anyone' : security.some((entry) => 'bearerAuth' in entry) ? 'key' : 'session';
      const declared = Object.fromEntries(
        Object.entries(operation.responses).flatMap(([status, response]) => {
          const values = response.headers?.['Cache-Control']?.schema?.enum;
          return values ? [[status, values.join(', ')]] : [];
        }),
      );
      return [{ operationId: operation.operationId, method, template, caller, body: operation.requestBody?.content?.['application/json']?.example, declared }];
    }),
  );
}

const t = useService();
const ids: Record<string, string> = {};
// Requiring two-factor would stop the owners this test signs in next; the setting is sent as it is.
const BODIES: Record<string, unknown> = { updateTeamSettings: { require_two_factor: false } };

beforeAll(async () => {
  Object.assign(ids, await oneOfEach(t), await teamRecords(t));
  // Sign-in, and the one-time account links, with a member and links that exist.
  BODIES.login = { email: (await member(t, t.a.business.id, 'viewer')).email, password: PASSWORD };
  const linkToken = async (email: string) => {
    const url = new URL(await createSetupLink(t.service.context, { businessId: t.a.business.id, email, role: 'viewer' }));
    return url.searchParams.get('token') ?? url.pathname.split('/').pop()!;
  };
  BODIES.openAccountLink = { token: await linkToken('opened@example.com') };
  const password = 'velvet-canyon-drum-77';
  BODIES.acceptAccountLink = { token: await linkToken('accepted@example.com'), name: 'Vera Viewer', password, password_confirmation: password };
  // A password reset: the link e-mailed to a member, opened and then used.
  const resetting = (await member(t, t.a.business.id, 'viewer')).email;
  expect((await raw(`${t.url}/api/auth/password-resets`, { method: 'POST', ...jsonBody({ email: resetting }) })).status).toBe(202);
  const mail = await mailTo(t, resetting, 'Reset your password');
  const resetToken = /\/console\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text!)![1]!;
  BODIES.openPasswordReset = { token: resetToken };
  BODIES.completePasswordReset = { token: resetToken, password: 'amber-lantern-sky-58', password_confirmation: 'amber-lantern-sky-58' };
});

const jsonBody = (body: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

let owner: { cookie: string; csrf: string } | undefined;

/**
 * The answer to one operation, called as its contract says; a member's own operations by a signed-in
 * owner, signed in again whenever an operation ended the session (signing out, a new password).
 */
async function callAsContracted(operation: Operation) {
  const headers: Record<string, string> = {};
  const values = { ...ids };
  const body = BODIES[operation.operationId] ?? operation.body;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (operation.caller === 'key') headers.Authorization = `Bearer ${t.a.key}`;
  if (operation.caller === 'session') {
    owner ??= await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
    Object.assign(headers, { Cookie: `pcs_session=${owner.cookie}`, 'X-CSRF-Token': owner.csrf });
    if (operation.template.includes('{session_id}')) {
      const sessions = await raw(`${t.url}/api/auth/sessions`, { headers: { Cookie: `pcs_session=${owner.cookie}` } });
      values.session_id = (sessions.body as { data: { _id: string }[] }).data[0]!._id;
    }
  }
  const answer = await raw(`${t.url}${apiPath(operation.template, values)}`, {
    method: operation.method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (owner && (await raw(`${t.url}/api/auth/me`, { headers: { Cookie: `pcs_session=${owner.cookie}` } })).status !== 200) owner = undefined;
  return answer;
}

describe('Cache-Control on every operation of openapi.yaml', () => {
  it('each answers no-store, or the caching its contract declares', async () => {
    // Deletions last, so the operations on a record find it; switching the acquirer just before them, since
    // on Stripe the sandbox's payout test helpers answer 403 by design.
    const rank = (operation: { method: string; operationId: string }) => (operation.method === 'DELETE' ? 2 : operation.operationId === 'setAcquirer' ? 1 : 0);
    const operations = (await contractOperations()).sort((a, b) => rank(a) - rank(b));
    expect(operations.length).toBeGreaterThan(60);
    expect(new Set(operations.map((operation) => operation.caller))).toEqual(new Set(['key', 'session', 'anyone']));
    const wrong: string[] = [];
    const refused: string[] = [];
    for (const operation of operations) {
      const answer = await callAsContracted(operation);
      const expected = operation.declared[String(answer.status)] ?? 'no-store';
      const got = answer.headers.get('cache-control');
      if (got !== expected) wrong.push(`${operation.operationId} -> ${answer.status}: Cache-Control ${got}, expected ${expected}`);
      if (answer.status >= 300) refused.push(`${operation.operationId} -> ${answer.status}`);
    }
    expect(wrong).toEqual([]);
    // Each succeeded (the refusals are checked below), but the three that need an authenticator's code.
    expect(refused.filter((answer) => !/^(confirmTotp|disableTotp|regenerateRecoveryCodes) /.test(answer))).toEqual([]);
  }, 120_000);
});

describe('Cache-Control: no-store on the answers the gate and the router give', () => {
  const url = (path: string) => `${t.url}/api${path}`;
  const json = (body: unknown) => ({ 'Content-Type': 'application/json', body: JSON.stringify(body) });

  it.each([
    [
      '400, a body that is not JSON',
      400,
      () => raw(url('/payment-links'), { key: t.a.key, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' }),
    ],
    ['401, no key', 401, () => raw(url('/payment-links'))],
    ['401, an unknown key', 401, () => raw(url('/payment-links'), { key: `sk_${'x'.repeat(43)}` })],
    ['404, an unknown path', 404, () => raw(url('/nothing-here'), { key: t.a.key })],
    ['404, an unknown record', 404, () => raw(url('/payment-links/000000000000000000000000'), { key: t.a.key })],
    ['405, a method the path does not take', 405, () => raw(url('/payment-links'), { key: t.a.key, method: 'PATCH' })],
    [
      '413, a body over 1 MiB',
      413,
      () =>
        raw(url('/payment-links'), { key: t.a.key, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: `"${'a'.repeat(1024 * 1024 + 1)}"` }),
    ],
    ['414, a query string over 4096 bytes', 414, () => raw(url(`/payment-links?${'a'.repeat(5000)}=1`), { key: t.a.key })],
    [
      '415, a body that is not JSON by its type',
      415,
      () => raw(url('/payment-links'), { key: t.a.key, method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' }),
    ],
    [
      '422, an invalid body',
      422,
      () => raw(url('/payment-links'), { key: t.a.key, method: 'POST', headers: { 'Content-Type': 'application/json' }, ...json({}) }),
    ],
  ])('%s', async (_name, status, send) => {
    const answer = await send();
    expect(answer.status, answer.text).toBe(status);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('403, a key without the permission, and a session without its CSRF token', async () => {
    const made = await api(t, t.a.key, 'POST', '/api/api-keys', { name: 'Reader', permissions: ['payments:read'] });
    const reader = (made.body as { data: { secret: string } }).data.secret;
    const refused = await raw(url('/payment-links'), { key: reader });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
    const forged = await raw(url('/team/invitations'), {
      method: 'POST',
      headers: { Cookie: `pcs_session=${owner.cookie}` },
      ...json({ email: 'x@example.com', role: 'viewer' }),
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('cache-control')).toBe('no-store');
  });

  it('500, a failing database', async () => {
    await t.sql.schema.renameTable('payment_links', 'payment_links_hidden');
    try {
      const failed = await raw(url('/payment-links'), { key: t.a.key });
      expect(failed.status).toBe(500);
      expect(failed.headers.get('cache-control')).toBe('no-store');
    } finally {
      await t.sql.schema.renameTable('payment_links_hidden', 'payment_links');
    }
  });

  it('HEAD answers as its GET does', async () => {
    const head = await raw(url('/auth/me'), { method: 'HEAD' });
    expect(head.status).toBe(401);
    expect(head.headers.get('cache-control')).toBe('no-store');
  });

  it('not outside /api: the payer pages, the console and the reference keep their own caching', async () => {
    expect((await raw(`${t.url}/openapi.yaml`)).headers.get('cache-control')).toBeNull();
    expect((await raw(`${t.url}/health`)).headers.get('cache-control')).toBe('no-store');
    expect((await raw(`${t.url}/assets/brand/1f5eff.css`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});

describe('Cache-Control: no-store on 429', () => {
  const limited = useService({ rateLimit: { perSecond: 2 } });

  it('past the rate limit', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => raw(`${limited.apiUrl}/payment-links`, { key: limited.a.key })));
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of answers) expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});
