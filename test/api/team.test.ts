// The business's team through members' sessions: roles (a business keeps an owner; only an owner
// makes or unmakes one), removal, invitations from the e-mail to the set-password page to signing in,
// and the two-factor requirement.
import { describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';
import { PASSWORD, accountLinkMailedTo, call, member, setupPageUrl, signIn, submitSetupPage, totpCode, type Session } from '../support/members.js';

const t = useService();

async function owner(): Promise<{ session: Session; userId: string; email: string }> {
  const made = await member(t, t.a.business.id, 'owner');
  return { session: await signIn(t, made.email), ...made };
}

const write = (session: Session, method: string, path: string, body?: unknown) => call(t, method, path, { cookie: session.cookie, csrf: session.csrf, body });

describe('roles', () => {
  it('keeps the last owner: neither demoted nor removed', async () => {
    const { session, userId } = await owner();
    const others = (await call(t, 'GET', '/api/team/members', { cookie: session.cookie })).body.data.filter((m: { role: string }) => m.role === 'owner');
    // Other tests' owners share business A; the rule is about this business's owners, so they go first.
    for (const other of others.filter((m: { user_id: string }) => m.user_id !== userId))
      expect((await write(session, 'DELETE', `/api/team/members/${other.user_id}`)).status).toBe(200);
    const demoted = await write(session, 'PATCH', `/api/team/members/${userId}`, { role: 'admin' });
    expect(demoted.status).toBe(422);
    expect(demoted.body.errors.role).toEqual(['A business must keep at least one owner.']);
    const removed = await write(session, 'DELETE', `/api/team/members/${userId}`);
    expect(removed.status).toBe(422);
    expect(removed.body.errors.user_id).toEqual(['A business must keep at least one owner.']);
    // With a second owner, the first may step down.
    const second = await member(t, t.a.business.id, 'admin');
    expect((await write(session, 'PATCH', `/api/team/members/${second.userId}`, { role: 'owner' })).status).toBe(200);
    expect((await write(session, 'PATCH', `/api/team/members/${userId}`, { role: 'admin' })).status).toBe(200);
  });

  it('lets only an owner make or unmake an owner', async () => {
    const admin = await member(t, t.a.business.id, 'admin');
    const adminSession = await signIn(t, admin.email);
    const target = await member(t, t.a.business.id, 'viewer');
    const made = await write(adminSession, 'PATCH', `/api/team/members/${target.userId}`, { role: 'owner' });
    expect(made.status).toBe(422);
    expect(made.body.errors.role).toEqual(['Only an owner can make, invite or remove an owner.']);
    const invited = await write(adminSession, 'POST', '/api/team/invitations', { email: 'new-owner@example.com', role: 'owner' });
    expect(invited.status).toBe(422);
    // An admin may change other roles; the member's sessions end with the old role.
    const targetSession = await signIn(t, target.email);
    const changed = await write(adminSession, 'PATCH', `/api/team/members/${target.userId}`, { role: 'finance' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ user_id: target.userId, role: 'finance' });
    expect((await call(t, 'GET', '/api/auth/me', { cookie: targetSession.cookie })).status).toBe(401);
    expect((await signIn(t, target.email)).me.role).toBe('finance');
  });

  it('answers 404 for a user who is not a member of the business', async () => {
    const { session } = await owner();
    const stranger = await member(t, t.b.business.id, 'viewer');
    expect((await write(session, 'PATCH', `/api/team/members/${stranger.userId}`, { role: 'admin' })).status).toBe(404);
    expect((await write(session, 'DELETE', `/api/team/members/${stranger.userId}`)).status).toBe(404);
  });
});

describe('invitations', () => {
  it('e-mails a one-time link; the invitee sets name and password, joins with the role and signs in', async () => {
    const { session } = await owner();
    const email = `invitee.${Date.now()}@example.com`;
    const invited = await write(session, 'POST', '/api/team/invitations', { email, role: 'viewer' });
    expect(invited.status).toBe(200);
    expect(invited.body.data).toMatchObject({ email, role: 'viewer', invited_by: session.me.user._id });
    const listed = await call(t, 'GET', '/api/team/invitations', { cookie: session.cookie });
    expect(listed.body.data.map((i: { _id: string }) => i._id)).toContain(invited.body.data._id);

    const url = await accountLinkMailedTo(t, email);
    // The console's page; the server-rendered one (posted here) stays for links handed out before it.
    expect(url).toMatch(new RegExp(`^${t.url}/console/setup\\?token=[A-Za-z0-9_-]{43}$`));

    const weak = await submitSetupPage(url, { name: 'Vera Viewer', password: 'password1234', password_confirmation: 'password1234' });
    expect(weak.status).toBe(422);
    expect(weak.text).toContain('too common');
    const done = await submitSetupPage(url, { name: 'Vera Viewer', password: PASSWORD, password_confirmation: PASSWORD });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your account is ready');
    expect(done.text).toContain('<a href="/console/">Sign in to the merchant console</a>');
    // Good once.
    expect((await fetch(setupPageUrl(url))).status).toBe(410);

    const viewer = await signIn(t, email);
    expect(viewer.me).toMatchObject({ role: 'viewer', user: { name: 'Vera Viewer' }, business: { business_id: t.a.business.id } });
    expect((await call(t, 'GET', '/api/team/invitations', { cookie: session.cookie })).body.data.map((i: { _id: string }) => i._id)).not.toContain(
      invited.body.data._id,
    );
  });

  it('revokes an invitation: its link stops working', async () => {
    const { session } = await owner();
    const invited = await write(session, 'POST', '/api/team/invitations', { email: `revoked.${Date.now()}@example.com`, role: 'support' });
    const revoked = await write(session, 'DELETE', `/api/team/invitations/${invited.body.data._id}`);
    expect(revoked.status).toBe(200);
    expect((await write(session, 'DELETE', `/api/team/invitations/${invited.body.data._id}`)).status).toBe(404);
  });
});

describe('two-factor requirement', () => {
  it('leaves a member without two-factor no permissions in a business that requires it, and me says so', async () => {
    const { session } = await owner();
    const viewer = await member(t, t.b.business.id, 'viewer');
    const bOwner = await member(t, t.b.business.id, 'owner');
    // An owner requires two-factor of everyone only with it on themselves (or they would be locked out of this very setting).
    const ownerFirst = await signIn(t, bOwner.email);
    const ownerOffer = await write(ownerFirst, 'POST', '/api/auth/totp');
    expect((await write(ownerFirst, 'POST', '/api/auth/totp/confirm', { code: totpCode(ownerOffer.body.data.secret) })).status).toBe(200);
    const bSession = await signIn(t, bOwner.email, PASSWORD, { totp_code: totpCode(ownerOffer.body.data.secret, 1) });
    expect((await write(bSession, 'PATCH', '/api/team/settings', { require_two_factor: true })).status).toBe(200);
    const viewerSession = await signIn(t, viewer.email);
    expect(viewerSession.me.two_factor_setup_required).toBe(true);
    expect(viewerSession.me.permissions).toEqual([]);
    // Once they set it up, their role's permissions come back.
    const offer = await write(viewerSession, 'POST', '/api/auth/totp');
    const confirmed = await write(viewerSession, 'POST', '/api/auth/totp/confirm', { code: totpCode(offer.body.data.secret) });
    const cookie = confirmed.headers.getSetCookie()[0]!.split(';')[0]!.slice('pcs_session='.length);
    const me = await call(t, 'GET', '/api/auth/me', { cookie });
    expect(me.body.data.two_factor_setup_required).toBe(false);
    expect(me.body.data.permissions).toContain('payments:read');
    expect(session.me.business.business_id).toBe(t.a.business.id);
    expect((await write(bSession, 'PATCH', '/api/team/settings', { require_two_factor: false })).status).toBe(200);
  });
});
