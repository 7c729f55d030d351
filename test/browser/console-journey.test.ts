// The merchant console (console/, served at /console) driven in Chromium through its roles and labels,
// with axe on every view visited: sign in with the two-factor step, create a payment link (the API's
// 422 messages on the fields first), pay it as a payer on the hosted page, find the payment, refund
// part of it after a confirmation, export the CSV and read it back, see it in the overview and its
// chart, an open link with its totals, both themes and a phone's width; then a viewer is offered no refund.
//
// NEEDS ISSUE 25 (sessions): until /api/auth/* is merged, `stubSessions` below answers those four
// operations in the browser (shaped as i25's openapi.yaml declares them) and signs every other /api
// request with the business's API key. Once merged, replace it with an owner made through the API and
// a real sign-in (TOTP code from the secret POST /api/auth/totp offered): the rest of the test stays.
import { AxeBuilder } from '@axe-core/playwright';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, ROLE_PERMISSIONS, type Role } from '../../server/domain/permissions.js';
import { CONSOLE_DIST_PATH } from '../../server/file-locations.js';
import { launchBrowser, screenshots, VIEWPORTS } from '../support/browser.js';
import { useService } from '../support/service.js';

const t = useService();
let browser: Browser;
let context: BrowserContext;
let page: Page;
const session = { signedIn: false, role: 'owner' as Role };

const TOTP = '492039';

function me() {
  return {
    user: { _id: 'usr_1', email: 'owner@example.com', name: 'Nur Owner', two_factor_enabled: true, recovery_codes_left: 10 },
    business: { business_id: t.a.business.id, name: 'Kedai Nur' },
    role: session.role,
    permissions: session.role === 'owner' ? [...PERMISSIONS] : [...ROLE_PERMISSIONS[session.role]],
    memberships: [],
    two_factor_setup_required: false,
    session_id: 'ses_1',
    csrf_token: 'csrf-1',
  };
}

const envelope = (data: unknown) => ({ success: true, data, errors: null, meta: { timestamp: '', timezone: 'UTC' } });

async function stubSessions(target: BrowserContext): Promise<void> {
  await target.route('**/api/**', async (route) => {
    const request = route.request();
    const path = new URL(request.url()).pathname;
    const json = (status: number, body: unknown) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    if (path === '/api/auth/me') return session.signedIn ? json(200, envelope(me())) : json(401, { message: 'Unauthenticated.' });
    if (path === '/api/auth/logout') {
      session.signedIn = false;
      return json(200, envelope({ signed_out: true }));
    }
    if (path === '/api/auth/login') {
      const body = request.postDataJSON() as { email: string; password: string; totp_code?: string };
      if (body.email !== 'owner@example.com' || body.password !== 'plum-orbit-kettle-42')
        return json(401, { message: 'These credentials do not match our records.' });
      if (body.totp_code !== TOTP) return json(401, { message: 'Enter the code from your authenticator app.', two_factor_required: true });
      session.signedIn = true;
      return json(200, envelope(me()));
    }
    // Unsafe requests must carry the CSRF token of /api/auth/me, as the server will check.
    if (!['GET', 'HEAD'].includes(request.method())) expect(request.headers()['x-csrf-token']).toBe('csrf-1');
    return route.continue({ headers: { ...request.headers(), authorization: `Bearer ${t.a.key}` } });
  });
}

async function noAxeViolations(view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 120)} ${n.failureSummary ?? ''}`).join(', ')}`,
  );
  expect(found, `axe on ${view}`).toEqual([]);
}

async function heading(name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

async function go(section: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section, exact: true }).click();
}

beforeAll(async () => {
  if (!existsSync(join(CONSOLE_DIST_PATH, 'index.html'))) throw new Error('console/dist is missing: run `npm run build -w console` (npm ci does)');
  browser = await launchBrowser();
  // Reduced motion: the console then skips its transitions, so axe reads colours at rest, not mid-fade.
  context = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true, reducedMotion: 'reduce' });
  await stubSessions(context);
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the merchant console', () => {
  let paymentId: string;
  let paymentUrl: string;

  it('signs in with the two-factor step', async () => {
    await page.goto(`${t.url}/`);
    await page.waitForURL(/\/console\/sign-in/);
    await heading('Sign in to the console');
    await noAxeViolations('sign-in');
    await page.getByLabel('E-mail').fill('owner@example.com');
    await page.getByRole('textbox', { name: 'Password' }).fill('plum-orbit-kettle-42');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Two-factor sign-in');
    await noAxeViolations('two-factor step');
    await page.getByLabel('Authentication code').fill(TOTP);
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading('Overview');
    expect(await page.title()).toBe('Overview · Console');
    await page.getByText('No payments in the last 30 days').waitFor();
    await noAxeViolations('overview, empty');
  }, 60_000);

  it('creates a payment link, the API refusing an empty form on its fields first', async () => {
    await go('Payment links');
    await heading('Payment links');
    await page.getByText('No payment links yet').waitFor();
    await noAxeViolations('payment links, empty');
    await page.getByRole('link', { name: 'New payment link' }).click();
    await heading('New payment link');
    await page.getByLabel('Amount (MYR)').fill('50');
    await page.getByRole('button', { name: 'Create payment link' }).click();
    // The messages are the API's 422 texts, each under its field.
    await expect.poll(() => page.getByLabel('Payer e-mail').getAttribute('aria-invalid')).toBe('true');
    await page.getByText('The email field is required.').waitFor();
    await page.getByText('The title field is required.').waitFor();
    await noAxeViolations('new payment link, with errors');
    await page.getByLabel('Payer e-mail').fill('aisyah@example.com');
    await page.getByLabel('Title').fill('Order 88');
    await page.getByLabel('Reference').fill('ORD-88');
    await page.getByRole('button', { name: 'Create payment link' }).click();
    await heading('Order 88');
    await page.getByText('Payment link “Order 88” created.').waitFor();
    paymentUrl = await page.getByLabel('Payment page').inputValue();
    expect(paymentUrl).toContain('/payment/');
    await page.getByRole('img', { name: 'QR code of the payment page of Order 88' }).waitFor();
    expect(await page.getByRole('img', { name: /QR code/ }).evaluate((img) => (img as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    await noAxeViolations('payment link detail');
  }, 60_000);

  it('a payer pays it on the hosted page; the payment is listed, refunded in part after a confirmation', async () => {
    const payer = await context.newPage();
    await payer.goto(paymentUrl);
    await payer.getByLabel('Name').fill('Aisyah Rahman');
    await payer.getByLabel('Card number').fill('4242 4242 4242 4242');
    await payer.getByLabel('Expiry (MM/YY)').fill('12/39');
    await payer.getByLabel('CVC').fill('123');
    await Promise.all([payer.waitForURL(/thank-you/), payer.getByRole('button', { name: 'Pay' }).click()]);
    paymentId = new URL(payer.url()).searchParams.get('payment_id')!;
    await payer.close();

    await go('Payments');
    await heading('Payments');
    const table = page.getByRole('table', { name: 'Payments' });
    await table.getByRole('row').nth(1).waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    await expect.poll(() => table.getByRole('row').nth(1).innerText()).toContain('RM 50.00');
    await noAxeViolations('payments');
    await table.getByRole('row').nth(1).getByRole('link').click();
    await heading('Payment RM 50.00');
    expect(page.url()).toContain(`/console/payments/${paymentId}`);
    await page.getByRole('form', { name: 'Refund' }).getByLabel('Amount (MYR)').fill('20');
    await page.getByLabel('Reason').fill('One item returned');
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.waitFor();
    await noAxeViolations('refund confirmation');
    await dialog.getByRole('button', { name: 'Refund RM 20.00' }).click();
    await page.getByText('Refund of RM 20.00 asked.').waitFor();
    const refunds = page.getByRole('table', { name: 'Refunds' });
    await expect.poll(() => refunds.innerText()).toContain('One item returned');
    // This business has no webhook endpoint, so no event names the payment.
    await page.getByText('No webhook event names this payment.').waitFor();
    await noAxeViolations('payment detail');
  }, 60_000);

  it('exports the current filter as CSV', async () => {
    await go('Payments');
    await heading('Payments');
    await page.getByLabel('Payer e-mail').fill('aisyah@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/email=aisyah/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.line, r.payment_id, r.amount, r.refunded])).toEqual([
      ['payment', paymentId, '50.00', '20.00'],
      ['refund', paymentId, '20.00', ''],
    ]);
    await page.getByText('The export is downloaded.').waitFor();
  }, 60_000);

  it('shows the payment in the overview and its chart, in both themes and at a phone width', async () => {
    await go('Overview');
    await heading('Overview');
    const month = page.getByRole('region', { name: 'Last 30 days' });
    await expect.poll(() => month.innerText()).toContain('RM 50.00');
    expect(await month.innerText()).toContain('Refunded RM 20.00');
    const chart = page.getByRole('region', { name: 'Collections per day' });
    await chart.getByRole('img', { name: /^Collections per day from .*, amount by method$/ }).waitFor();
    await page.getByText('By status (count)').click();
    await chart.getByRole('img', { name: /count by status$/ }).waitFor();
    await noAxeViolations('overview, light');
    await page.getByRole('button', { name: 'Use the dark theme' }).click();
    await page.getByRole('button', { name: 'Use the light theme' }).waitFor();
    await noAxeViolations('overview, dark');
    await page.setViewportSize(VIEWPORTS.phone);
    await page.getByRole('button', { name: 'Open the menu' }).click();
    await go('Open payment links');
    await heading('Open payment links');
    await noAxeViolations('open payment links, dark, 390 px');
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.getByRole('button', { name: 'Use the light theme' }).click();
  }, 60_000);

  it('creates an open payment link and shows its totals', async () => {
    await page.getByRole('link', { name: 'New open payment link' }).click();
    await heading('New open payment link');
    await page.getByLabel('Title').fill('Donations');
    await page.getByLabel('Minimum amount (MYR)').fill('10');
    await page.getByRole('button', { name: 'Create open payment link' }).click();
    await heading('Donations');
    await page.getByRole('heading', { name: 'Top collection' }).waitFor();
    await page.getByText('Nobody has paid yet.').waitFor();
    await noAxeViolations('open payment link detail');
    await screenshots(page, 'console-open-link');
  }, 60_000);

  it('makes a restricted API key, shown once, revokes it, and finds both in the audit log', async () => {
    await go('API keys');
    await heading('API keys');
    await page.getByLabel('Key name').fill('Reporting');
    await page.getByRole('radio', { name: 'Restricted' }).check();
    await page.getByRole('checkbox', { name: 'payments:read' }).check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByText('Copy the key now: it is shown only once').waitFor();
    const table = page.getByRole('table', { name: 'API keys' });
    await expect.poll(() => table.innerText()).toContain('payments:read');
    await noAxeViolations('API keys');
    await page.getByRole('button', { name: 'Revoke Reporting…' }).click();
    await page.getByRole('dialog', { name: 'Revoke this API key?' }).getByRole('button', { name: 'Revoke API key' }).click();
    await page.getByText('The key is revoked.').waitFor();
    await go('Audit log');
    await heading('Audit log');
    const log = page.getByRole('table', { name: 'Audit events' });
    await expect.poll(() => log.innerText()).toContain('revokeApiKey');
    expect(await log.innerText()).toContain('createApiKey');
    await noAxeViolations('audit log');
  }, 60_000);

  it('a viewer sees the payment and is offered no refund', async () => {
    session.role = 'viewer';
    await page.goto(`${t.url}/console/payments/${paymentId}`);
    await heading('Payment RM 50.00');
    await page.getByRole('table', { name: 'Refunds' }).waitFor();
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Resend / }).count()).toBe(0);
    await go('Payment links');
    await heading('Payment links');
    expect(await page.getByRole('link', { name: 'New payment link' }).count()).toBe(0);
    await noAxeViolations('payment links as a viewer');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the console');
  }, 60_000);
});
