// A member's session as the browser holds it: the cookie's name and attributes, and the CSRF token
// bound to it (derived from the session's secret, so it needs no storage and dies with the session).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'pcs_session';

export interface SessionSettings {
  /** A session unused this long ends (SESSION_IDLE_MINUTES, 30 minutes). */
  idleMs: number;
  /** A session ends this long after sign-in, used or not (SESSION_LIFETIME_HOURS, 12 hours). */
  lifetimeMs: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = { idleMs: 30 * 60_000, lifetimeMs: 12 * 3_600_000 };

/** 32 bytes from the CSPRNG, base64url: the cookie's value, stored only as its hash. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function isSessionToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** The X-CSRF-Token a session's unsafe requests must carry. */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('pcs csrf token').digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, submitted: string | undefined): boolean {
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(submitted ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Set-Cookie for a session: HttpOnly, SameSite=Strict, Path=/, Secure when the service is served over https. */
export function sessionCookie(token: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

/** Set-Cookie that makes the browser forget the session. */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { secure, maxAgeSeconds: 0 });
}

/**
 * The server-rendered page where the holder of a one-time link (a new owner, an invitee) sets their
 * name and password: links handed out now lead to the console's page instead, and this one stays for
 * links handed out before.
 */
export const ACCOUNT_SETUP_PATH = '/account/setup';

/** Where the merchant console is served: a member is sent there to sign in. */
export const CONSOLE_PATH = '/console';

/** The console's page for a one-time link's holder (`?token=`), outside its signed-in views. */
export const CONSOLE_SETUP_PATH = `${CONSOLE_PATH}/setup`;
