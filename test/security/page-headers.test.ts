// OWASP API8 (security misconfiguration) on the payer's side: every route the hosted pages serve,
// in every state it can answer (shown, unknown, deleted, paid, expired form, invalid, declined,
// redirected, too large, a payment the link stopped taking while the card was authorised), sends the security headers: a CSP that runs no script and cannot be framed,
// nosniff, no-store (these pages show payment data), a strict Referrer-Policy, and a CSRF cookie a
// script cannot read. The routes are read from the router itself, so a new page must be added here.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageDeps } from '../../server/pages/deps.js';
import { createSetupLink } from '../../server/usecases/members/accounts.js';
import { pageRoutes } from '../../server/pages/routes.js';
import { signReturn, signThankYou } from '../../server/pages/signing.js';
import { HeldProvider, submitHeld } from '../support/held-provider.js';
import { DECLINED_CARD, GOOD_CARD, Payer, type PageResponse } from '../support/payer.js';
import { setupPageUrl } from '../support/members.js';
import { useService } from '../support/service.js';
import { activateThroughPage, api, payThroughPage } from './fixture.js';

const provider = new HeldProvider();
const links: Record<string, Record<string, string>> = {};
let checked = 0;

type Json = Record<string, unknown>;

async function create(path: string, body: Json): Promise<Record<string, string>> {
  const response = await api(t, t.a.key, 'POST', path, body);
  expect(response.status, response.text).toBe(200);
  return (response.body as { data: Record<string, string> }).data;
}

const localPath = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

const t = useService({ provider });
beforeAll(async () => {
  links.payment = await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' });
  links.paid = await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Paid invoice' });
  links.race = await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Raced invoice' });
  links.deleted = await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Deleted invoice' });
  links.pausedMeanwhile = await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Paused invoice' });
  links.lastTaken = await create('/api/open-payment-links', { currency: 'MYR', minimum_amount: '10.00', title: 'One ticket', max_payments: 1 });
  links.open = await create('/api/open-payment-links', { currency: 'MYR', minimum_amount: '10.00', title: 'Donations' });
  links.openDeleted = await create('/api/open-payment-links', { currency: 'MYR', minimum_amount: '10.00', title: 'Old drive' });
  links.token = await create('/api/tokenizations/create-token', { email: 'payer@example.com', title: 'Card', description: 'Plan' });
  links.active = await create('/api/tokenizations/create-token', { email: 'payer@example.com', title: 'Card', description: 'Plan' });
  links.paidPayment = { id: await payThroughPage(t, links.paid.payment_url!, {}) };
  await activateThroughPage(t, links.active.activation_url!);
  await api(t, t.a.key, 'DELETE', `/api/payment-links/${links.deleted._id}`);
  await api(t, t.a.key, 'DELETE', `/api/open-payment-links/${links.openDeleted._id}`);
});
afterAll(async () => {
  console.log(`headers: ${checked} page responses checked`);
});

/** A form opened and submitted with the given fields, as a payer's browser would. */
async function submitted(url: string, fields: Json, tamper: (form: { csrf: string; attemptId: string; action: string }) => void = () => {}) {
  const payer = new Payer(t.url);
  const form = await payer.open(localPath(url));
  tamper(form);
  return payer.submit(form, fields as Record<string, string>);
}

/** A form body over the 16 KB the forms accept, on a connection of its own (the server may drop it afterwards). */
function oversized(url: string): Promise<PageResponse> {
  return new Promise((resolve, reject) => {
    const body = `name=${'x'.repeat(17 * 1024)}`;
    const req = request(
      `${t.url}${localPath(url)}`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) } },
      (res) => {
        let html = '';
        res.on('data', (chunk) => (html += chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
          resolve({ status: res.statusCode!, html, headers, location: headers.get('location') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const get = (url: string) => new Payer(t.url).get(localPath(url));

/** A form submitted while `meanwhile` changes the link during the card's authorisation. */
async function heldWhile(url: string, fields: Json, meanwhile: () => Promise<unknown>): Promise<PageResponse> {
  const payer = new Payer(t.url);
  const held = await submitHeld(provider, payer, await payer.open(localPath(url)), fields as Record<string, string>);
  await meanwhile();
  return held.finish();
}

interface Case {
  name: string;
  status: number;
  run: () => Promise<PageResponse>;
}

/** A one-time account link's page, opened and submitted as its holder would (the set-password page). */
async function accountSetup(fields: Json, tamper: (form: { csrf: string; attemptId: string; action: string }) => void = () => {}) {
  const url = await createSetupLink(t.service.context, { businessId: t.a.business.id, email: `page${Date.now()}${Math.random()}@example.com`, role: 'viewer' });
  const payer = new Payer(t.url);
  const form = await payer.open(localPath(setupPageUrl(url)));
  tamper(form);
  return payer.submit(form, { token: new URL(url).searchParams.get('token')!, ...(fields as Record<string, string>) });
}

/** Every route of the payer side and the states it answers in. HEAD is checked with each GET. */
const cases: Record<string, Case[]> = {
  'GET /assets/pay.css': [],
  'GET /account/setup': [
    {
      name: 'a live link',
      status: 200,
      run: async () =>
        get(setupPageUrl(await createSetupLink(t.service.context, { businessId: t.a.business.id, email: 'page-get@example.com', role: 'viewer' }))),
    },
    { name: 'an unknown token', status: 410, run: () => get(`${t.url}/account/setup?token=${'A'.repeat(43)}`) },
  ],
  'POST /account/setup': [
    { name: 'an expired form (bad CSRF token)', status: 403, run: () => accountSetup({ name: 'Page', password: 'x' }, (f) => (f.csrf = 'x'.repeat(43))) },
    { name: 'a weak password', status: 422, run: () => accountSetup({ name: 'Page', password: 'short', password_confirmation: 'short' }) },
    {
      name: 'a good password',
      status: 200,
      run: () => accountSetup({ name: 'Page', password: 'plum-orbit-kettle-42', password_confirmation: 'plum-orbit-kettle-42' }),
    },
  ],
  // Not pages: a logo and a stylesheet, each with nosniff (test/api/business-profile.test.ts, test/payer/brand.test.ts).
  'GET /assets/logos/:file': [],
  'GET /assets/brand/:file': [],
  'GET /payment/pay': [
    { name: 'an unpaid link', status: 200, run: () => get(links.payment!.payment_url!) },
    { name: 'an unknown id', status: 404, run: () => get(`${t.url}/payment/pay?id=0123456789abcdef01234567`) },
    { name: 'a malformed id', status: 404, run: () => get(`${t.url}/payment/pay?id=%3Cscript%3E`) },
    { name: 'no id', status: 404, run: () => get(`${t.url}/payment/pay`) },
    { name: 'a deleted link', status: 410, run: () => get(links.deleted!.payment_url!) },
    { name: 'a paid link', status: 409, run: () => get(links.paid!.payment_url!) },
  ],
  'POST /payment/pay': [
    {
      name: 'an expired form (bad CSRF token)',
      status: 403,
      run: () => submitted(links.payment!.payment_url!, { name: 'Payer', ...GOOD_CARD }, (f) => (f.csrf = 'x'.repeat(43))),
    },
    { name: 'invalid fields', status: 422, run: () => submitted(links.payment!.payment_url!, { name: '', card_number: '1' }) },
    { name: 'a declined card', status: 402, run: () => submitted(links.payment!.payment_url!, { name: 'Payer', ...DECLINED_CARD }) },
    { name: 'an oversized form', status: 413, run: () => oversized(links.payment!.payment_url!) },
    {
      name: 'a form opened before someone else paid the link',
      status: 409,
      run: async () => {
        const payer = new Payer(t.url);
        const form = await payer.open(localPath(links.race!.payment_url!));
        await payThroughPage(t, links.race!.payment_url!, {});
        return payer.submit(form, { name: 'Payer', ...GOOD_CARD });
      },
    },
    {
      name: 'a payment the link stopped taking while the card was authorised (paused)',
      status: 410,
      run: () =>
        heldWhile(links.pausedMeanwhile!.payment_url!, { name: 'Payer', ...GOOD_CARD }, () =>
          api(t, t.a.key, 'POST', `/api/payment-links/${links.pausedMeanwhile!._id}/pause`),
        ),
    },
  ],
  'GET /payment/open-link/pay': [
    { name: 'an active link', status: 200, run: () => get(links.open!.payment_url!) },
    { name: 'an unknown id', status: 404, run: () => get(`${t.url}/payment/open-link/pay?id=0123456789abcdef01234567`) },
    { name: 'a deleted link', status: 410, run: () => get(links.openDeleted!.payment_url!) },
  ],
  'GET /payment/open-link/poster': [
    { name: 'an active link', status: 200, run: () => get(`${t.url}/payment/open-link/poster?id=${links.open!._id}`) },
    { name: 'an unknown id', status: 404, run: () => get(`${t.url}/payment/open-link/poster?id=0123456789abcdef01234567`) },
    { name: 'a malformed id', status: 404, run: () => get(`${t.url}/payment/open-link/poster?id=%3Cscript%3E`) },
    { name: 'a deleted link', status: 410, run: () => get(`${t.url}/payment/open-link/poster?id=${links.openDeleted!._id}`) },
  ],
  'POST /payment/open-link/pay': [
    {
      name: 'an expired form (bad CSRF token)',
      status: 403,
      run: () => submitted(links.open!.payment_url!, { amount: '10.00', name: 'Payer', email: 'p@example.com', ...GOOD_CARD }, (f) => (f.csrf = '')),
    },
    { name: 'invalid fields', status: 422, run: () => submitted(links.open!.payment_url!, { amount: '1', name: 'Payer', email: 'nope' }) },
    {
      name: 'a declined card',
      status: 402,
      run: () => submitted(links.open!.payment_url!, { amount: '10.00', name: 'Payer', email: 'p@example.com', ...DECLINED_CARD }),
    },
    {
      name: 'a payment (redirect)',
      status: 303,
      run: () => submitted(links.open!.payment_url!, { amount: '10.00', name: 'Payer', email: 'p@example.com', ...GOOD_CARD }),
    },
    { name: 'an oversized form', status: 413, run: () => oversized(links.open!.payment_url!) },
    {
      name: 'a payment the link stopped taking while the card was authorised (its last payment taken)',
      status: 410,
      run: () => {
        const fields = { amount: '10.00', name: 'Payer', email: 'p@example.com', ...GOOD_CARD };
        return heldWhile(links.lastTaken!.payment_url!, fields, () => submitted(links.lastTaken!.payment_url!, fields));
      },
    },
  ],
  'GET /tokenization/activation/:token': [
    { name: 'a pending token', status: 200, run: () => get(links.token!.activation_url!) },
    { name: 'an active token (card saved)', status: 200, run: () => get(links.active!.activation_url!) },
    { name: 'an unknown token', status: 404, run: () => get(`${t.url}/tokenization/activation/${'ab'.repeat(32)}`) },
    { name: 'a malformed token', status: 404, run: () => get(`${t.url}/tokenization/activation/%3Cscript%3E`) },
  ],
  'POST /tokenization/activation/:token': [
    {
      name: 'an expired form (bad attempt id)',
      status: 403,
      run: () => submitted(links.token!.activation_url!, { name: 'Payer', ...GOOD_CARD }, (f) => (f.attemptId = 'nope')),
    },
    { name: 'invalid fields', status: 422, run: () => submitted(links.token!.activation_url!, { name: '', card_number: '42' }) },
    { name: 'a declined card', status: 402, run: () => submitted(links.token!.activation_url!, { name: 'Payer', ...DECLINED_CARD }) },
    { name: 'an oversized form', status: 413, run: () => oversized(links.token!.activation_url!) },
    { name: 'an active token', status: 409, run: () => submitted(links.active!.activation_url!, { name: 'Payer', ...GOOD_CARD }) },
  ],
  'GET /payment/thank-you': [
    {
      name: 'a real payment',
      status: 200,
      run: () => {
        const result = { payment_id: links.paidPayment!.id!, payment_link_id: links.paid!._id!, payment_status: '1' };
        return get(`${t.url}/payment/thank-you?${new URLSearchParams({ ...result, signature: signThankYou(t.pageKeys.thankYou, result) })}`);
      },
    },
    { name: 'no payment', status: 200, run: () => get(`${t.url}/payment/thank-you`) },
  ],
  'GET /payment/return': [
    {
      name: 'a paid payment (redirect to the thank-you page)',
      status: 303,
      run: () => {
        const id = links.paidPayment!.id!;
        return get(`${t.url}/payment/return?${new URLSearchParams({ payment_id: id, signature: signReturn(t.pageKeys.thankYou, 'payment', id) })}`);
      },
    },
    { name: 'an unsigned payment id', status: 404, run: () => get(`${t.url}/payment/return?payment_id=${links.paidPayment!.id!}`) },
    { name: 'no payment', status: 404, run: () => get(`${t.url}/payment/return`) },
  ],
  'GET /tokenization/activation/:token/return': [
    {
      name: 'an unknown attempt',
      status: 403,
      run: () => {
        const attempt = 'ab'.repeat(16);
        return get(
          `${links.token!.activation_url!}/return?${new URLSearchParams({ attempt_id: attempt, signature: signReturn(t.pageKeys.thankYou, 'activation', attempt) })}`,
        );
      },
    },
    { name: 'an unsigned attempt', status: 404, run: () => get(`${links.token!.activation_url!}/return?attempt_id=${'ab'.repeat(16)}`) },
    { name: 'an unknown token', status: 404, run: () => get(`${t.url}/tokenization/activation/${'ab'.repeat(32)}/return`) },
  ],
};
// Last: it pays the link the earlier cases use.
cases['POST /payment/pay']!.push({
  name: 'a payment (redirect)',
  status: 303,
  run: () => submitted(links.payment!.payment_url!, { name: 'Payer', ...GOOD_CARD }),
});
cases['POST /tokenization/activation/:token']!.push({
  name: 'a saved card (redirect)',
  status: 303,
  run: () => submitted(links.token!.activation_url!, { name: 'Payer', ...GOOD_CARD }),
});

/** The policy's directives by name; fails on a second policy (a comma) or a repeated directive. */
function directives(csp: string | null): Map<string, string[]> {
  expect(csp, 'no Content-Security-Policy').toBeTruthy();
  expect(csp!, 'more than one policy in the header').not.toContain(',');
  const map = new Map<string, string[]>();
  for (const part of csp!
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, ...values] = part.split(/\s+/);
    expect(map.has(name!.toLowerCase()), `directive ${name} twice`).toBe(false);
    map.set(name!.toLowerCase(), values);
  }
  return map;
}

const STRICT_REFERRER = ['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin'];

function expectPageHeaders(where: string, response: PageResponse) {
  checked += 1;
  const h = response.headers;
  const csp = directives(h.get('content-security-policy'));
  expect(csp.get('default-src'), `${where}: default-src`).toEqual(["'none'"]);
  expect(csp.get('frame-ancestors'), `${where}: frame-ancestors`).toEqual(["'none'"]);
  expect(csp.get('base-uri'), `${where}: base-uri`).toEqual(["'none'"]);
  expect(csp.has('form-action'), `${where}: form-action`).toBe(true);
  for (const name of ['script-src', 'script-src-elem', 'script-src-attr']) {
    if (csp.has(name)) expect(csp.get(name), `${where}: ${name}`).toEqual(["'none'"]);
  }
  for (const [name, values] of csp) {
    for (const value of values)
      expect(["'unsafe-inline'", "'unsafe-eval'", '*', 'http:', 'https:', 'data:'].includes(value) && name !== 'img-src', `${where}: ${name} ${value}`).toBe(
        false,
      );
  }
  expect(h.get('x-content-type-options'), `${where}: nosniff`).toBe('nosniff');
  expect(h.get('cache-control') ?? '', `${where}: Cache-Control`).toMatch(/\bno-store\b/);
  if (h.has('referrer-policy')) expect(STRICT_REFERRER, `${where}: Referrer-Policy ${h.get('referrer-policy')}`).toContain(h.get('referrer-policy'));
  if (h.has('x-frame-options')) expect(h.get('x-frame-options')!.toUpperCase(), where).toBe('DENY');
  const cookie = h.get('set-cookie');
  if (cookie) {
    expect(cookie, `${where}: cookie`).toMatch(/;\s*httponly/i);
    expect(cookie, `${where}: cookie`).toMatch(/;\s*samesite=strict/i);
    expect(cookie, `${where}: cookie`).toMatch(/;\s*path=\//i);
  }
  if (response.status === 303) {
    expect(response.location, `${where}: Location`).toBeTruthy();
  } else {
    expect(h.get('content-type'), where).toBe('text/html; charset=utf-8');
  }
}

describe('the routes', () => {
  it('every route of the payer pages has its cases here', () => {
    const router = (pageRoutes({} as PageDeps) as unknown as { router: { stack: { path: string; methods: string[] }[] } }).router;
    const served = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`));
    expect(served.length).toBeGreaterThan(0);
    expect(served.sort()).toEqual(Object.keys(cases).sort());
  });
});

describe.each(Object.entries(cases).filter(([, list]) => list.length > 0))('%s', (_route, list) => {
  it.each(list.map((c) => [c.name, c] as const))('%s: the expected status, with every security header', async (name, c) => {
    const response = await c.run();
    expect(response.status, `${name}: ${response.html.slice(0, 200)}`).toBe(c.status);
    expectPageHeaders(`${_route} (${name})`, response);
  });
});

describe('HEAD', () => {
  it('answers with the same security headers as GET', async () => {
    for (const url of [links.payment!.payment_url!, links.open!.payment_url!, links.token!.activation_url!, `${t.url}/payment/thank-you`]) {
      const response = await fetch(url, { method: 'HEAD' });
      const headers = response.headers;
      expectPageHeaders(`HEAD ${url}`, { status: response.status, html: '', headers, location: null });
    }
  });
});

describe('the stylesheet', () => {
  it('is served as CSS with nosniff, so it can never be read as script or HTML', async () => {
    const response = await fetch(`${t.url}/assets/pay.css`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/css/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe("the merchant's redirect_url in the policy", () => {
  async function formActionFor(redirectUrl: string) {
    const link = await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice', redirect_url: redirectUrl });
    const page = await get(link.payment_url!);
    expect(page.status).toBe(200);
    expectPageHeaders(`redirect_url ${redirectUrl}`, page);
    return {
      csp: directives(page.headers.get('content-security-policy')),
      formAction: directives(page.headers.get('content-security-policy')).get('form-action'),
    };
  }

  it("allows the merchant's origin as a form target (the redirect after paying goes there)", async () => {
    expect((await formActionFor('https://merchant.example.com/orders/7?x=1')).formAction).toEqual(["'self'", 'https://merchant.example.com']);
  });

  it.each(['https://x;script-src/', 'https://shop;default-src/', "https://a'b/", 'https://a,b/', 'https://a*b/', 'https://shop;report-uri/'])(
    'a redirect_url whose host the URL parser lets through (%s) cannot add directives or policies',
    async (redirectUrl) => {
      const { csp, formAction } = await formActionFor(redirectUrl);
      expect([...csp.keys()].sort()).toEqual(['base-uri', 'default-src', 'form-action', 'frame-ancestors', 'img-src', 'style-src']);
      expect(formAction).toEqual(["'self'"]);
    },
  );
});
