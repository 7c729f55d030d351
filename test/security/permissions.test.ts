// Every operation of openapi.yaml x every role's permissions, and a narrow restricted key: a caller is
// refused (403 naming the permission, before anything is read) exactly the operations whose
// x-permission it lacks, and let through the rest. Members of each role are stood in for by
// restricted keys holding exactly the role's permissions: the router checks the caller's permissions
// alone, whoever the caller is.
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES, ROLE_PERMISSIONS, type Permission } from '../../server/domain/permissions.js';
import { loadContract } from '../../server/http/contract.js';
import { assertConforms } from '../support/contract.js';
import { useService } from '../support/service.js';
import { api, oneOfEach } from './fixture.js';
import { apiPath, loadSpec, type SpecOperation } from './spec.js';

const t = useService();
const ids: Record<string, string> = {};
let operations: SpecOperation[];
let required: Map<string, string>;

async function restrictedKey(permissions: readonly Permission[]): Promise<string> {
  const made = await api(t, t.a.key, 'POST', '/api/api-keys', { name: 'Stand-in', permissions });
  expect(made.status, made.text).toBe(200);
  const secret = (made.body as { data: { secret: string } }).data.secret;
  expect(secret).toMatch(/^rk_/);
  return secret;
}

beforeAll(async () => {
  operations = (await loadSpec()).operations;
  required = new Map((await loadContract()).operations.map((operation) => [operation.operationId, operation.permission]));
  Object.assign(ids, await oneOfEach(t));
});

const holders: [string, readonly Permission[]][] = [
  ...ROLES.map((role) => [`role ${role}`, ROLE_PERMISSIONS[role]] as [string, readonly Permission[]]),
  ['a key restricted to payments:read', ['payments:read']],
];

describe('each operation refuses exactly the callers without its x-permission', () => {
  it.each(holders)('%s', async (_name, permissions) => {
    const key = await restrictedKey(permissions);
    const held = new Set<string>(permissions);
    const wrong: string[] = [];
    for (const operation of operations) {
      const permission = required.get(operation.operationId)!;
      const path = apiPath(operation.template, ids);
      const response = await api(t, key, operation.method, path, operation.body?.example);
      const refusable = permission !== 'public' && permission !== 'authenticated';
      if (refusable && !held.has(permission)) {
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
