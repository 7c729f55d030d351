// Cross-site request forgery protection for the payer forms: a double-submit cookie. The form
// carries the same random value as a SameSite=Strict, HttpOnly cookie; a page on another site can
// neither read the cookie nor make the browser send it with a cross-site POST.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';

const COOKIE = 'pcs_csrf';

/** The value for the form's hidden field, setting the cookie when the browser has none. */
export function csrfToken(koa: Koa.Context): string {
  const existing = koa.cookies.get(COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  koa.cookies.set(COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: koa.secure, path: '/', overwrite: true });
  return token;
}

export function csrfValid(koa: Koa.Context, submitted: unknown): boolean {
  const cookie = koa.cookies.get(COOKIE);
  if (!cookie || typeof submitted !== 'string' || cookie.length !== submitted.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(submitted));
}

/**
 * The browser's cookie, once `csrfValid` has accepted its post: a random value of its own, which tells
 * one payer's browser from another's (never a proof of who the payer is: any client may send any).
 */
export function browserCookie(koa: Koa.Context): string | undefined {
  return koa.cookies.get(COOKIE) || undefined;
}
