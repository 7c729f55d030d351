// Every operation of openapi.yaml x every role, and a narrow restricted key: a caller is refused (403
// naming the permission, before anything is read) exactly the operations whose x-permission it lacks,
// and let through the rest. Each role is a real member signed in with the session cookie (so the
// team and settings operations only members may call are covered too); the restricted key calls
// the operations a key may call.
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS, ROLES, type Permission, type Role } from '../../server/domain/permissions.js';
import { loadContract } from '../../server/http/contract.js';
import { assertConforms } from '../support/contract.js';
import { member, signIn } from '../support/members.js';
import { raw, useService } from '../support/service.js';
import { api, oneOfEach, teamRecords } from './fixture.js';
import { apiPath, loadSpec, type SpecOperation } from './spec.js';

const t = useService();
const ids: Record<string, string> = {};
let required: Map<string, string>;

async function restrictedKey(permissions: readonly Permission[]): Promise<string> {
  const made = await api(t, t.a.key, 'POST', '/api/api-keys', { name: 'Stand-in', permissions });
  expect(made.status, made.text).toBe(200);
  const secret = (made.body as { data: { secret: string } }).data.secret;
  expect(secret).toMatch(/^rk_/);
  return secret;
}

beforeAll(async () => {
  required = new Map((await loadContract()).operations.map((operation) => [operation.operationId, operation.permission]));
  Object.assign(ids, await oneOfEach(t), await teamRecords(t));
});

// Bodies that would change how the members of this test sign in are sent as harmless ones.
const BODIES: Record<string, unknown> = { updateTeamSettings: { require_two_factor: false } };

/** Calls every operation that needs a permission as `send` does; the problems found, by operation. */
async function refusalsOf(
  operations: SpecOperation[],
  held: ReadonlySet<string>,
  send: (operation: SpecOperation, path: string, body: unknown) => Promise<Awaited<ReturnType<typeof raw>>>,
): Promise<string[]> {
  const wrong: string[] = [];
  let checked = 0;
  // On the sandbox, where its payout test helpers work; setting the acquirer (to Stripe, by its example) comes last.
  await t.sql('businesses').where({ id: t.a.business.id }).update({ provider: 'sandbox' });
  const lastly = (operation: SpecOperation) => Number(operation.operationId === 'setAcquirer');
  for (const operation of [...operations].sort((x, y) => lastly(x) - lastly(y))) {
    const permission = required.get(operation.operationId)!;
    // Operations open to any caller (signing out, one's own sessions) refuse nobody for a permission.
    if (permission === 'public' || permission === 'authenticated') continue;
    checked += 1;
    const path = apiPath(operation.template, ids);
    const response = await send(operation, path, BODIES[operation.operationId] ?? operation.body?.example);
    if (!held.has(permission)) {
      if (response.status !== 403) wrong.push(`${operation.operationId}: ${response.status}, expected 403 for lacking ${permission}`);
      else {
        expect(response.body).toEqual({ message: `This key or role lacks the ${permission} permission.`, required_permission: permission });
        await assertConforms({
          method: operation.method,
          path,
          status: 403,
          contentType: response.contentType,
          headers: Object.fromEntries(response.headers),
          body: response.body,
        });
      }
    } else if (response.status === 403) {
      wrong.push(`${operation.operationId}: 403 although ${permission} is held: ${response.text}`);
    }
  }
  expect(checked).toBeGreaterThan(40);
  return wrong;
}

describe('each operation refuses exactly the callers without its x-permission', () => {
  it.each(ROLES.map((role) => [role]))('a member whose role is %s, signed in', async (role: Role) => {
    const session = await signIn(t, (await member(t, t.a.business.id, role)).email);
    const held = new Set<string>(session.me.permissions as string[]);
    expect([...held].sort()).toEqual([...ROLE_PERMISSIONS[role]].sort());
    const operations = (await loadSpec({ members: true })).operations;
    expect(operations.map((operation) => operation.operationId)).toContain('updateTeamMember');
    const wrong = await refusalsOf(operations, held, (operation, path, body) =>
      raw(`${t.url}${path}`, {
        method: operation.method,
        headers: {
          Cookie: `pcs_session=${session.cookie}`,
          'X-CSRF-Token': session.csrf,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('a key restricted to payments:read', async () => {
    const key = await restrictedKey(['payments:read']);
    const wrong = await refusalsOf((await loadSpec()).operations, new Set(['payments:read']), (operation, path, body) =>
      api(t, key, operation.method, path, body),
    );
    expect(wrong).toEqual([]);
  });
});

describe('the payments export', () => {
  it('needs exports:read besides payments:read; JSON does not', async () => {
    const reader = await restrictedKey(['payments:read']);
    const exporter = await restrictedKey(['payments:read', 'exports:read']);
    const csv = { Accept: 'text/csv' };
    const refused = await api(t, reader, 'GET', '/api/payments', undefined, csv);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'This key or role lacks the exports:read permission.', required_permission: 'exports:read' });
    expect((await api(t, reader, 'GET', '/api/payments')).status).toBe(200);
    const exported = await api(t, exporter, 'GET', '/api/payments', undefined, csv);
    expect(exported.status).toBe(200);
    expect(exported.contentType).toMatch(/^text\/csv/);
  });

  it('a refusal comes before the body is read: a broken body to an operation the key lacks is 403, not 400', async () => {
    const reader = await restrictedKey(['payments:read']);
    const response = await api(t, reader, 'POST', '/api/payment-links', undefined, { 'Content-Type': 'application/json' });
    const broken = await fetch(`${t.url}/api/payment-links`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${reader}`, 'Content-Type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(403);
    expect(broken.status).toBe(403);
  });
});
