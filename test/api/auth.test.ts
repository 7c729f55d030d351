// Members signing in through the API: the same answer for an unknown e-mail and a wrong password,
// throttled failures (the rest of the throttle: auth-lockout.test.ts, auth-secrets.test.ts,
// security/secret-attempts-race.test.ts), the session cookie (new at every sign-in, its flags, idle and absolute ends),
// CSRF on the session's unsafe requests, a password change, and two-factor sign-in.
import { describe, expect, it } from 'vitest';
import { capturedLog } from '../support/log.js';
import { useService, withService } from '../support/service.js';
import { PASSWORD, call, member, sessionCookieOf, signIn, totpCode } from '../support/members.js';
import { sessionCaller } from '../../server/usecases/members/auth.js';

const t = useService();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('sign-in', () => {
  it('answers an unknown e-mail and a wrong password alike, in similar time', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const timed = async (body: object) => {
      const started = performance.now();
      const response = await call(t, 'POST', '/api/auth/login', { body });
      return { response, ms: performance.now() - started };
    };
    const unknown: number[] = [];
    const wrong: number[] = [];
    let unknownAnswer, wrongAnswer;
    for (let i = 0; i < 5; i++) {
      const u = await timed({ email: `nobody${i}@example.com`, password: 'not-the-password-1' });
      const w = await timed({ email, password: 'not-the-password-1' });
      unknown.push(u.ms);
      wrong.push(w.ms);
      unknownAnswer = { status: u.response.status, body: u.response.body };
      wrongAnswer = { status: w.response.status, body: w.response.body };
    }
    expect(unknownAnswer).toEqual({ status: 401, body: { message: 'These credentials do not match our records.' } });
    expect(wrongAnswer).toEqual(unknownAnswer);
    // Both derive one scrypt hash; without the dummy hash an unknown e-mail answers many times faster.
    const ratio = median(unknown) / median(wrong);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  }, 120_000);

  it('sets a new session cookie at every sign-in, HttpOnly, SameSite=Strict, Path=/, and not Secure over http', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const first = await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    expect(first.status).toBe(200);
    const set = first.headers.getSetCookie().find((cookie) => cookie.startsWith('pcs_session='))!;
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Strict/);
    expect(set).toMatch(/; Path=\//);
    expect(set).not.toMatch(/Secure/);
    const firstCookie = sessionCookieOf(first)!;
    expect(firstCookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Signing in again with the old cookie: a new id, and the old one signs no one in.
    const second = await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD }, cookie: firstCookie });
    const secondCookie = sessionCookieOf(second)!;
    expect(secondCookie).not.toBe(firstCookie);
    expect((await call(t, 'GET', '/api/auth/me', { cookie: firstCookie })).status).toBe(401);
    const me = await call(t, 'GET', '/api/auth/me', { cookie: secondCookie });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ user: { email }, role: 'viewer', business: { business_id: t.a.business.id } });
    expect(me.body.data.permissions).toContain('payments:read');
  });

  it('marks the cookie Secure when PUBLIC_URL is https', async () => {
    await withService({ publicUrl: 'https://pay.example.com' }, async (https) => {
      const { email } = await member(https, https.a.business.id, 'viewer');
      const response = await call(https, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
      expect(response.headers.getSetCookie().find((cookie) => cookie.startsWith('pcs_session='))).toMatch(/; Secure/);
    });
  });

  it('refuses sign-ins to an account that failed too often from this address, with 429 and Retry-After, even with the right password', async () => {
    await withService({ signInLimits: { perAccount: { limit: 3, seconds: 900 } } }, async (limited) => {
      const { email } = await member(limited, limited.a.business.id, 'viewer');
      for (let i = 0; i < 3; i++)
        expect((await call(limited, 'POST', '/api/auth/login', { body: { email, password: 'wrong-password-123' } })).status).toBe(401);
      const refused = await call(limited, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another account from the same address is not held back by this one's failures.
      const other = await member(limited, limited.a.business.id, 'viewer');
      expect((await call(limited, 'POST', '/api/auth/login', { body: { email: other.email, password: PASSWORD } })).status).toBe(200);
    });
  });

  it('refuses sign-ins from an address that failed too often across accounts', async () => {
    await withService({ signInLimits: { perAddress: { limit: 4, seconds: 900 } } }, async (limited) => {
      for (let i = 0; i < 4; i++)
        await call(limited, 'POST', '/api/auth/login', { body: { email: `someone${i}@example.com`, password: 'wrong-password-123' } });
      const refused = await call(limited, 'POST', '/api/auth/login', { body: { email: 'another@example.com', password: 'wrong-password-123' } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBeTruthy();
    });
  });
});

describe('logs', () => {
  it('never write a password, a two-factor code or the session cookie', async () => {
    const log = capturedLog();
    await withService({ logger: log.logger }, async (logged) => {
      const { email } = await member(logged, logged.a.business.id, 'viewer');
      await call(logged, 'POST', '/api/auth/login', { body: { email, password: 'wrong-password-4711', totp_code: '271828' } });
      const session = await signIn(logged, email);
      await call(logged, 'POST', '/api/auth/password', { cookie: session.cookie, csrf: session.csrf, body: { current_password: PASSWORD, password: 'x' } });
      await call(logged, 'GET', '/api/auth/me', { cookie: session.cookie });
      const text = JSON.stringify(log.lines);
      expect(log.lines.length).toBeGreaterThan(0);
      for (const secret of ['wrong-password-4711', '271828', PASSWORD, session.cookie, session.csrf]) expect(text).not.toContain(secret);
    });
  });
});

describe('session expiry', () => {
  // The clock is the one sessionCaller (the use case behind the session cookie) takes: the tests move it
  // rather than wait it out, then find the session refused over HTTP too (an ended session is deleted).
  const me = (short: typeof t, session: { cookie: string }) => call(short, 'GET', '/api/auth/me', { cookie: session.cookie });

  it('ends a session left idle past the idle timeout', async () => {
    const idleMs = 60_000;
    await withService({ sessions: { idleMs } }, async (short) => {
      const { email } = await member(short, short.a.business.id, 'viewer');
      const session = await signIn(short, email);
      expect((await me(short, session)).status).toBe(200);
      // Used just before its idle timeout, which starts it again from there.
      const usedAt = Date.now() + idleMs - 1_000;
      expect(await sessionCaller(short.service.context, session.cookie, new Date(usedAt))).toBeDefined();
      expect(await sessionCaller(short.service.context, session.cookie, new Date(usedAt + idleMs - 1_000))).toBeDefined();
      // Then left idle for the whole of it.
      expect(await sessionCaller(short.service.context, session.cookie, new Date(usedAt + 2 * idleMs - 1_000))).toBeUndefined();
      expect((await me(short, session)).status).toBe(401);
    });
  });

  it('ends a session at its absolute lifetime however busy it is', async () => {
    const idleMs = 60_000;
    const lifetimeMs = 600_000;
    await withService({ sessions: { idleMs, lifetimeMs } }, async (short) => {
      const { email } = await member(short, short.a.business.id, 'viewer');
      const session = await signIn(short, email);
      // At or after the session's start, which the server set before answering.
      const signedInAt = Date.now();
      // Busy throughout: used every 50 s (well within the idle timeout) until just before the end.
      let uses = 0;
      for (let at = signedInAt; at < signedInAt + lifetimeMs - 1_000; at += 50_000) {
        expect(await sessionCaller(short.service.context, session.cookie, new Date(at)), `at ${at - signedInAt} ms`).toBeDefined();
        uses += 1;
      }
      expect(uses).toBe(12);
      expect((await me(short, session)).status).toBe(200);
      expect(await sessionCaller(short.service.context, session.cookie, new Date(signedInAt + lifetimeMs))).toBeUndefined();
      expect((await me(short, session)).status).toBe(401);
    });
  });
});

describe('CSRF', () => {
  const linkBody = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' };

  it('refuses a session cookie POST without X-CSRF-Token, and accepts it with the token', async () => {
    const { email } = await member(t, t.a.business.id, 'admin');
    const session = await signIn(t, email);
    const refused = await call(t, 'POST', '/api/payment-links', { cookie: session.cookie, body: linkBody });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'The CSRF token is missing or invalid.' });
    expect((await call(t, 'POST', '/api/payment-links', { cookie: session.cookie, csrf: 'x'.repeat(43), body: linkBody })).status).toBe(403);
    const accepted = await call(t, 'POST', '/api/payment-links', { cookie: session.cookie, csrf: session.csrf, body: linkBody });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.business_id).toBe(t.a.business.id);
    // No CORS headers are added.
    expect(accepted.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("refuses a session request from another Origin, even with the token, and accepts the service's own", async () => {
    const { email } = await member(t, t.a.business.id, 'admin');
    const session = await signIn(t, email);
    const other = await call(t, 'POST', '/api/payment-links', {
      cookie: session.cookie,
      csrf: session.csrf,
      body: linkBody,
      headers: { Origin: 'https://evil.example' },
    });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ message: 'The request came from another origin.' });
    const own = await call(t, 'POST', '/api/payment-links', { cookie: session.cookie, csrf: session.csrf, body: linkBody, headers: { Origin: t.url } });
    expect(own.status).toBe(200);
    // A sign-in posted from another site's page is refused too.
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD }, headers: { Origin: 'https://evil.example' } })).status).toBe(403);
  });

  it('leaves requests with a bearer key alone', async () => {
    const response = await call(t, 'POST', '/api/payment-links', {
      body: linkBody,
      headers: { Authorization: `Bearer ${t.a.key}`, Origin: 'https://evil.example' },
    });
    expect(response.status).toBe(200);
  });
});

describe('sessions and password', () => {
  it("lists the member's sessions, ends one, and a password change ends every other session", async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const one = await signIn(t, email);
    const two = await signIn(t, email);
    const three = await signIn(t, email);
    const listed = await call(t, 'GET', '/api/auth/sessions', { cookie: one.cookie });
    expect(listed.body.data).toHaveLength(3);
    expect(listed.body.data.filter((s: { current: boolean }) => s.current)).toEqual([expect.objectContaining({ _id: one.me.session_id })]);
    expect((await call(t, 'DELETE', `/api/auth/sessions/${three.me.session_id}`, { cookie: one.cookie, csrf: one.csrf })).status).toBe(200);
    expect((await call(t, 'GET', '/api/auth/me', { cookie: three.cookie })).status).toBe(401);
    expect((await call(t, 'DELETE', `/api/auth/sessions/${three.me.session_id}`, { cookie: one.cookie, csrf: one.csrf })).status).toBe(404);

    // A session's password change needs its CSRF token like any unsafe request.
    const forged = await call(t, 'POST', '/api/auth/password', { cookie: one.cookie, body: { current_password: PASSWORD, password: 'velvet-canyon-drum-77' } });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({ message: 'The CSRF token is missing or invalid.' });
    const weak = await call(t, 'POST', '/api/auth/password', {
      cookie: one.cookie,
      csrf: one.csrf,
      body: { current_password: PASSWORD, password: 'password1234' },
    });
    expect(weak.status).toBe(422);
    expect(weak.body.errors.password[0]).toMatch(/too common/);
    const wrong = await call(t, 'POST', '/api/auth/password', {
      cookie: one.cookie,
      csrf: one.csrf,
      body: { current_password: 'not-it-at-all-1', password: 'velvet-canyon-drum-77' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ message: 'The given data was invalid.', errors: { current_password: ['The password is incorrect.'] } });
    const changed = await call(t, 'POST', '/api/auth/password', {
      cookie: one.cookie,
      csrf: one.csrf,
      body: { current_password: PASSWORD, password: 'velvet-canyon-drum-77' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ password_changed: true, other_sessions_ended: 1 });
    expect((await call(t, 'GET', '/api/auth/me', { cookie: two.cookie })).status).toBe(401);
    const renewed = sessionCookieOf(changed)!;
    expect(renewed).not.toBe(one.cookie);
    expect((await call(t, 'GET', '/api/auth/me', { cookie: renewed })).status).toBe(200);
    expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);
    await signIn(t, email, 'velvet-canyon-drum-77');
  });

  it('refuses passwords shorter than 12 characters or common ones when members are made', async () => {
    await expect(member(t, t.a.business.id, 'viewer', 'short-pw-1')).rejects.toThrow(/at least 12 characters/);
    await expect(member(t, t.a.business.id, 'viewer', 'qwerty123456')).rejects.toThrow(/too common/);
  });

  it('signs out: the cookie is cleared and the session ends', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const session = await signIn(t, email);
    const out = await call(t, 'POST', '/api/auth/logout', { cookie: session.cookie, csrf: session.csrf });
    expect(out.status).toBe(200);
    expect(sessionCookieOf(out)).toBe('');
    expect((await call(t, 'GET', '/api/auth/me', { cookie: session.cookie })).status).toBe(401);
  });

  it('switches the current business with a new session id', async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const { createMember } = await import('../../server/usecases/members/accounts.js');
    await createMember(t.service.context, { businessId: t.b.business.id, email, role: 'finance', password: PASSWORD });
    const session = await signIn(t, email);
    expect(session.me.memberships).toHaveLength(2);
    const switched = await call(t, 'POST', '/api/auth/business', { cookie: session.cookie, csrf: session.csrf, body: { business_id: t.b.business.id } });
    expect(switched.status).toBe(200);
    expect(switched.body.data).toMatchObject({ role: 'finance', business: { business_id: t.b.business.id } });
    const cookie = sessionCookieOf(switched)!;
    expect(cookie).not.toBe(session.cookie);
    expect((await call(t, 'GET', '/api/auth/me', { cookie: session.cookie })).status).toBe(401);
    const links = await call(t, 'GET', '/api/payment-links', { cookie });
    expect(links.status).toBe(200);
    const missing = await call(t, 'POST', '/api/auth/business', { cookie, csrf: switched.body.data.csrf_token, body: { business_id: 999_999 } });
    expect(missing.status).toBe(404);
  });
});

describe('two-factor sign-in', () => {
  async function withTwoFactor() {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const session = await signIn(t, email);
    const offer = await call(t, 'POST', '/api/auth/totp', { cookie: session.cookie, csrf: session.csrf });
    expect(offer.status).toBe(200);
    expect(offer.body.data.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    expect(offer.body.data.qr_svg).toMatch(/<svg/);
    const secret: string = offer.body.data.secret;
    expect((await call(t, 'POST', '/api/auth/totp/confirm', { cookie: session.cookie, csrf: session.csrf, body: { code: '000000' } })).status).toBe(422);
    const confirmed = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: session.cookie, csrf: session.csrf, body: { code: totpCode(secret) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.body.data.recovery_codes).size).toBe(10);
    const cookie = sessionCookieOf(confirmed)!;
    expect(cookie).not.toBe(session.cookie);
    return { email, secret, recoveryCodes: confirmed.body.data.recovery_codes as string[], cookie };
  }

  it('asks for a code after the right password, and refuses a code the second time', async () => {
    const { email, secret } = await withTwoFactor();
    const noCode = await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    expect(noCode.status).toBe(401);
    expect(noCode.body).toEqual({ message: 'A two-factor code is required.', two_factor_required: true });
    expect(sessionCookieOf(noCode)).toBeUndefined();
    // The confirming code used this time step; the next step's code is still good once.
    const code = totpCode(secret, 1);
    await signIn(t, email, PASSWORD, { totp_code: code });
    const again = await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD, totp_code: code } });
    expect(again.status).toBe(401);
    expect(again.body.message).toBe('The two-factor code is invalid.');
  });

  it('takes each recovery code once', async () => {
    const { email, recoveryCodes } = await withTwoFactor();
    const session = await signIn(t, email, PASSWORD, { recovery_code: recoveryCodes[0]! });
    expect(session.me.user.recovery_codes_left).toBe(9);
    const again = await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD, recovery_code: recoveryCodes[0]! } });
    expect(again.status).toBe(401);
    await signIn(t, email, PASSWORD, { recovery_code: recoveryCodes[1]!.toUpperCase() });
  });

  it('turns off only with the password and a current code, with a new session id', async () => {
    const { email, secret, cookie } = await withTwoFactor();
    const me = await call(t, 'GET', '/api/auth/me', { cookie });
    const csrf = me.body.data.csrf_token;
    expect((await call(t, 'DELETE', '/api/auth/totp', { cookie, csrf, body: { password: PASSWORD, totp_code: '123456' } })).status).toBe(422);
    const off = await call(t, 'DELETE', '/api/auth/totp', { cookie, csrf, body: { password: PASSWORD, totp_code: totpCode(secret, 1) } });
    expect(off.status).toBe(200);
    expect(sessionCookieOf(off)).not.toBe(cookie);
    await signIn(t, email);
  });
});
