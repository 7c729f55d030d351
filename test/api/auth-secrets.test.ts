// Every check of a member's password or codes outside sign-in goes through the same throttle as
// sign-in: turning two-factor off (which needs the current password and a current code), changing the
// password, and confirming an existing account's password on an invitation; past the limit each
// answers 429 with Retry-After, and sign-in from that address waits too. A wrong password on an
// invitation is recorded in the audit log (the operation is public). The member is e-mailed when the
// password changes, when two-factor sign-in goes on or off, and when the recovery codes are replaced
// (which needs the same proof as turning it off).
import { describe, expect, it } from 'vitest';
import { emailsDelivered, mailTo, mailsTo } from '../support/member-mail.js';
import { PASSWORD, accountLinkMailedTo, call, linkToken, member, sessionCookieOf, signIn, totpCode, type Session } from '../support/members.js';
import { useService } from '../support/service.js';

const LIMIT = 3;
const t = useService({ signInLimits: { perAccount: { limit: LIMIT, seconds: 900 } } });
const TOO_MANY = { message: "Too many failed attempts at this account's password or codes. Try again later." };

/** A member signed in with two-factor sign-in turned on: their secret, and the session (with its new id). */
async function withTwoFactor(): Promise<{ email: string; secret: string; session: Session }> {
  const { email } = await member(t, t.a.business.id, 'viewer');
  const first = await signIn(t, email);
  const offer = await call(t, 'POST', '/api/auth/totp', { cookie: first.cookie, csrf: first.csrf });
  const secret: string = offer.body.data.secret;
  const on = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: first.cookie, csrf: first.csrf, body: { code: totpCode(secret) } });
  expect(on.status).toBe(200);
  const cookie = sessionCookieOf(on)!;
  const me = await call(t, 'GET', '/api/auth/me', { cookie });
  return { email, secret, session: { cookie, csrf: me.body.data.csrf_token, me: me.body.data } };
}

const turnOff = (session: Session, body: Record<string, string>) => call(t, 'DELETE', '/api/auth/totp', { cookie: session.cookie, csrf: session.csrf, body });

async function twoFactorOn(session: Session): Promise<boolean> {
  return (await call(t, 'GET', '/api/auth/me', { cookie: session.cookie })).body.data.user.two_factor_enabled;
}

describe('turning two-factor sign-in off', () => {
  it('needs the current password and a current code, both', async () => {
    const { email, secret, session } = await withTwoFactor();
    const codeAlone = await turnOff(session, { totp_code: totpCode(secret, 1) });
    expect(codeAlone.status).toBe(422);
    expect(codeAlone.body.errors).toEqual({ password: ['The password field is required.'] });
    const wrongPassword = await turnOff(session, { password: 'not-my-password-1', totp_code: totpCode(secret, 1) });
    expect(wrongPassword.status).toBe(422);
    expect(wrongPassword.body).toEqual({ message: 'The given data was invalid.', errors: { password: ['The password is incorrect.'] } });
    const wrongCode = await turnOff(session, { password: PASSWORD, totp_code: '123456' });
    expect(wrongCode.body).toEqual({ message: 'The given data was invalid.', errors: { totp_code: ['The code is invalid.'] } });
    const passwordAlone = await turnOff(session, { password: PASSWORD });
    expect(passwordAlone.status).toBe(422);
    expect(await twoFactorOn(session)).toBe(true);
    // The failures above were attempts like sign-in's: the limit is nearly used up, and a success gives nothing back.
    const off = await turnOff(session, { password: PASSWORD, totp_code: totpCode(secret, 1) });
    expect(off.status, JSON.stringify(off.body)).toBe(429);
    expect(off.body).toEqual(TOO_MANY);
    expect(Number(off.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD, totp_code: totpCode(secret, 1) } })).status).toBe(429);
  });

  it('goes off with both, with a new session id, and the member is e-mailed', async () => {
    const { email, secret, session } = await withTwoFactor();
    const off = await turnOff(session, { password: PASSWORD, totp_code: totpCode(secret, 1) });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ two_factor_enabled: false });
    expect(sessionCookieOf(off)).not.toBe(session.cookie);
    const on = await mailTo(t, email, 'Two-factor sign-in is on');
    expect(on.text).toMatch(/new set of ten recovery codes/);
    const offMail = await mailTo(t, email, 'Two-factor sign-in is off');
    expect(offMail.text).toMatch(/turned off for your account on the payment collection service at \d{4}-\d\d-\d\d \d\d:\d\d UTC from 127\.0\.0\.1/);
    expect(offMail.text).toContain(`${t.url}/console/forgot-password`);
    await signIn(t, email);
  });

  it('takes a recovery code instead of the app’s code, with the password', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const first = await signIn(t, email);
    const offer = await call(t, 'POST', '/api/auth/totp', { cookie: first.cookie, csrf: first.csrf });
    const on = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: first.cookie, csrf: first.csrf, body: { code: totpCode(offer.body.data.secret) } });
    const cookie = sessionCookieOf(on)!;
    const csrf = (await call(t, 'GET', '/api/auth/me', { cookie })).body.data.csrf_token;
    const off = await turnOff({ cookie, csrf, me: undefined }, { password: PASSWORD, recovery_code: on.body.data.recovery_codes[0] });
    expect(off.status).toBe(200);
  });
});

describe('replacing the recovery codes', () => {
  const regenerate = (session: Session, body: Record<string, string>) =>
    call(t, 'POST', '/api/auth/totp/recovery-codes', { cookie: session.cookie, csrf: session.csrf, body });

  it('answers ten new codes for the password and a current code; the old ones stop working, the session stays, the member is e-mailed', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const first = await signIn(t, email);
    const offer = await call(t, 'POST', '/api/auth/totp', { cookie: first.cookie, csrf: first.csrf });
    const secret: string = offer.body.data.secret;
    const on = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: first.cookie, csrf: first.csrf, body: { code: totpCode(secret) } });
    const old: string[] = on.body.data.recovery_codes;
    const cookie = sessionCookieOf(on)!;
    const session = { cookie, csrf: (await call(t, 'GET', '/api/auth/me', { cookie })).body.data.csrf_token, me: undefined };
    // One old code spent, so the count shows the new set is whole.
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD, recovery_code: old[0] } })).status).toBe(200);

    const made = await regenerate(session, { password: PASSWORD, totp_code: totpCode(secret, 1) });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const fresh: string[] = made.body.data.recovery_codes;
    expect(made.body.data.two_factor_enabled).toBe(true);
    expect(fresh).toHaveLength(10);
    expect(new Set(fresh).size).toBe(10);
    expect(fresh.filter((code) => old.includes(code))).toEqual([]);
    expect(sessionCookieOf(made)).toBeUndefined();
    const me = await call(t, 'GET', '/api/auth/me', { cookie });
    expect(me.status).toBe(200);
    expect(me.body.data.user.recovery_codes_left).toBe(10);

    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD, recovery_code: old[1] } })).status).toBe(401);
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD, recovery_code: fresh[0] } })).status).toBe(200);
    const mail = await mailTo(t, email, 'New two-factor recovery codes');
    expect(mail.text).toMatch(/codes from before no longer work/);
    const audit = await t.sql('audit_events').where({ action: 'auth.recovery_codes_regenerated' }).select('actor_label');
    expect(audit.map((row: { actor_label: string }) => row.actor_label)).toContain(email);
  });

  it('needs the current password and a current code, and two-factor on', async () => {
    const { secret, session } = await withTwoFactor();
    const before = (await call(t, 'GET', '/api/auth/me', { cookie: session.cookie })).body.data.user.recovery_codes_left;
    const wrongPassword = await regenerate(session, { password: 'not-my-password-1', totp_code: totpCode(secret, 1) });
    expect(wrongPassword.body).toEqual({ message: 'The given data was invalid.', errors: { password: ['The password is incorrect.'] } });
    const wrongCode = await regenerate(session, { password: PASSWORD, totp_code: '123456' });
    expect(wrongCode.body).toEqual({ message: 'The given data was invalid.', errors: { totp_code: ['The code is invalid.'] } });
    expect((await call(t, 'GET', '/api/auth/me', { cookie: session.cookie })).body.data.user.recovery_codes_left).toBe(before);

    const { email } = await member(t, t.a.business.id, 'viewer');
    const plain = await signIn(t, email);
    const without = await regenerate(plain, { password: PASSWORD, totp_code: '123456' });
    expect(without.status).toBe(409);
    expect(without.body).toEqual({ message: 'Two-factor sign-in is not on.' });
  });
});

describe('changing the password', () => {
  it('counts a wrong current password like a failed sign-in: past the limit 429, for sign-in too', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const session = await signIn(t, email);
    const change = (current: string) =>
      call(t, 'POST', '/api/auth/password', {
        cookie: session.cookie,
        csrf: session.csrf,
        body: { current_password: current, password: 'velvet-canyon-drum-77' },
      });
    for (let i = 0; i < LIMIT; i++) expect((await change(`wrong-current-${i}-abc`)).status).toBe(422);
    const refused = await change(PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(429);
  });

  it('does not count a new password refused as weak', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const session = await signIn(t, email);
    for (let i = 0; i < LIMIT + 1; i++) {
      const weak = await call(t, 'POST', '/api/auth/password', {
        cookie: session.cookie,
        csrf: session.csrf,
        body: { current_password: 'wrong-but-unchecked', password: 'password1234' },
      });
      expect(weak.body.errors).toEqual({ password: ['The given password is too common or too easy to guess. Please choose a different password.'] });
    }
    await signIn(t, email);
  });

  it('e-mails the member', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const session = await signIn(t, email);
    const changed = await call(t, 'POST', '/api/auth/password', {
      cookie: session.cookie,
      csrf: session.csrf,
      body: { current_password: PASSWORD, password: 'velvet-canyon-drum-77' },
    });
    expect(changed.status).toBe(200);
    const mail = await mailTo(t, email, 'Your password was changed');
    expect(mail.text).toMatch(
      /The password of your account on the payment collection service was changed at .* from 127\.0\.0\.1\. Your other sessions were signed out\./,
    );
  });
});

describe('an invitation to an existing account', () => {
  it('counts a wrong password like a failed sign-in, records it in both businesses, and past the limit answers 429', async () => {
    const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
    const { email, userId } = await member(t, t.b.business.id, 'developer');
    const invited = await call(t, 'POST', '/api/team/invitations', { cookie: owner.cookie, csrf: owner.csrf, body: { email, role: 'viewer' } });
    expect(invited.status).toBe(200);
    const token = linkToken(await accountLinkMailedTo(t, email));
    const accept = (password: string) => call(t, 'POST', '/api/auth/account-links/accept', { body: { token, password } });
    for (let i = 0; i < LIMIT; i++) {
      const wrong = await accept(`wrong-guess-${i}-abcdef`);
      expect(wrong.status).toBe(422);
      expect(wrong.body.errors).toEqual({ password: ['The password is incorrect.'] });
    }
    const refused = await accept(PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(429);
    const rows = await t.sql('audit_events').where({ action: 'auth.link_password_failed', actor_label: email }).select('business_id', 'outcome', 'status');
    const byBusiness = (id: number) =>
      rows.filter((row: { business_id: number }) => Number(row.business_id) === id).map((row: { status: number }) => Number(row.status));
    expect(byBusiness(t.a.business.id).sort()).toEqual([422, 422, 422, 429]);
    expect(byBusiness(t.b.business.id).sort()).toEqual([422, 422, 422, 429]);
    const targets = await t
      .sql('audit_event_targets')
      .whereIn('event_id', t.sql('audit_events').select('_id').where({ action: 'auth.link_password_failed', actor_label: email }))
      .select('target_id');
    expect(new Set(targets.map((row: { target_id: string }) => row.target_id))).toContain(userId);
  });
});

describe('e-mails', () => {
  it('go to the member alone: nothing to anyone for a sign-in', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    await signIn(t, email);
    await emailsDelivered(t);
    expect(await mailsTo(t, email)).toEqual([]);
  });
});
