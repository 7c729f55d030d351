// One-time account links through the API, as the console's page (/console/setup?token=...) uses them:
// the first owner's link and an invitation read (POST /api/auth/account-links/open) and used
// (POST /api/auth/account-links/accept), a member of another business confirming their password
// instead, and the refusals: an unknown, used, revoked or expired link (410), a weak or unconfirmed
// password, a missing e-mail (422). The token is never written to the log.
import { describe, expect, it } from 'vitest';
import { createOwnerLink, createSetupLink } from '../../server/usecases/members/accounts.js';
import { capturedLog } from '../support/log.js';
import { PASSWORD, accountLinkMailedTo, call, linkToken, member, signIn, type Session } from '../support/members.js';
import { useService, withService, type TestService } from '../support/service.js';

const t = useService();

const GONE = { message: 'This link has expired, was already used or was revoked. Ask for a new one.' };

const open = (token: string, on: TestService = t) => call(on, 'POST', '/api/auth/account-links/open', { body: { token } });
const accept = (body: Record<string, string>, on: TestService = t, headers: Record<string, string> = {}) =>
  call(on, 'POST', '/api/auth/account-links/accept', { body, headers });

async function ownerSession(): Promise<Session> {
  return signIn(t, (await member(t, t.a.business.id, 'owner')).email);
}

async function invite(session: Session, email: string, role = 'viewer'): Promise<{ id: string; token: string }> {
  const invited = await call(t, 'POST', '/api/team/invitations', { cookie: session.cookie, csrf: session.csrf, body: { email, role } });
  expect(invited.status).toBe(200);
  return { id: invited.body.data._id, token: linkToken(await accountLinkMailedTo(t, email)) };
}

describe('the first owner’s link', () => {
  it('names no e-mail: its holder gives theirs, chooses a password, becomes the owner and signs in', async () => {
    const url = await createOwnerLink(t.service.context, t.b.business.id);
    expect(url).toMatch(new RegExp(`^${t.url}/console/setup\\?token=[A-Za-z0-9_-]{43}$`));
    const token = linkToken(url);
    const opened = await open(token);
    expect(opened.status).toBe(200);
    expect(opened.body.data).toEqual({
      purpose: 'set_password',
      role: 'owner',
      email: null,
      business_name: expect.any(String),
      existing_account: false,
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
    expect(opened.body.data.business_name.length).toBeGreaterThan(0);

    const noEmail = await accept({ token, name: 'Nur Owner', password: PASSWORD, password_confirmation: PASSWORD });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body).toEqual({ message: 'The given data was invalid.', errors: { email: ['The email field is required.'] } });
    const email = `first.owner.${Date.now()}@example.com`;
    const weak = await accept({ token, email, name: 'Nur Owner', password: 'password1234', password_confirmation: 'password1234' });
    expect(weak.status).toBe(422);
    expect(weak.body.errors.password).toEqual(['The given password is too common or too easy to guess. Please choose a different password.']);
    const short = await accept({ token, email, name: 'Nur Owner', password: 'short', password_confirmation: 'short' });
    expect(short.body.errors.password).toEqual(['The password must be at least 12 characters.']);
    const mismatch = await accept({ token, email, name: 'Nur Owner', password: PASSWORD, password_confirmation: `${PASSWORD}x` });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors).toEqual({ password_confirmation: ['The password confirmation does not match.'] });
    const noName = await accept({ token, email, name: '   ', password: PASSWORD, password_confirmation: PASSWORD });
    expect(noName.body.errors.name).toEqual(['The name field is required.']);
    // None of the refusals used the link.
    expect((await open(token)).status).toBe(200);

    const done = await accept({ token, email, name: 'Nur Owner', password: PASSWORD, password_confirmation: PASSWORD });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ email, business_id: t.b.business.id, role: 'owner' });
    // It signs no one in: the holder signs in next.
    expect(done.headers.getSetCookie()).toEqual([]);
    const session = await signIn(t, email);
    expect(session.me).toMatchObject({ role: 'owner', user: { name: 'Nur Owner' }, business: { business_id: t.b.business.id } });

    // Good once.
    expect(await open(token)).toMatchObject({ status: 410, body: GONE });
    expect(
      await accept({ token, email, name: 'Someone Else', password: 'velvet-canyon-drum-77', password_confirmation: 'velvet-canyon-drum-77' }),
    ).toMatchObject({
      status: 410,
      body: GONE,
    });
    await signIn(t, email);
  });
});

describe('an invitation', () => {
  it('names the e-mail and the role: the invitee chooses a password (a given e-mail is ignored) and signs in with that role', async () => {
    const owner = await ownerSession();
    const email = `invitee.${Date.now()}@example.com`;
    const { token } = await invite(owner, email, 'finance');
    const opened = await open(token);
    expect(opened.body.data).toMatchObject({ purpose: 'invitation', role: 'finance', email, existing_account: false });
    const done = await accept({ token, email: 'someone.else@example.com', name: 'Fina Finance', password: PASSWORD, password_confirmation: PASSWORD });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ email, business_id: t.a.business.id, role: 'finance' });
    expect((await signIn(t, email)).me).toMatchObject({ role: 'finance', user: { name: 'Fina Finance' } });
    const invitations = await call(t, 'GET', '/api/team/invitations', { cookie: owner.cookie });
    expect(invitations.body.data.map((i: { email: string }) => i.email)).not.toContain(email);
  });

  it('to a member of another business: they confirm their password (a wrong one refused) and join with their account', async () => {
    const owner = await ownerSession();
    const existing = await member(t, t.b.business.id, 'admin');
    const { token } = await invite(owner, existing.email, 'support');
    expect((await open(token)).body.data).toMatchObject({ email: existing.email, existing_account: true });
    const wrong = await accept({ token, password: 'not-my-password-9' });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ message: 'The given data was invalid.', errors: { password: ['The password is incorrect.'] } });
    const done = await accept({ token, password: PASSWORD });
    expect(done.body.data).toEqual({ email: existing.email, business_id: t.a.business.id, role: 'support' });
    const session = await signIn(t, existing.email);
    expect(session.me.memberships.map((m: { business_id: number; role: string }) => [m.business_id, m.role]).sort()).toEqual(
      [
        [t.a.business.id, 'support'],
        [t.b.business.id, 'admin'],
      ].sort(),
    );
  });

  it('refuses a revoked invitation, an expired link and an unknown token with 410', async () => {
    const owner = await ownerSession();
    const revoked = await invite(owner, `revoked.${Date.now()}@example.com`);
    expect((await call(t, 'DELETE', `/api/team/invitations/${revoked.id}`, { cookie: owner.cookie, csrf: owner.csrf })).status).toBe(200);
    expect(await open(revoked.token)).toMatchObject({ status: 410, body: GONE });
    expect((await accept({ token: revoked.token, name: 'Rev', password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(410);

    const email = `expired.${Date.now()}@example.com`;
    const expired = linkToken(await createSetupLink(t.service.context, { businessId: t.a.business.id, email, role: 'viewer' }));
    expect((await open(expired)).status).toBe(200);
    await t
      .sql('account_links')
      .where({ email })
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(await open(expired)).toMatchObject({ status: 410, body: GONE });
    expect((await accept({ token: expired, name: 'Late', password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(410);
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);

    expect(await open('A'.repeat(43))).toMatchObject({ status: 410, body: GONE });
    const missing = await call(t, 'POST', '/api/auth/account-links/open', { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ token: ['The token field is required.'] });
  });

  it('is used from a browser holding another session without its CSRF token, but not from another origin', async () => {
    const owner = await ownerSession();
    const email = `same.browser.${Date.now()}@example.com`;
    const { token } = await invite(owner, email);
    const fields = { token, name: 'Sam Browser', password: PASSWORD, password_confirmation: PASSWORD };
    const foreign = await call(t, 'POST', '/api/auth/account-links/accept', {
      body: fields,
      cookie: owner.cookie,
      headers: { Origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const done = await call(t, 'POST', '/api/auth/account-links/accept', { body: fields, cookie: owner.cookie, headers: { Origin: t.url } });
    expect(done.status).toBe(200);
    // The session the browser held is still the owner's.
    expect((await call(t, 'GET', '/api/auth/me', { cookie: owner.cookie })).body.data.user.email).not.toBe(email);
  });
});

describe('logs', () => {
  it('never write the token of a link, opened or used', async () => {
    const log = capturedLog();
    await withService({ logger: log.logger }, async (logged) => {
      const token = linkToken(await createOwnerLink(logged.service.context, logged.a.business.id));
      await open(token, logged);
      await accept({ token, email: `logged.${Date.now()}@example.com`, name: 'Lo Gged', password: 'x', password_confirmation: 'x' }, logged);
      await accept({ token, email: `logged.${Date.now()}@example.com`, name: 'Lo Gged', password: PASSWORD, password_confirmation: PASSWORD }, logged);
      await open(token, logged);
      const text = JSON.stringify(log.lines);
      expect(log.lines.length).toBeGreaterThan(0);
      expect(text).toContain('/api/auth/account-links/accept');
      expect(text).not.toContain(token);
      expect(text).not.toContain(PASSWORD);
    });
  });
});
