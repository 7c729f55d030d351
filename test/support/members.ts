// Members signed in through the API as a browser would: the session cookie kept by hand, the CSRF
// token read from /api/auth/me and sent with unsafe requests.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { TOTP, Secret } from 'otpauth';
import { expect } from 'vitest';
import type { Role } from '../../server/domain/permissions.js';
import { createMember } from '../../server/usecases/members/accounts.js';
import { assertConforms } from './contract.js';
import type { TestService } from './service.js';
import { waitFor } from './wait.js';

export const PASSWORD = 'plum-orbit-kettle-42';

let counter = 0;

/** A new member of `businessId` with PASSWORD (or `password`); returns their e-mail. */
export async function member(t: TestService, businessId: number, role: Role, password = PASSWORD): Promise<{ email: string; userId: string }> {
  const email = `member${++counter}.${Date.now()}@example.com`;
  const outcome = await createMember(t.service.context, { businessId, email, role, password });
  if (outcome.kind !== 'created') throw new Error(`createMember: ${outcome.message}`);
  return { email, userId: outcome.userId };
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  // The answer as JSON, already checked against openapi.yaml: tests read it as they need.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request to the API, its answer checked against openapi.yaml. */
export async function call(
  t: TestService,
  method: string,
  path: string,
  options: { cookie?: string; csrf?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.cookie) headers.Cookie = `pcs_session=${options.cookie}`;
  if (options.csrf) headers['X-CSRF-Token'] = options.csrf;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${t.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  // Only the API's operations have a contract (a CSRF refusal of an existing operation is the access work's 403).
  if (response.status !== 403 || path.startsWith('/api/auth') || path.startsWith('/api/team'))
    await assertConforms({
      method,
      path: path.split('?')[0]!,
      status: response.status,
      contentType: response.headers.get('content-type'),
      headers: Object.fromEntries(response.headers),
      body,
    });
  return { status: response.status, headers: response.headers, body };
}

/** The session cookie's value a response sets ('' when it clears it), or undefined. */
export function sessionCookieOf(response: ApiAnswer): string | undefined {
  const set = response.headers.getSetCookie().find((cookie) => cookie.startsWith('pcs_session='));
  return set === undefined ? undefined : set.slice('pcs_session='.length).split(';')[0];
}

export interface Session {
  cookie: string;
  csrf: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  me: any;
}

export async function signIn(t: TestService, email: string, password = PASSWORD, extra: Record<string, string> = {}): Promise<Session> {
  const response = await call(t, 'POST', '/api/auth/login', { body: { email, password, ...extra } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const cookie = sessionCookieOf(response)!;
  return { cookie, csrf: response.body.data.csrf_token, me: response.body.data };
}

/** The code an authenticator app shows for `secret`, `stepsAhead` time steps from now. */
export function totpCode(secret: string, stepsAhead = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}

/** The token of a one-time account link, whichever page it leads to. */
export function linkToken(link: string): string {
  return new URL(link).searchParams.get('token')!;
}

/**
 * The server-rendered set-password page a link handed out before the console's page led to
 * (`/account/setup?token=`), kept for those links: the address of that page for `link`, of either form.
 */
export function setupPageUrl(link: string): string {
  return new URL(`/account/setup?token=${linkToken(link)}`, link).href;
}

/**
 * The set-password page's form (the older server-rendered page, still served for links handed out
 * before) posted as a browser would: its CSRF cookie and field, the link's token.
 */
export async function submitSetupPage(link: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  const url = setupPageUrl(link);
  const shown = await fetch(url);
  expect(shown.status).toBe(200);
  const cookie = shown.headers
    .getSetCookie()
    .find((c) => c.startsWith('pcs_csrf='))!
    .split(';')[0]!;
  const html = await shown.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1]!;
  const form = new URLSearchParams({ csrf_token: field('csrf_token'), token: field('token'), ...fields });
  const posted = await fetch(new URL('/account/setup', url), {
    method: 'POST',
    headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  return { status: posted.status, text: await posted.text() };
}

/** The one-time account link (an invitation's, to the console's page) in the e-mail the service wrote for `email` to its mail folder. */
export async function accountLinkMailedTo(t: TestService, email: string): Promise<string> {
  const mailDir = join(t.dir, 'mail');
  const mail = await waitFor(`the e-mail to ${email}`, async () => {
    let files: string[];
    try {
      files = readdirSync(mailDir).filter((name) => name.endsWith('.eml'));
    } catch {
      return undefined;
    }
    for (const file of files) {
      const parsed = await simpleParser(readFileSync(join(mailDir, file)));
      if ((parsed.to as { text: string }).text.includes(email)) return parsed;
    }
    return undefined;
  });
  return /(http:\/\/\S+\/console\/setup\?token=[A-Za-z0-9_-]+)/.exec(mail.text!)![1]!;
}
