// /api/api-keys: a business makes full and restricted keys, lists them without their secrets and
// revokes them; a key hands on no power its maker lacks, and only a signed-in owner makes full keys;
// revoked and expired keys are refused; keys made with the CLI (and before permissions existed) keep
// every permission. Keys bound to the members who made them: test/security/takeover.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { PERMISSIONS } from '../../server/domain/permissions.js';
import { findCallerByKey, hashKey, issueKey, isWellFormedKey } from '../../server/store/api-keys.js';
import { CallerCache } from '../../server/store/api-key-cache.js';
import { PASSWORD, call as memberCall, member, signIn } from '../support/members.js';
import { raw, useService } from '../support/service.js';
import { sleep } from '../support/wait.js';

const t = useService();

async function call(key: string, method: string, path: string, body?: unknown) {
  return raw(`${t.url}/api${path}`, {
    key,
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

interface Made {
  _id: string;
  secret: string;
  prefix: string;
  last_four: string;
  permissions: string[] | null;
  created_by: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

async function make(key: string, body: Record<string, unknown>): Promise<Made> {
  const response = await call(key, 'POST', '/api-keys', body);
  expect(response.status, response.text).toBe(200);
  return (response.body as { data: Made }).data;
}

/** A full key of business A, as the operator's CLI makes it. */
async function fullKey(): Promise<{ secret: string; _id: string }> {
  const issued = await issueKey(t.service.db, t.a.business.id, { createdBy: 'cli' });
  return { secret: issued.key, _id: issued.record._id };
}

describe('making keys', () => {
  it('a full key (sk_) without permissions, a restricted key (rk_) with them; the secret is shown in that answer only', async () => {
    const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email, PASSWORD);
    const madeFull = await memberCall(t, 'POST', '/api/api-keys', { cookie: owner.cookie, csrf: owner.csrf, body: { name: 'Back office' } });
    expect(madeFull.status).toBe(200);
    const full = madeFull.body.data as Made;
    expect(full.secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(full.permissions).toBeNull();
    const restricted = await make(t.a.key, { name: 'Reports', permissions: ['payments:read', 'exports:read'] });
    expect(restricted.secret).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    expect(isWellFormedKey(restricted.secret)).toBe(true);
    expect(restricted.prefix).toBe(restricted.secret.slice(0, 10));
    expect(restricted.last_four).toBe(restricted.secret.slice(-4));
    expect(restricted.permissions).toEqual(['payments:read', 'exports:read']);

    const listed = await call(t.a.key, 'GET', '/api-keys');
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(restricted.secret);
    expect(listed.text).not.toContain(hashKey(restricted.secret));
    const entry = (listed.body as { data: Record<string, unknown>[] }).data.find((key) => key._id === restricted._id)!;
    expect(entry).toMatchObject({
      name: 'Reports',
      prefix: restricted.prefix,
      last_four: restricted.last_four,
      permissions: ['payments:read', 'exports:read'],
      revoked_at: null,
    });
    expect(entry).not.toHaveProperty('secret');
    // B sees none of A's keys.
    const theirs = (await call(t.b.key, 'GET', '/api-keys')).body as { data: { _id: string }[] };
    expect(theirs.data.map((key) => key._id)).not.toContain(restricted._id);

    // The restricted key does what it holds and nothing else.
    expect((await call(restricted.secret, 'GET', '/payments')).status).toBe(200);
    expect((await call(restricted.secret, 'GET', '/payment-links')).status).toBe(403);
  });

  it('names who made it: the key that made it, or the CLI', async () => {
    const maker = await make(t.a.key, { name: 'Provisioner', permissions: ['api_keys:write', 'payments:read'] });
    const made = await make(maker.secret, { name: 'Child', permissions: ['payments:read'] });
    expect(made.created_by).toBe('Provisioner');
    const cli = await issueKey(t.service.db, t.a.business.id, { createdBy: 'cli' });
    expect(cli.record.created_by).toBe('cli');
  });

  it('a key can never be given a permission its maker lacks, nor full power by a restricted maker (422)', async () => {
    const maker = await make(t.a.key, { name: 'Limited maker', permissions: ['api_keys:write', 'payments:read'] });
    const wider = await call(maker.secret, 'POST', '/api-keys', { name: 'Wider', permissions: ['payments:read', 'refunds:write'] });
    expect(wider.status).toBe(422);
    expect(wider.body).toEqual({
      message: 'The given data was invalid.',
      errors: { permissions: ['The permissions may not include a permission this key or role lacks: refunds:write.'] },
    });
    const full = await call(maker.secret, 'POST', '/api-keys', { name: 'Full' });
    expect(full.status).toBe(422);
    expect((full.body as { errors: Record<string, string[]> }).errors.permissions![0]).toMatch(
      /^The permissions field is required: only an owner, signed in, makes a full key/,
    );
    // Not even a full key makes a full key: only a person, an owner, does.
    const byFull = await call(t.a.key, 'POST', '/api-keys', { name: 'Full too' });
    expect(byFull.status).toBe(422);
    expect((byFull.body as { errors: Record<string, string[]> }).errors.permissions![0]).toMatch(/only an owner, signed in, makes a full key/);
    // Within its own, it may.
    expect((await make(maker.secret, { name: 'Same', permissions: ['api_keys:write', 'payments:read'] })).permissions).toEqual([
      'payments:read',
      'api_keys:write',
    ]);
    // A key without api_keys:write makes none at all.
    const reader = await make(t.a.key, { name: 'Reader', permissions: ['payments:read'] });
    expect((await call(reader.secret, 'POST', '/api-keys', { name: 'Sneaky', permissions: ['payments:read'] })).status).toBe(403);
  });

  it('ignores every read-only field offered in the body', async () => {
    const hostile = {
      name: 'Hostile',
      permissions: ['payments:read'],
      _id: 'f'.repeat(24),
      prefix: 'sk_hostile',
      last_four: 'XXXX',
      secret: `sk_${'A'.repeat(43)}`,
      created_by: 'someone else',
      created_at: '2001-01-01T00:00:00Z',
      last_used_at: '2001-01-01T00:00:00Z',
      revoked_at: '2001-01-01T00:00:00Z',
      business_id: t.b.business.id,
    };
    const made = await make(t.a.key, hostile);
    expect(made._id).not.toBe(hostile._id);
    expect(made.secret).not.toBe(hostile.secret);
    expect(made).toMatchObject({ last_four: made.secret.slice(-4), prefix: made.secret.slice(0, 10), revoked_at: null, last_used_at: null });
    expect(made.created_by).not.toBe('someone else');
    expect((await call(made.secret, 'GET', '/payments')).status).toBe(200);
    const row = await t.sql('api_keys').where({ public_id: made._id }).first();
    expect(row.business_id).toBe(t.a.business.id);
  });

  it('validates the body as every operation does', async () => {
    const bad = await call(t.a.key, 'POST', '/api-keys', { permissions: ['payments:steal'], expires_at: '2001-01-01T00:00:00Z' });
    expect(bad.status).toBe(422);
    const errors = (bad.body as { errors: Record<string, string[]> }).errors;
    expect(errors.name).toEqual(['The name field is required.']);
    expect(Object.keys(errors)).toEqual(expect.arrayContaining(['name', 'expires_at']));
    expect(JSON.stringify(errors)).toContain('permissions');
  });
});

describe('refused keys', () => {
  it('a revoked key is refused (401) at once on this instance (the test service caches no lookups), and cannot be revoked twice', async () => {
    const made = await make(t.a.key, { name: 'Short-lived', permissions: ['payment_links:read'] });
    expect((await call(made.secret, 'GET', '/payment-links')).status).toBe(200);
    const revoked = await call(t.a.key, 'DELETE', `/api-keys/${made._id}`);
    expect(revoked.status).toBe(200);
    expect((revoked.body as { data: { revoked_at: string | null } }).data.revoked_at).not.toBeNull();
    expect((await call(made.secret, 'GET', '/payment-links')).status).toBe(401);
    expect((await call(t.a.key, 'DELETE', `/api-keys/${made._id}`)).status).toBe(404);
    const listed = (await call(t.a.key, 'GET', '/api-keys')).body as { data: { _id: string }[] };
    expect(listed.data.map((key) => key._id)).not.toContain(made._id);
  });

  it('a restricted key revokes keys within its permissions only: a more powerful key stays live (403 naming what it lacks)', async () => {
    const manager = await make(t.a.key, { name: 'Key manager', permissions: ['api_keys:write', 'payments:read'] });
    const full = await fullKey();
    const wider = await make(t.a.key, { name: 'Wider', permissions: ['payments:read', 'refunds:write'] });
    const narrower = await make(t.a.key, { name: 'Narrower', permissions: ['payments:read'] });

    const refusedFull = await call(manager.secret, 'DELETE', `/api-keys/${full._id}`);
    expect(refusedFull.status).toBe(403);
    const lacking = PERMISSIONS.filter((permission) => permission !== 'api_keys:write' && permission !== 'payments:read');
    expect(refusedFull.body).toEqual({
      message: `This key or role may not revoke a key holding permissions it lacks: ${lacking.join(', ')}.`,
      required_permission: lacking[0],
    });
    const refusedWider = await call(manager.secret, 'DELETE', `/api-keys/${wider._id}`);
    expect(refusedWider.status).toBe(403);
    expect(refusedWider.body).toEqual({
      message: 'This key or role may not revoke a key holding permissions it lacks: refunds:write.',
      required_permission: 'refunds:write',
    });
    expect((await call(full.secret, 'GET', '/payment-links')).status).toBe(200);
    expect((await call(wider.secret, 'GET', '/payments')).status).toBe(200);

    expect((await call(manager.secret, 'DELETE', `/api-keys/${narrower._id}`)).status).toBe(200);
    expect((await call(narrower.secret, 'GET', '/payments')).status).toBe(401);
    // A key may still revoke itself, and a full key any key.
    expect((await call(t.a.key, 'DELETE', `/api-keys/${wider._id}`)).status).toBe(200);
    expect((await call(manager.secret, 'DELETE', `/api-keys/${manager._id}`)).status).toBe(200);
    expect((await call(t.a.key, 'DELETE', `/api-keys/${full._id}`)).status).toBe(200);
  });

  it("another business's key is not found (404) and stays live", async () => {
    const theirs = await make(t.b.key, { name: 'B key', permissions: ['payment_links:read'] });
    expect((await call(t.a.key, 'DELETE', `/api-keys/${theirs._id}`)).status).toBe(404);
    expect((await call(theirs.secret, 'GET', '/payment-links')).status).toBe(200);
  });

  it('an expired key is refused (401), even when its lookup was cached before it expired', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const made = await make(t.a.key, { name: 'Expiring', permissions: ['payment_links:read'], expires_at: expiresAt });
    const cache = new CallerCache(t.service.db, 3_600_000);
    expect(await cache.find(made.secret)).toBeDefined();
    expect((await call(made.secret, 'GET', '/payment-links')).status).toBe(200);
    // The clock of this process (the service's too) moved past the expiry rather than waited for: the
    // expiry is compared in the code, with Date.now(), not in the database. Timers stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.parse(expiresAt) + 1_000);
      expect((await call(made.secret, 'GET', '/payment-links')).status).toBe(401);
      expect(await cache.find(made.secret)).toBeUndefined();
      expect(await findCallerByKey(t.service.db, made.secret)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('keys made before and by the CLI', () => {
  it('hold every permission', async () => {
    const cli = await issueKey(t.service.db, t.a.business.id, { createdBy: 'cli' });
    const caller = await findCallerByKey(t.service.db, cli.key);
    expect([...caller!.permissions].sort()).toEqual([...PERMISSIONS].sort());
    // The fixture's keys are made as the seed made them, without any of the new fields.
    const fixture = await findCallerByKey(t.service.db, t.a.key);
    expect(fixture!.permissions.size).toBe(PERMISSIONS.length);
  });
});

describe('last use', () => {
  it('is noted after a request, at most once a minute per key', async () => {
    const made = await make(t.a.key, { name: 'Used', permissions: ['payment_links:read'] });
    const usedAt = async () => (await t.sql('api_keys').where({ public_id: made._id }).first('last_used_at')).last_used_at as string | null;
    expect(await usedAt()).toBeNull();
    expect((await call(made.secret, 'GET', '/payment-links')).status).toBe(200);
    await expect.poll(usedAt).not.toBeNull();
    const first = await usedAt();
    expect((await call(made.secret, 'GET', '/payment-links')).status).toBe(200);
    await sleep(100);
    expect(await usedAt()).toEqual(first);
    const listed = (await call(t.a.key, 'GET', '/api-keys')).body as { data: { _id: string; last_used_at: string | null }[] };
    expect(listed.data.find((key) => key._id === made._id)!.last_used_at).not.toBeNull();
  });
});
