// Cross-site request forgery protection for the payer forms: a double-submit cookie. The form
// carries the same random value as a SameSite=Strict, HttpOnly cookie; a page on another site can
// neither read the cookie nor make the browser send it with a cross-site POST.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';

const COOKIE = 'pcs_csrf';

/** The value for the form's hidden field, setting the cookie when the browser has none. */
export function csrfToken(ctx: Koa.Context): string {
  const existing = ctx.cookies.get(COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  ctx.cookies.set(COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/', overwrite: true });
  return token;
}

export function csrfValid(ctx: Koa.Context, submitted: unknown): boolean {
  const cookie = ctx.cookies.get(COOKIE);
  if (!cookie || typeof submitted !== 'string' || cookie.length !== submitted.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(submitted));
}

/**
 * The browser's cookie, once `csrfValid` has accepted its post: a random value of its own, which tells
 * one payer's browser from another's (never a proof of who the payer is: any client may send any).
 */
export function browserCookie(ctx: Koa.Context): string | undefined {
  return ctx.cookies.get(COOKIE) || undefined;
}
