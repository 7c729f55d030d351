// Power comes from the person behind a request, never from "it is a key" (the security review's findings
// 1, 6 and 7): an admin's key, or a key holding team:write, cannot make anyone an owner or unmake
// one; full keys are an owner's alone; a member's key holds at most what its maker's role holds now
// and dies with their membership; a child key cannot outlive its parent; an invitation never
// changes a membership; and the team's rules hold when two owners act at once.
import { describe, expect, it } from 'vitest';
import { PASSWORD, accountLinkMailedTo, call, linkToken, member, signIn, totpCode, type Session } from '../support/members.js';
import { raw, useService, withServiceOver } from '../support/service.js';
import { REDIS_URL, redisAnswers } from '../support/redis.js';

const t = useService();

const write = (session: Session, method: string, path: string, body?: unknown) => call(t, method, path, { cookie: session.cookie, csrf: session.csrf, body });

async function keyCall(key: string, method: string, path: string, body?: unknown) {
  return raw(`${t.url}/api${path}`, {
    key,
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function signedIn(role: Parameters<typeof member>[2], businessId = t.a.business.id): Promise<{ session: Session; userId: string; email: string }> {
  const made = await member(t, businessId, role);
  return { session: await signIn(t, made.email), ...made };
}

async function keyMadeBy(session: Session, body: Record<string, unknown>): Promise<{ secret: string; _id: string; created_by_user_id: string | null }> {
  const made = await write(session, 'POST', '/api/api-keys', body);
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  return made.body.data;
}

async function roleOf(userId: string): Promise<string | undefined> {
  const row = await t.sql('memberships').where({ business_id: t.a.business.id, user_id: userId }).first('role');
  return row?.role as string | undefined;
}

describe("an admin's key, or any key, over the team", () => {
  it('an admin cannot mint a full key, and their key cannot promote them, demote or remove the owner (403 naming the session)', async () => {
    const owner = await signedIn('owner');
    const admin = await signedIn('admin');
    const full = await write(admin.session, 'POST', '/api/api-keys', { name: 'ci' });
    expect(full.status).toBe(422);
    expect(full.body.errors.permissions[0]).toMatch(/only an owner, signed in, makes a full key/);
    // The widest key an admin can make: every permission, listed.
    const everything = (await call(t, 'GET', '/api/auth/me', { cookie: admin.session.cookie })).body.data.permissions as string[];
    const key = await keyMadeBy(admin.session, { name: 'ci', permissions: everything });
    expect(key.secret).toMatch(/^rk_/);
    expect(key.created_by_user_id).toBe(admin.userId);

    for (const [method, path, body] of [
      ['PATCH', `/team/members/${admin.userId}`, { role: 'owner' }],
      ['PATCH', `/team/members/${owner.userId}`, { role: 'viewer' }],
      ['DELETE', `/team/members/${owner.userId}`, undefined],
      ['POST', '/team/invitations', { email: 'attacker@evil.test', role: 'owner' }],
      ['PATCH', '/team/settings', { require_two_factor: false }],
    ] as const) {
      const answer = await keyCall(key.secret, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body).toEqual({
        message: 'This operation is for a signed-in member only: an API key may not call it, whatever its permissions. Sign in to the console.',
        required_credential: 'session',
      });
    }
    expect(await roleOf(admin.userId)).toBe('admin');
    expect(await roleOf(owner.userId)).toBe('owner');
    // The fixture's full key (the operator's) is refused the same way.
    expect((await keyCall(t.a.key, 'PATCH', `/team/members/${admin.userId}`, { role: 'owner' })).status).toBe(403);
    expect(await roleOf(admin.userId)).toBe('admin');
  });

  it('a key holding only team:write invites no one and changes no role', async () => {
    const owner = await signedIn('owner');
    const teamOnly = await keyMadeBy(owner.session, { name: 'team-only', permissions: ['team:write'] });
    const viewer = await member(t, t.a.business.id, 'viewer');
    expect((await keyCall(teamOnly.secret, 'POST', '/team/invitations', { email: 'attacker@evil.test', role: 'owner' })).status).toBe(403);
    expect((await keyCall(teamOnly.secret, 'PATCH', `/team/members/${viewer.userId}`, { role: 'owner' })).status).toBe(403);
    expect(await roleOf(viewer.userId)).toBe('viewer');
    const invitations = await t.sql('account_links').where({ business_id: t.a.business.id, email: 'attacker@evil.test' });
    expect(invitations).toEqual([]);
  });

  it("a trailing slash reaches no operation, so the sign-in's Origin check cannot be skipped by spelling its path another way", async () => {
    const owner = await signedIn('owner');
    // The sign-in's Origin check holds on every spelling the router accepts: it accepts one.
    const slashed = await fetch(`${t.url}/api/auth/login/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://evil.test' },
      body: JSON.stringify({ email: owner.email, password: PASSWORD }),
    });
    expect(slashed.status).toBe(404);
    expect(slashed.headers.getSetCookie()).toEqual([]);
  });
});

describe('the owner, and only the owner, decides', () => {
  it('only an owner changes the two-factor requirement; an admin is refused (422) and nothing changes', async () => {
    const owner = await signedIn('owner');
    const admin = await signedIn('admin');
    const refused = await write(admin.session, 'PATCH', '/api/team/settings', { require_two_factor: true });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.require_two_factor).toEqual(['Only an owner can change whether the business requires two-factor sign-in.']);
    const row = async () => Boolean((await t.sql('businesses').where({ id: t.a.business.id }).first('require_two_factor')).require_two_factor);
    expect(await row()).toBe(false);
    expect((await write(owner.session, 'PATCH', '/api/team/settings', { require_two_factor: false })).status).toBe(200);
  });

  it('two owners demoting each other at once leave one owner', async () => {
    const business = t.b.business.id;
    for (const existing of await t.sql('memberships').where({ business_id: business, role: 'owner' }))
      await t.sql('memberships').where({ business_id: business, user_id: existing.user_id }).update({ role: 'admin' });
    for (let round = 0; round < 5; round += 1) {
      const first = await signedIn('owner', business);
      const second = await signedIn('owner', business);
      for (const other of await t.sql('memberships').where({ business_id: business, role: 'owner' }).whereNotIn('user_id', [first.userId, second.userId]))
        await t.sql('memberships').where({ business_id: business, user_id: other.user_id }).update({ role: 'admin' });
      const answers = await Promise.all([
        write(first.session, 'PATCH', `/api/team/members/${second.userId}`, { role: 'admin' }),
        write(second.session, 'PATCH', `/api/team/members/${first.userId}`, { role: 'admin' }),
      ]);
      const owners = await t.sql('memberships').where({ business_id: business, role: 'owner' });
      expect(owners.length, JSON.stringify(answers.map((answer) => [answer.status, answer.body]))).toBe(1);
      // The one that lost was refused for the last owner (422), or found its session ended by the winner's change (401).
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
      expect(answers.map((answer) => answer.status).find((status) => status !== 200)).toBeOneOf([401, 422]);
    }
  });
});

describe("a member's keys are bound to the member", () => {
  it("hold at most what the maker's role holds now: a demoted admin's key loses what a viewer lacks", async () => {
    const owner = await signedIn('owner');
    const admin = await signedIn('admin');
    const key = await keyMadeBy(admin.session, { name: 'admin-job', permissions: ['payments:read', 'payment_links:write', 'api_keys:write'] });
    expect((await keyCall(key.secret, 'POST', '/payment-links', { title: 'Before', amount: 1500, currency: 'MYR', email: 'p@example.com' })).status).toBe(200);
    expect((await write(owner.session, 'PATCH', `/api/team/members/${admin.userId}`, { role: 'viewer' })).status).toBe(200);
    // Viewers read payments; they make no links and no keys.
    expect((await keyCall(key.secret, 'GET', '/payments')).status).toBe(200);
    const link = await keyCall(key.secret, 'POST', '/payment-links', { title: 'After', amount: 1500, currency: 'MYR', email: 'p@example.com' });
    expect(link.status).toBe(403);
    expect(link.body).toMatchObject({ required_permission: 'payment_links:write' });
    expect((await keyCall(key.secret, 'POST', '/api-keys', { name: 'persist', permissions: ['payments:read'] })).status).toBe(403);
    // Made an admin again, the key holds what it was made with once more.
    expect((await write(owner.session, 'PATCH', `/api/team/members/${admin.userId}`, { role: 'admin' })).status).toBe(200);
    expect((await keyCall(key.secret, 'POST', '/payment-links', { title: 'Again', amount: 1500, currency: 'MYR', email: 'p@example.com' })).status).toBe(200);
  });

  it('are revoked when the member is removed, with the keys they made; the answer and the audit log say which', async () => {
    const owner = await signedIn('owner');
    const developer = await signedIn('developer');
    const key = await keyMadeBy(developer.session, { name: 'dev-laptop', permissions: ['webhooks:write', 'payments:read', 'api_keys:write'] });
    const child = (await keyCall(key.secret, 'POST', '/api-keys', { name: 'persist', permissions: ['payments:read'] })).body as {
      data: { secret: string; _id: string; parent_key_id: string; created_by_user_id: string };
    };
    expect(child.data).toMatchObject({ parent_key_id: key._id, created_by_user_id: developer.userId });
    const removed = await write(owner.session, 'DELETE', `/api/team/members/${developer.userId}`);
    expect(removed.status).toBe(200);
    expect([...removed.body.data.revoked_api_key_ids].sort()).toEqual([key._id, child.data._id].sort());
    expect((await keyCall(key.secret, 'GET', '/payments')).status).toBe(401);
    expect((await keyCall(child.data.secret, 'GET', '/payments')).status).toBe(401);
    expect((await keyCall(key.secret, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:8443/exfil' })).status).toBe(401);
    const event = await t.sql('audit_events').where({ business_id: t.a.business.id, action: 'team.member_removed' }).orderBy('created_at', 'desc').first();
    expect(JSON.parse(event.details)).toMatchObject({ email: developer.email, old_role: 'developer' });
    expect([...JSON.parse(event.details).revoked_api_key_ids].sort()).toEqual([key._id, child.data._id].sort());
  });

  it('hold nothing while the business requires two-factor and the maker has none, even after the requirement is lifted when made under it', async () => {
    // Business B, whose rule this test switches on and off alone.
    const made = await member(t, t.b.business.id, 'owner');
    const firstSession = await signIn(t, made.email);
    const without = await write(firstSession, 'PATCH', '/api/team/settings', { require_two_factor: true });
    expect(without.status).toBe(422);
    expect(without.body.errors.require_two_factor).toEqual(['Turn on two-factor sign-in for yourself before requiring it of every member.']);
    const ownerOffer = await write(firstSession, 'POST', '/api/auth/totp');
    expect((await write(firstSession, 'POST', '/api/auth/totp/confirm', { code: totpCode(ownerOffer.body.data.secret) })).status).toBe(200);
    const owner = { ...made, session: await signIn(t, made.email, PASSWORD, { totp_code: totpCode(ownerOffer.body.data.secret, 1) }) };
    const developer = await signedIn('developer', t.b.business.id);
    const offer = await write(developer.session, 'POST', '/api/auth/totp');
    const confirmed = await write(developer.session, 'POST', '/api/auth/totp/confirm', { code: totpCode(offer.body.data.secret) });
    expect(confirmed.status).toBe(200);
    const session = await signIn(t, developer.email, PASSWORD, { totp_code: totpCode(offer.body.data.secret, 1) });
    const before = await keyMadeBy(session, { name: 'before-the-rule', permissions: ['payments:read'] });
    expect((await write(owner.session, 'PATCH', '/api/team/settings', { require_two_factor: true })).status).toBe(200);
    try {
      const under = await keyMadeBy(session, { name: 'under-the-rule', permissions: ['payments:read'] });
      expect((await keyCall(under.secret, 'GET', '/payments')).status).toBe(200);
      // The maker goes without two-factor (as after turning it off): while the business requires it, neither key holds anything.
      await t.sql('users').where({ _id: developer.userId }).update({ totp_enabled_at: null });
      expect((await keyCall(under.secret, 'GET', '/payments')).status).toBe(403);
      expect((await keyCall(before.secret, 'GET', '/payments')).status).toBe(403);
      // The requirement lifted, the key made under it keeps the rule; the one made before does not.
      expect((await write(owner.session, 'PATCH', '/api/team/settings', { require_two_factor: false })).status).toBe(200);
      expect((await keyCall(under.secret, 'GET', '/payments')).status).toBe(403);
      expect((await keyCall(before.secret, 'GET', '/payments')).status).toBe(200);
    } finally {
      await t.sql('businesses').where({ id: t.b.business.id }).update({ require_two_factor: false });
    }
  });

  it('a key made by a key cannot outlive it: it expires with it at the latest, and is revoked with it', async () => {
    const owner = await signedIn('owner');
    const parentExpiry = new Date(Date.now() + 3_600_000).toISOString();
    const parent = await keyMadeBy(owner.session, { name: 'short', permissions: ['api_keys:write', 'payments:read'], expires_at: parentExpiry });
    const forever = await keyCall(parent.secret, 'POST', '/api-keys', { name: 'forever', permissions: ['payments:read'] });
    expect(forever.status).toBe(200);
    expect(Date.parse((forever.body as { data: { expires_at: string } }).data.expires_at)).toBe(Date.parse(parentExpiry));
    const later = await keyCall(parent.secret, 'POST', '/api-keys', {
      name: 'later',
      permissions: ['payments:read'],
      expires_at: new Date(Date.now() + 7_200_000).toISOString(),
    });
    expect(later.status).toBe(422);
    expect((later.body as { errors: Record<string, string[]> }).errors.expires_at![0]).toMatch(/before or equal to .*when the key making it expires/);
    const childSecret = (forever.body as { data: { secret: string } }).data.secret;
    expect((await write(owner.session, 'DELETE', `/api/api-keys/${parent._id}`)).status).toBe(200);
    expect((await keyCall(childSecret, 'GET', '/payments')).status).toBe(401);
  });
});

describe('invitations never change a membership', () => {
  it("an admin's invitation to the owner is refused; one accepted after joining another way changes nothing", async () => {
    const owner = await signedIn('owner');
    const admin = await signedIn('admin');
    const demotion = await write(admin.session, 'POST', '/api/team/invitations', { email: owner.email.toUpperCase(), role: 'viewer' });
    expect(demotion.status).toBe(422);
    expect(demotion.body.errors.email).toEqual(['This person is already a member of the business: change their role instead.']);

    const email = `late-joiner.${Date.now()}@example.com`;
    expect((await write(admin.session, 'POST', '/api/team/invitations', { email, role: 'viewer' })).status).toBe(200);
    const token = linkToken(await accountLinkMailedTo(t, email));
    // Meanwhile the operator makes them a member with another role.
    const joined = await member(t, t.a.business.id, 'finance');
    await t.sql('users').where({ _id: joined.userId }).update({ email, email_key: email });
    const accepted = await call(t, 'POST', '/api/auth/account-links/accept', { body: { token, password: PASSWORD } });
    expect(accepted.status).toBe(422);
    expect(await roleOf(joined.userId)).toBe('finance');
  });

  it('an address has one open invitation: a new one replaces the last, whose link stops working', async () => {
    const owner = await signedIn('owner');
    const email = `twice.${Date.now()}@example.com`;
    const first = await write(owner.session, 'POST', '/api/team/invitations', { email, role: 'viewer' });
    const firstToken = linkToken(await accountLinkMailedTo(t, email));
    const second = await write(owner.session, 'POST', '/api/team/invitations', { email: email.toUpperCase(), role: 'finance' });
    expect(second.status).toBe(200);
    const open = (await call(t, 'GET', '/api/team/invitations', { cookie: owner.session.cookie })).body.data as { _id: string; email: string }[];
    expect(open.filter((invitation) => invitation.email.toLowerCase() === email).map((invitation) => invitation._id)).toEqual([second.body.data._id]);
    expect(open.map((invitation) => invitation._id)).not.toContain(first.body.data._id);
    expect((await call(t, 'POST', '/api/auth/account-links/open', { body: { token: firstToken } })).status).toBe(410);
  });
});

describe('invitations per day', () => {
  const limited = useService({ invitationsPerDay: 2 });

  it('a business sends at most INVITATIONS_PER_DAY a day; past it, 422 and no e-mail', async () => {
    const made = await member(limited, limited.a.business.id, 'owner');
    const session = await signIn(limited, made.email);
    const invite = (n: number) =>
      call(limited, 'POST', '/api/team/invitations', { cookie: session.cookie, csrf: session.csrf, body: { email: `quota${n}@example.com`, role: 'viewer' } });
    expect((await invite(1)).status).toBe(200);
    expect((await invite(2)).status).toBe(200);
    const third = await invite(3);
    expect(third.status).toBe(422);
    expect(third.body.errors.email[0]).toMatch(/^The business has sent its 2 invitations of the day/);
    expect(await limited.sql('account_links').where({ email: 'quota3@example.com' })).toEqual([]);
  });
});

describe('a revoked key on other instances', () => {
  it('stops on the instance that revoked it at once, and on another at once through Redis (or within API_KEY_CACHE_MS without it)', async () => {
    const redisUrl = REDIS_URL;
    const redisUp = await redisAnswers();
    // Two more instances on the fixture's database, as a deployment runs them.
    const instance = (redis: boolean) => ({
      migrateOnStart: false,
      apiKeyCacheMs: 60_000,
      outbox: { worker: false },
      rateLimit: { perSecond: 1_000_000, ...(redis ? { redisUrl } : {}) },
    });
    const owner = await signedIn('owner');
    const cases = redisUp ? [true, false] : [false];
    for (const redis of cases) {
      await withServiceOver(t.databaseUrl, instance(redis), (one) =>
        withServiceOver(t.databaseUrl, instance(redis), async (two) => {
          const key = await keyMadeBy(owner.session, { name: `spread-${redis}`, permissions: ['payments:read'] });
          const at = (url: string) => raw(`${url}/api/payments`, { key: key.secret });
          expect((await at(one.url)).status).toBe(200);
          expect((await at(two.url)).status).toBe(200);
          // Revoked through the first instance, the API's own way.
          const session = await signIn({ ...t, url: one.url } as typeof t, owner.email);
          const revoked = await call({ ...t, url: one.url } as typeof t, 'DELETE', `/api/api-keys/${key._id}`, { cookie: session.cookie, csrf: session.csrf });
          expect(revoked.status).toBe(200);
          expect((await at(one.url)).status).toBe(401);
          if (redis) await expect.poll(async () => (await at(two.url)).status, { timeout: 2_000 }).toBe(401);
          // Without Redis the other instance holds its lookup for its cache's lifetime (60 s here).
          else expect((await at(two.url)).status).toBe(200);
        }),
      );
    }
  });
});
