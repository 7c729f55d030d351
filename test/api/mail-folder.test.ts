// Where a member's e-mails go, as the API tells the console: without an SMTP server each e-mail is a
// file in the mail folder, which GET /api/auth/me names (`mail_folder`), and an invitation made then
// answers its link (`url`), one that opens on the set-up page, for the inviter to pass on; with an
// SMTP server neither is said, and the link stays in the e-mail only.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountLinkMailedTo, call, linkToken, member, signIn } from '../support/members.js';
import { useServicePerTest, type TestService } from '../support/service.js';

const started = useServicePerTest();

async function invite(t: TestService): Promise<{ me: { mail_folder: string | null }; invitation: { url?: string; email: string } }> {
  const owner = await member(t, t.a.business.id, 'owner');
  const session = await signIn(t, owner.email);
  const email = `invitee.${Date.now()}@example.com`;
  const invited = await call(t, 'POST', '/api/team/invitations', { cookie: session.cookie, csrf: session.csrf, body: { email, role: 'support' } });
  expect(invited.status).toBe(200);
  const me = await call(t, 'GET', '/api/auth/me', { cookie: session.cookie });
  return { me: me.body.data, invitation: invited.body.data };
}

describe('without an SMTP server', () => {
  it('names the mail folder and answers the invitation’s link, the one the e-mail carries', async () => {
    const t = await started();
    const { me, invitation } = await invite(t);
    expect(me.mail_folder).toBe(join(t.dir, 'mail'));
    expect(invitation.url).toMatch(new RegExp(`^${t.url}/console/setup\\?token=[A-Za-z0-9_-]{43}$`));
    expect(invitation.url).toBe(await accountLinkMailedTo(t, invitation.email));
    const opened = await call(t, 'POST', '/api/auth/account-links/open', { body: { token: linkToken(invitation.url!) } });
    expect(opened.status).toBe(200);
    expect(opened.body.data.role).toBe('support');
    // The list of invitations never carries a link.
    const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
    const listed = await call(t, 'GET', '/api/team/invitations', { cookie: owner.cookie });
    expect(listed.body.data.every((open: object) => !('url' in open))).toBe(true);
  });
});

describe('with an SMTP server', () => {
  it('says no folder and keeps the link in the e-mail only', async () => {
    // Nothing listens there: the e-mail waits in the outbox, which is not what this test reads.
    const t = await started({ mail: { smtpUrl: 'smtp://127.0.0.1:9' }, outbox: { worker: false } });
    const { me, invitation } = await invite(t);
    expect(me.mail_folder).toBeNull();
    expect(invitation).not.toHaveProperty('url');
  });
});
