// A password reset by e-mail through the API, as the console's pages use it: asked for with an e-mail
// (the same 202, body and time whether or not it names a member; only a member gets an e-mail), read
// (POST /api/auth/password-resets/open) and used once (/complete): the new password is held to the
// same rules, every session of the member ends, the member is e-mailed, two-factor sign-in stays on,
// and every step is in the audit log. Limited per client address (429) and per account (no more
// e-mails, the same answer). Addresses are the proxy's X-Forwarded-For (TRUST_PROXY_HOPS=1).
import { describe, expect, it } from 'vitest';
import { capturedLog } from '../support/log.js';
import { emailsDelivered, mailTo, mailsTo } from '../support/member-mail.js';
import { PASSWORD, call, member, sessionCookieOf, signIn, totpCode, type ApiAnswer } from '../support/members.js';
import { useService, withService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

const NEW_PASSWORD = 'velvet-canyon-drum-77';
const GONE = { message: 'This link has expired, was already used or was revoked. Ask for a new one.' };
const t = useService({ trustProxyHops: 1, passwordResets: { perAddress: { limit: 1_000, seconds: 3_600 }, perAccount: { limit: 1_000, seconds: 3_600 } } });

let addresses = 0;
const newAddress = () => `203.0.113.${++addresses}`;

const ask = (email: string, on: TestService = t, address = newAddress()) =>
  call(on, 'POST', '/api/auth/password-resets', { body: { email }, headers: { 'X-Forwarded-For': address } });
const open = (token: string, on: TestService = t) => call(on, 'POST', '/api/auth/password-resets/open', { body: { token } });
const complete = (token: string, password = NEW_PASSWORD, confirmation = password) =>
  call(t, 'POST', '/api/auth/password-resets/complete', { body: { token, password, password_confirmation: confirmation } });

/** The token of the latest reset link e-mailed to `email` (after `count` such e-mails in all). */
async function resetToken(email: string, on: TestService = t, count = 1): Promise<string> {
  const mails = await waitFor(`${count} reset e-mails to ${email}`, async () => {
    const resets = (await mailsTo(on, email)).filter((mail) => mail.subject === 'Reset your password');
    return resets.length >= count && resets;
  });
  expect(mails).toHaveLength(count);
  const tokens = mails.map((mail) => /\/console\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text!)![1]!);
  // The newest is the one the others' requests did not end: the one that opens.
  for (const token of tokens) if ((await open(token, on)).status === 200) return token;
  throw new Error('no reset link still opens');
}

async function audit(action: string, email: string): Promise<{ business_id: number | null; outcome: string; status: number }[]> {
  return t.sql('audit_events').where({ action, actor_label: email }).select('business_id', 'outcome', 'status');
}

const answered = (answer: ApiAnswer) => ({ status: answer.status, data: answer.body.data, errors: answer.body.errors, success: answer.body.success });

describe('asking for a reset link', () => {
  it('answers an unknown e-mail as it answers a member’s, and e-mails the member alone', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const unknown = `nobody.${Date.now()}@example.com`;
    const forMember = await ask(email);
    const forNobody = await ask(unknown);
    expect(answered(forMember)).toEqual({ status: 202, data: { requested: true }, errors: null, success: true });
    expect(answered(forNobody)).toEqual(answered(forMember));
    expect(Object.keys(forNobody.body)).toEqual(Object.keys(forMember.body));
    const mail = await mailTo(t, email, 'Reset your password');
    expect(mail.text).toMatch(new RegExp(`${t.url}/console/reset-password\\?token=[A-Za-z0-9_-]{43}`));
    expect(mail.text).toMatch(/Someone asked at \d{4}-\d\d-\d\d \d\d:\d\d UTC from 203\.0\.113\.\d+ to reset the password/);
    await emailsDelivered(t);
    expect(await mailsTo(t, unknown)).toEqual([]);
    expect(await audit('auth.password_reset_requested', email)).toEqual([{ business_id: t.a.business.id, outcome: 'succeeded', status: 202 }]);
    expect(await audit('auth.password_reset_requested', unknown)).toEqual([{ business_id: null, outcome: 'refused', status: 202 }]);
  });

  it('takes about as long for an unknown e-mail as for a member’s', async () => {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const timed = async (email: string) => {
      const started = performance.now();
      expect((await ask(email)).status).toBe(202);
      return performance.now() - started;
    };
    const members: number[] = [];
    const strangers: number[] = [];
    for (let i = 0; i < 11; i++) {
      members.push(await timed((await member(t, t.a.business.id, 'viewer')).email));
      strangers.push(await timed(`nobody.${i}.${Date.now()}@example.com`));
    }
    const ratio = median(strangers) / median(members);
    console.log(
      `password reset asked: member ${median(members).toFixed(1)} ms, unknown ${median(strangers).toFixed(1)} ms (median of 11), ratio ${ratio.toFixed(2)}`,
    );
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  }, 60_000);

  it('sends nothing to an invited e-mail that has no password yet', async () => {
    const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
    const invitee = `invitee.${Date.now()}@example.com`;
    expect((await call(t, 'POST', '/api/team/invitations', { cookie: owner.cookie, csrf: owner.csrf, body: { email: invitee, role: 'viewer' } })).status).toBe(
      200,
    );
    expect((await ask(invitee)).status).toBe(202);
    await emailsDelivered(t);
    expect((await mailsTo(t, invitee)).map((mail) => mail.subject)).not.toContain('Reset your password');
  });
});

describe('using a reset link', () => {
  it('sets the new password once, ends every session of the member, and tells them', async () => {
    const { email } = await member(t, t.a.business.id, 'finance');
    const sessions = [await signIn(t, email), await signIn(t, email)];
    await ask(email);
    const token = await resetToken(email);
    const opened = await open(token);
    expect(opened.status).toBe(200);
    expect(opened.body.data).toEqual({ email, expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) });
    expect(Date.parse(opened.body.data.expires_at) - Date.now()).toBeGreaterThan(55 * 60_000);

    const weak = await complete(token, 'password1234');
    expect(weak.status).toBe(422);
    expect(weak.body.errors).toEqual({ password: ['The given password is too common or too easy to guess. Please choose a different password.'] });
    const mismatch = await complete(token, NEW_PASSWORD, `${NEW_PASSWORD}x`);
    expect(mismatch.body.errors).toEqual({ password_confirmation: ['The password confirmation does not match.'] });
    const done = await complete(token);
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ email, sessions_ended: 2 });
    expect(sessionCookieOf(done)).toBeUndefined();

    for (const session of sessions) expect((await call(t, 'GET', '/api/auth/me', { cookie: session.cookie })).status).toBe(401);
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);
    await signIn(t, email, NEW_PASSWORD);
    // Once.
    expect(await complete(token, 'another-fine-pass-99')).toMatchObject({ status: 410, body: GONE });
    expect((await open(token)).status).toBe(410);
    const mail = await mailTo(t, email, 'Your password was changed');
    expect(mail.text).toMatch(/was reset through a link e-mailed to you at .* from 127\.0\.0\.1\./);
    expect((await audit('auth.password_reset', email)).map((row) => [row.business_id, row.outcome, row.status]).sort()).toEqual([
      [t.a.business.id, 'refused', 422],
      [t.a.business.id, 'refused', 422],
      [t.a.business.id, 'succeeded', 200],
    ]);
    // A used link names no one any more: its refusal is recorded without a business.
    const gone = await t.sql('audit_events').where({ action: 'auth.password_reset', status: 410 }).whereNull('business_id').count({ count: '*' });
    expect(Number((gone[0] as { count: number | string }).count)).toBeGreaterThan(0);
  });

  it('refuses an unknown, an expired and a replaced link with 410, and a password change ends an open one', async () => {
    expect(await complete('A'.repeat(43))).toMatchObject({ status: 410, body: GONE });
    expect(await open('A'.repeat(43))).toMatchObject({ status: 410, body: GONE });

    const { email, userId } = await member(t, t.a.business.id, 'viewer');
    await ask(email);
    const first = await resetToken(email);
    await ask(email);
    const second = await resetToken(email, t, 2);
    expect(second).not.toBe(first);
    expect((await open(first)).status).toBe(410);
    await t
      .sql('password_resets')
      .where({ user_id: userId })
      .whereNull('used_at')
      .update({ expires_at: new Date(Date.now() - 1_000).toISOString() });
    expect((await complete(second)).status).toBe(410);

    await ask(email);
    const third = await resetToken(email, t, 3);
    const session = await signIn(t, email);
    const changed = await call(t, 'POST', '/api/auth/password', {
      cookie: session.cookie,
      csrf: session.csrf,
      body: { current_password: PASSWORD, password: NEW_PASSWORD },
    });
    expect(changed.status).toBe(200);
    expect((await open(third)).status).toBe(410);
  });

  it('leaves two-factor sign-in on: the new password still needs a code', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const session = await signIn(t, email);
    const offer = await call(t, 'POST', '/api/auth/totp', { cookie: session.cookie, csrf: session.csrf });
    const secret: string = offer.body.data.secret;
    expect((await call(t, 'POST', '/api/auth/totp/confirm', { cookie: session.cookie, csrf: session.csrf, body: { code: totpCode(secret) } })).status).toBe(
      200,
    );
    await ask(email);
    expect((await complete(await resetToken(email))).status).toBe(200);
    const noCode = await call(t, 'POST', '/api/auth/login', { body: { email, password: NEW_PASSWORD } });
    expect(noCode.body).toEqual({ message: 'A two-factor code is required.', two_factor_required: true });
    await signIn(t, email, NEW_PASSWORD, { totp_code: totpCode(secret, 1) });
  });
});

describe('limits', () => {
  it('tells a client that asked too often to wait, and sends an account no more links than its limit, with the same answer', async () => {
    await withService(
      { trustProxyHops: 1, passwordResets: { perAddress: { limit: 2, seconds: 3_600 }, perAccount: { limit: 1, seconds: 3_600 } } },
      async (limited) => {
        const { email } = await member(limited, limited.a.business.id, 'viewer');
        const address = newAddress();
        expect((await ask(email, limited, address)).status).toBe(202);
        // The account has had its link: the same answer from elsewhere, and no second e-mail.
        const again = await ask(email, limited, address);
        expect(answered(again)).toEqual({ status: 202, data: { requested: true }, errors: null, success: true });
        const tooMany = await ask(`nobody.${Date.now()}@example.com`, limited, address);
        expect(tooMany.status).toBe(429);
        expect(tooMany.body).toEqual({ message: 'Too many password resets were asked for. Try again later.' });
        expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await ask(email, limited, newAddress())).status).toBe(202);
        await emailsDelivered(limited);
        expect((await mailsTo(limited, email)).filter((mail) => mail.subject === 'Reset your password')).toHaveLength(1);
      },
    );
  });
});

describe('logs', () => {
  it('never write the reset link’s token, the new password or the e-mail asked for', async () => {
    const log = capturedLog();
    await withService({ logger: log.logger, trustProxyHops: 1 }, async (logged) => {
      const { email } = await member(logged, logged.a.business.id, 'viewer');
      await ask(email, logged);
      const token = await resetToken(email, logged);
      await call(logged, 'POST', '/api/auth/password-resets/complete', { body: { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD } });
      const text = JSON.stringify(log.lines);
      expect(text).toContain('/api/auth/password-resets/complete');
      for (const secret of [token, NEW_PASSWORD, email]) expect(text).not.toContain(secret);
    });
  });
});
