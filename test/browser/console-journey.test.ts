// The merchant console (console/, served at /console) driven in Chromium through its roles and labels,
// with axe on every view visited, against the real service (no stubs): the first owner follows the
// one-time link npm start prints to the console's setup page, chooses a password (a weak one refused
// on its field first) and lands signed in, turns two-factor sign-in on and signs in again with a code
// (computed here with otpauth), creates a payment link (the API's 422 messages on the fields first),
// a payer pays it on the hosted page, the owner finds the payment (by its card's last four digits
// too), refunds part of it after a confirmation, exports the CSV and reads it back, sees it in the
// overview and its chart,
// in both themes and at a phone's width; then the settings view (the profile, and a logo uploaded
// through its file field, shown named there and on the payer's page), the audit log (its total, a
// search refused, one that matches nothing), webhooks, events (a total kept exact, a filter's total
// counted only so far and said as a lower bound, the list seen loading first) and the team view: an invitation revoked after a confirmation (its link then refused by the API), an invitation
// e-mailed to a viewer, who sets a password on its link's console page and lands signed in (dark
// theme, 390 px), signs in again, sees the payment and is offered no refund, and changes their
// password (a wrong current one refused): the old one no longer signs in, the new one does; last, the
// owner makes the viewer a developer, and the API's list of members says so.
import sharp from 'sharp';
import { AxeBuilder } from '@axe-core/playwright';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_DIST_PATH } from '../../server/file-locations.js';
import { createOwnerLink } from '../../server/usecases/members/accounts.js';
import { launchBrowser, screenshots, VIEWPORTS, widthProblems } from '../support/browser.js';
import { plantEvents } from '../support/bulk.js';
import { PNG_1X1 } from '../support/images.js';
import { PASSWORD, accountLinkMailedTo, call, linkToken, totpCode } from '../support/members.js';
import { useService } from '../support/service.js';

const t = useService();
let browser: Browser;
let context: BrowserContext;
let page: Page;

const OWNER = 'nur.owner@example.com';
const VIEWER = 'vera.viewer@example.com';
const UNINVITED = 'uma.uninvited@example.com';
const NEW_PASSWORD = 'velvet-canyon-drum-77';

async function noAxeViolations(view: string, on: Page = page): Promise<void> {
  const results = await new AxeBuilder({ page: on }).analyze();
  const found = results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 120)} ${n.failureSummary ?? ''}`).join(', ')}`,
  );
  expect(found, `axe on ${view}`).toEqual([]);
}

/** The owner's session cookie in the browser: what the API answers the console, read beside it. */
async function ownerSession(): Promise<string> {
  const cookie = (await context.cookies(t.url)).find((c) => c.name === 'pcs_session');
  if (!cookie) throw new Error('the owner has no session cookie');
  return cookie.value;
}

async function heading(name: string | RegExp, on: Page = page): Promise<void> {
  await on.getByRole('heading', { level: 1, name }).waitFor();
}

async function go(section: string, on: Page = page): Promise<void> {
  await on.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section, exact: true }).click();
}

async function signIn(on: Page, email: string, code?: () => string, password = PASSWORD): Promise<void> {
  await heading('Sign in to the console', on);
  await on.getByLabel('E-mail').fill(email);
  await on.getByRole('textbox', { name: 'Password' }).fill(password);
  await on.getByRole('button', { name: 'Sign in' }).click();
  if (code) {
    await heading('Two-factor sign-in', on);
    await noAxeViolations('two-factor step', on);
    await on.getByLabel('Authentication code').fill(code());
    await on.getByRole('button', { name: 'Verify' }).click();
  }
}

/** The console's page behind a one-time link: the holder chooses a password and lands signed in, on the overview. */
async function setUpAccount(on: Page, link: string, fields: { email?: string; name: string; weakFirst?: boolean }): Promise<void> {
  expect(link).toMatch(/\/console\/setup\?token=/);
  await on.goto(link);
  await heading('Set up your account', on);
  await noAxeViolations('account setup', on);
  if (fields.email) await on.getByLabel('Your e-mail').fill(fields.email);
  await on.getByLabel('Your name').fill(fields.name);
  const password = on.getByRole('textbox', { name: 'Password', exact: true });
  const again = on.getByRole('textbox', { name: 'Password again' });
  if (fields.weakFirst) {
    await password.fill('password1234');
    await again.fill('password1234');
    await on.getByRole('button', { name: 'Save and join' }).click();
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    await on.getByText('The given password is too common or too easy to guess.', { exact: false }).waitFor();
    await noAxeViolations('account setup, with errors', on);
  }
  await password.fill(PASSWORD);
  await again.fill(PASSWORD);
  await on.getByRole('button', { name: 'Save and join' }).click();
  await heading('Overview', on);
}

/**
 * What the views write to the browser's console: a warning or an error is a defect, but for the
 * browser's own line about an API answer of 4xx, which the journey asks for on purpose (a refused form,
 * the sign-in page asking who is signed in).
 */
const consoleLines: string[] = [];
function watchConsole(on: Page): void {
  on.on('console', (message) => {
    if (message.type() !== 'warning' && message.type() !== 'error') return;
    const source = message.location().url;
    if (message.text().startsWith('Failed to load resource') && new URL(source, t.url).pathname.startsWith('/api/')) return;
    consoleLines.push(`${message.type()}: ${message.text()} (${source})`);
  });
  on.on('pageerror', (error) => consoleLines.push(`page error: ${error.message}`));
}

beforeAll(async () => {
  if (!existsSync(join(CONSOLE_DIST_PATH, 'index.html'))) throw new Error('console/dist is missing: run `npm run build -w console` (npm ci does)');
  browser = await launchBrowser();
  // Reduced motion: the console then skips its transitions, so axe reads colours at rest, not mid-fade.
  context = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true, reducedMotion: 'reduce', colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  watchConsole(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the merchant console', () => {
  let paymentId: string;
  let paymentUrl: string;
  let totpSecret: string;

  it("the first owner sets up their account on npm start's one-time link and lands signed in", async () => {
    // What npm start prints on a database without users (server/main.ts).
    const ownerLink = await createOwnerLink(t.service.context, t.a.business.id);
    await setUpAccount(page, ownerLink, { email: OWNER, name: 'Nur Owner', weakFirst: true });
    // The token is gone from the address bar: the page moved on to the overview.
    expect(new URL(page.url()).pathname).toMatch(/^\/console\/?$/);
    expect(await page.title()).toBe('Overview · Console');
    await page.getByText('No payments in the last 30 days').waitFor();
    await noAxeViolations('overview, empty');
  }, 60_000);

  it('turns two-factor sign-in on and signs in again with a code', async () => {
    await go('Two-factor sign-in');
    await heading('Two-factor sign-in');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    totpSecret = await page.getByLabel('Authenticator key').inputValue();
    await page.getByRole('img', { name: 'QR code of the authenticator key' }).waitFor();
    await noAxeViolations('two-factor setup');
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await expect.poll(() => page.getByLabel('Code from the app').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Code from the app').fill(totpCode(totpSecret));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByText('Two-factor sign-in is on.', { exact: true }).waitFor();
    expect(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count()).toBe(10);
    await page.getByText('Two-factor sign-in is on: signing in asks').waitFor();
    await noAxeViolations('two-factor on, recovery codes');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the console');
    await noAxeViolations('sign-in');
    // The code of the next step: the one used to turn it on cannot be used twice.
    await signIn(page, OWNER, () => totpCode(totpSecret, 1));
    await heading('Overview');
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

    // "Resend e-mail" sends the link again as it is: every field kept, the second reference and the
    // payer's language included.
    const linkId = new URL(page.url()).pathname.split('/').pop()!;
    const read = async () => (await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: linkId } } })).data!.data;
    const before = await read();
    const { data: updated } = await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: linkId } },
      body: {
        email: before.email,
        currency: before.currency,
        amount: before.amount,
        title: before.title,
        reference: before.reference,
        reference_2: 'BATCH-7',
        locale: 'ms',
      },
    });
    expect(updated?.data).toMatchObject({ reference_2: 'BATCH-7', locale: 'ms' });
    await page.reload();
    await heading('Order 88');
    await page.getByRole('button', { name: 'Resend e-mail' }).click();
    await page.getByText('The link was e-mailed to aisyah@example.com again.').waitFor();
    expect(await read()).toMatchObject({ reference: 'ORD-88', reference_2: 'BATCH-7', locale: 'ms', amount: 5000, title: 'Order 88' });
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
    // Searched by the card's last four digits: another card's finds nothing, a mistyped one is refused
    // with the API's message under the field, the payer's card finds the payment.
    const card = page.getByLabel('Card last 4');
    // Reached from the e-mail field by the keyboard.
    await page.getByLabel('Payer e-mail').focus();
    await page.keyboard.press('Tab');
    expect(await card.evaluate((input) => input === input.ownerDocument.activeElement)).toBe(true);
    await card.fill('0002');
    await card.press('Enter');
    await page.waitForURL(/card_last4=0002/);
    await page.getByText('No payment matches these filters').waitFor();
    await card.fill('12a4');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => card.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('The filter.card last4 must be 4 digits.').waitFor();
    await noAxeViolations('payments, a card filter refused');
    await card.fill('4242');
    await card.press('Enter');
    await page.waitForURL(/card_last4=4242/);
    await expect.poll(() => table.getByRole('row').nth(1).innerText()).toContain('RM 50.00');
    expect(await table.getByRole('row').count()).toBe(2);
    await noAxeViolations('payments, searched by card');
    await table.getByRole('row').nth(1).getByRole('link').click();
    await heading('Payment RM 50.00');
    expect(page.url()).toContain(`/console/payments/${paymentId}`);
    // The refund form is closed until asked for, and opens empty.
    const refundForm = page.getByRole('form', { name: 'Refund' });
    await page.getByRole('button', { name: 'Refund this payment' }).waitFor();
    expect(await refundForm.count()).toBe(0);
    await page.getByRole('button', { name: 'Refund this payment' }).click();
    const refundAmount = refundForm.getByLabel('Amount (MYR)');
    expect(await refundAmount.inputValue()).toBe('');
    // More than is left is not lowered to fit: the API refuses it, with its message under the field.
    await refundAmount.fill('60');
    await refundForm.getByRole('button', { name: 'Refund…' }).click();
    await page.getByText('The amount must not be greater than 5000, what is left to refund of this payment.').waitFor();
    expect(await refundAmount.inputValue()).toBe('60');
    await noAxeViolations('refund refused');
    await refundAmount.fill('20');
    await page.getByLabel('Reason').fill('One item returned');
    await refundForm.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.waitFor();
    await noAxeViolations('refund confirmation');
    // A double click refunds once: both sends carry one Idempotency-Key.
    await dialog.getByRole('button', { name: 'Refund RM 20.00' }).dblclick();
    await page.getByText('Refund of RM 20.00 asked.').first().waitFor();
    const refunds = page.getByRole('table', { name: 'Refunds' });
    await expect.poll(() => refunds.innerText()).toContain('One item returned');
    const made = await t.a.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } });
    expect(made.data!.data.map((refund) => refund.amount)).toEqual([2000]);
    // Done, the form closes; opened again, it is empty.
    expect(await refundForm.count()).toBe(0);
    await page.getByRole('button', { name: 'Refund this payment' }).click();
    expect(await refundAmount.inputValue()).toBe('');
    await page.getByRole('button', { name: 'Cancel' }).click();
    // This business has no webhook endpoint yet; its events are recorded all the same, read in words.
    await expect.poll(() => page.getByRole('table', { name: 'Webhook events' }).innerText()).toContain('Payment made');
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
    await page.getByRole('checkbox', { name: 'See payments and the overview' }).check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByText('Copy the key now: it is shown only once').waitFor();
    const table = page.getByRole('table', { name: 'API keys' });
    await expect.poll(() => table.innerText()).toContain('See payments and the overview');
    await noAxeViolations('API keys');
    await page.getByRole('button', { name: 'Revoke Reporting…' }).click();
    await page.getByRole('dialog', { name: 'Revoke this API key?' }).getByRole('button', { name: 'Revoke API key' }).click();
    await page.getByText('The key is revoked.').waitFor();
    await go('Audit log');
    await heading('Audit log');
    const log = page.getByRole('table', { name: 'Audit events' });
    await expect.poll(() => log.innerText()).toContain('Revoked an API key');
    expect(await log.innerText()).toContain('Created an API key');
    // Under the list, the total the API counts (reads record nothing, so it holds still).
    const { data } = await t.a.client.GET('/audit-events', { params: { query: { per_page: 1 } } });
    await page.getByText(`${data!.data.total} audit events`, { exact: true }).waitFor();
    await noAxeViolations('audit log');
    // The API's refusal (an action longer than it takes), then a search that matches nothing.
    const action = page.getByLabel('Action');
    await action.fill('x'.repeat(65));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('alert').filter({ hasText: 'The service refused this' }).waitFor();
    await noAxeViolations('audit log, a search refused');
    await action.fill('noSuchAction');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No audit events match', { exact: true }).waitFor();
    await noAxeViolations('audit log, nothing matches');
  }, 60_000);

  it('renames the business and edits its profile and website, the API refusing a pale brand colour and a website that is no web address on their fields', async () => {
    await go('Settings');
    await heading('Settings');
    await noAxeViolations('settings');
    await page.getByLabel('Business name').fill('  ');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Enter the business name.').waitFor();
    await page.getByLabel('Business name').fill('Kedai Nur Sdn Bhd');
    await page.getByLabel('Display name').fill('Kedai Nur');
    await page.getByLabel('Brand colour').fill('#ffd400');
    await page.getByLabel('Website').fill('kedainur.example.com');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => page.getByLabel('Brand colour').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.getByLabel('Website').getAttribute('aria-invalid')).toBe('true');
    await page.getByText(/has 1\.\d\d:1\. Choose a darker shade\./).waitFor();
    await noAxeViolations('settings, with errors');
    await page.getByLabel('Brand colour').fill('#0b6e4f');
    await page.getByLabel('Website').fill('https://kedainur.example.com/');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('The business profile is saved.').waitFor();
    // The header names the business by its own name, as renamed.
    await page.getByRole('banner').getByText('Kedai Nur Sdn Bhd', { exact: true }).first().waitFor();
    const { data } = await t.a.client.GET('/business');
    expect(data?.data).toMatchObject({
      name: 'Kedai Nur Sdn Bhd',
      display_name: 'Kedai Nur',
      brand_color: '#0b6e4f',
      website_url: 'https://kedainur.example.com/',
    });
  }, 60_000);

  it('uploads a logo through its file field: the settings show it, named, and so does the payer page', async () => {
    expect(await page.getByRole('img', { name: /^Logo of / }).count()).toBe(0);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByLabel('Upload a logo').click()]);
    await chooser.setFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG_1X1 });
    await page.getByText('The logo is saved.').waitFor();
    const shown = page.getByRole('img', { name: 'Logo of Kedai Nur' });
    await shown.waitFor();
    await expect.poll(() => shown.evaluate((img) => (img as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Remove logo…' }).waitFor();
    await noAxeViolations('settings, with a logo');
    const { data } = await t.a.client.GET('/business');
    const logo = data!.data.logo!;
    expect(logo.content_type).toBe('image/png');
    // Served as the service drew it again (never the upload's own bytes): the same one-pixel PNG.
    const served = Buffer.from(await (await fetch(logo.url)).arrayBuffer());
    expect(await sharp(served, { failOn: 'warning' }).metadata()).toMatchObject({ format: 'png', width: 1, height: 1 });
    // The payer's page of the link paid earlier is framed by the logo.
    const payerPage = await (await fetch(paymentUrl)).text();
    expect(payerPage).toContain(`<img src="${new URL(logo.url).pathname}"`);
  }, 60_000);

  it('adds a webhook endpoint (its secret shown once), sends it a test ping and follows it in the events log', async () => {
    await go('Webhooks');
    await heading('Webhooks');
    await page.getByText('No webhook endpoints').waitFor();
    await noAxeViolations('webhooks, empty');
    await page.getByLabel('Endpoint URL').fill('https://merchant.example.com/hooks');
    await page.getByLabel('Description').fill('Bookkeeping');
    await page.getByRole('checkbox', { name: 'refund.succeeded' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Copy the signing secret now: it is shown only once').waitFor();
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('link', { name: 'https://merchant.example.com/hooks' }).click();
    await heading('Webhook endpoint Bookkeeping');
    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    await deliveries.getByText('No deliveries yet').waitFor();
    await noAxeViolations('webhook endpoint');
    await page.getByRole('button', { name: 'Send test ping' }).click();
    // The ping's attempt is listed once tried: nothing listens at that address here, so it failed.
    await expect
      .poll(async () => {
        await deliveries.getByRole('button', { name: 'Refresh deliveries' }).click();
        const table = deliveries.getByRole('table', { name: 'Deliveries', exact: true });
        return (await table.count()) > 0 ? table.innerText() : '';
      })
      .toMatch(/ping[\s\S]*failed/i);
    await noAxeViolations('webhook endpoint, its deliveries');
    // Several deliveries at a phone's width: cards, and neither they nor the endpoint's URL make the page scroll sideways.
    const endpointId = new URL(page.url()).pathname.split('/').pop()!;
    for (let ping = 0; ping < 3; ping += 1)
      expect(
        (await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/test', { params: { path: { webhook_endpoint_id: endpointId } } })).response.status,
      ).toBe(200);
    await page.setViewportSize(VIEWPORTS.phone);
    await expect
      .poll(async () => {
        await deliveries.getByRole('button', { name: 'Refresh deliveries' }).click();
        return (await deliveries.innerText()).match(/ping/g)?.length ?? 0;
      })
      .toBeGreaterThanOrEqual(4);
    expect(await widthProblems(page), 'the endpoint and its deliveries at 390 px').toEqual([]);
    await noAxeViolations('webhook endpoint, its deliveries, 390 px');
    await page.setViewportSize(VIEWPORTS.desktop);
    await page
      .getByRole('link', { name: /^event evt_/ })
      .first()
      .click();
    await heading('Event: Test event (ping)');
    await noAxeViolations('event detail');
    await go('Events');
    await heading('Events');
    await expect.poll(() => page.getByRole('table', { name: 'Events' }).innerText()).toContain('ping');
    await noAxeViolations('events log');
  }, 60_000);

  it('says how many events there are, and says a total counted only so far as a lower bound', async () => {
    // Older than the ping, and not due for decades: they fill the log without being sent.
    // Every event so far is in the log, whether or not an endpoint wanted it (the payment's, the ping).
    const before = (await t.a.client.GET('/events')).data!.data.total;
    await plantEvents(t.sql, t.a.business.id, 10_001);
    await page.reload();
    await heading('Events');
    // The log's total is kept by counters: exact.
    await page.getByText(`${(before + 10_001).toLocaleString('en')} events`, { exact: true }).waitFor();
    // A filter's matches are counted up to 10,001 only. Its answer is held back (the service's own,
    // let through after) so that the list is seen loading first.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const typed = (url: URL) => url.pathname === '/api/events' && url.searchParams.get('filter[type]') === 'payment.created';
    await page.route(typed, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.getByLabel('Event type').selectOption('payment.created');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('status', { name: 'Loading events' }).waitFor();
      await noAxeViolations('events log, loading');
      release();
      await page.getByText('At least 10,001 events', { exact: true }).waitFor();
    } finally {
      release();
      await page.unroute(typed);
    }
    await noAxeViolations('events log, a lower-bound total');
  }, 60_000);

  it('invites a viewer: the invitation is listed and e-mailed', async () => {
    await go('Team');
    await heading('Team');
    await expect.poll(() => page.getByRole('table', { name: 'Members' }).innerText()).toContain(OWNER);
    // No one changes or removes themselves here.
    expect(await page.getByRole('combobox', { name: `Role of ${OWNER}` }).count()).toBe(0);
    await page.getByLabel('Invitee e-mail').fill('not an e-mail');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await expect.poll(() => page.getByLabel('Invitee e-mail').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Invitee e-mail').fill(VIEWER);
    await page.getByRole('radio', { name: 'Viewer', exact: true }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation for ${VIEWER} made`, { exact: false }).waitFor();
    await expect.poll(() => page.getByRole('table', { name: 'Invitations' }).innerText()).toContain(VIEWER);
    await noAxeViolations('team');
  }, 60_000);

  it('revokes an invitation after a confirmation: it is no longer listed, and its link no longer opens', async () => {
    await page.getByLabel('Invitee e-mail').fill(UNINVITED);
    await page.getByRole('radio', { name: 'Support', exact: true }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation for ${UNINVITED} made`, { exact: false }).waitFor();
    const invitations = page.getByRole('table', { name: 'Invitations' });
    await expect.poll(() => invitations.innerText()).toContain(UNINVITED);
    const link = await accountLinkMailedTo(t, UNINVITED);
    await page.getByRole('button', { name: `Revoke invitation of ${UNINVITED}…` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this invitation?' });
    await dialog.getByText(`The link e-mailed to ${UNINVITED} stops working.`).waitFor();
    await noAxeViolations('invitation revocation confirmation');
    await dialog.getByRole('button', { name: 'Revoke invitation' }).click();
    await page.getByText(`The invitation of ${UNINVITED} is revoked.`).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => invitations.innerText()).not.toContain(UNINVITED);
    expect(await invitations.innerText()).toContain(VIEWER);
    await noAxeViolations('team, an invitation revoked');
    const cookie = await ownerSession();
    const listed = await call(t, 'GET', '/api/team/invitations', { cookie });
    expect(listed.body.data.map((invitation: { email: string }) => invitation.email)).toEqual([VIEWER]);
    const opened = await call(t, 'POST', '/api/auth/account-links/open', { body: { token: linkToken(link) } });
    expect(opened.status).toBe(410);
  }, 60_000);

  it('the viewer sets a password on the e-mailed link, signs in (dark, 390 px), sees the payment, is offered no refund and changes their password', async () => {
    const link = await accountLinkMailedTo(t, VIEWER);
    const viewerContext = await browser.newContext({ viewport: VIEWPORTS.phone, reducedMotion: 'reduce', colorScheme: 'dark' });
    const viewer = await viewerContext.newPage();
    watchConsole(viewer);
    viewer.setDefaultTimeout(10_000);
    try {
      await setUpAccount(viewer, link, { name: 'Vera Viewer' });
      await noAxeViolations('overview as a viewer, just set up, dark, 390 px', viewer);
      await viewer.getByRole('button', { name: 'Sign out' }).click();
      await heading('Sign in to the console', viewer);
      await viewer.goto(`${t.url}/console/payments/${paymentId}`);
      await viewer.waitForURL(/\/console\/sign-in/);
      await noAxeViolations('sign-in, dark, 390 px', viewer);
      await signIn(viewer, VIEWER);
      // Back where the link pointed, after signing in.
      await heading('Payment RM 50.00', viewer);
      await viewer.getByRole('table', { name: 'Refunds' }).waitFor();
      expect(await viewer.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
      expect(await viewer.getByRole('form', { name: 'Refund' }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: /^Resend / }).count()).toBe(0);
      await noAxeViolations('payment detail as a viewer, dark, 390 px', viewer);
      await viewer.getByRole('button', { name: 'Open the menu' }).click();
      // Sections the role lacks are not offered.
      const sections = viewer.getByRole('navigation', { name: 'Sections' });
      expect(await sections.getByRole('link', { name: 'API keys' }).count()).toBe(0);
      expect(await sections.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
      await go('Payments', viewer);
      await heading('Payments', viewer);
      await expect.poll(() => viewer.getByRole('table', { name: 'Payments' }).innerText()).toContain('RM 50.00');
      await noAxeViolations('payments as a viewer, dark, 390 px', viewer);
      await viewer.getByRole('button', { name: 'Open the menu' }).click();
      await go('Payment links', viewer);
      await heading('Payment links', viewer);
      expect(await viewer.getByRole('link', { name: 'New payment link' }).count()).toBe(0);
      await viewer.getByRole('button', { name: 'Open the menu' }).click();
      await go('Team', viewer);
      await heading('Team', viewer);
      await expect.poll(() => viewer.getByRole('table', { name: 'Members' }).innerText()).toContain(VIEWER);
      expect(await viewer.getByRole('button', { name: 'Send invitation' }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: /^Remove / }).count()).toBe(0);
      await noAxeViolations('team as a viewer, dark, 390 px', viewer);

      await viewer.getByRole('button', { name: 'Open the menu' }).click();
      await go('Change password', viewer);
      await heading('Change password', viewer);
      await noAxeViolations('change password, dark, 390 px', viewer);
      const current = viewer.getByRole('textbox', { name: 'Current password' });
      await current.fill('not-my-password-9');
      await viewer.getByRole('textbox', { name: 'New password' }).fill(NEW_PASSWORD);
      await viewer.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => current.getAttribute('aria-invalid')).toBe('true');
      await viewer.getByText('The password is incorrect.').waitFor();
      await noAxeViolations('change password, with errors, dark, 390 px', viewer);
      await current.fill(PASSWORD);
      await viewer.getByRole('button', { name: 'Change password' }).click();
      await viewer.getByText('Your password was changed.', { exact: false }).waitFor();
      await viewer.getByRole('button', { name: 'Sign out' }).click();
      // The old password no longer signs in; the new one does.
      await signIn(viewer, VIEWER);
      await viewer.getByRole('alert').getByText('These credentials do not match our records.').waitFor();
      await noAxeViolations('sign-in refused, dark, 390 px', viewer);
      await viewer.getByRole('textbox', { name: 'Password' }).fill(NEW_PASSWORD);
      await viewer.getByRole('button', { name: 'Sign in' }).click();
      await heading('Overview', viewer);
      await viewer.getByRole('button', { name: 'Sign out' }).click();
      await heading('Sign in to the console', viewer);
    } finally {
      await viewerContext.close();
    }
  }, 120_000);

  it("the owner makes the viewer a developer in the team view, and the API's list of members agrees", async () => {
    // The owner's team view stayed open while the viewer joined: a reload lists them.
    await page.reload();
    await heading('Team');
    const role = page.getByRole('combobox', { name: `Role of ${VIEWER}` });
    await expect.poll(() => role.inputValue()).toBe('viewer');
    await role.selectOption('developer');
    await page.getByText(`${VIEWER} is now Developer.`).waitFor();
    await expect.poll(() => role.inputValue()).toBe('developer');
    await noAxeViolations('team, a role changed');
    const members = await call(t, 'GET', '/api/team/members', { cookie: await ownerSession() });
    const roles = Object.fromEntries(members.body.data.map((member: { email: string; role: string }) => [member.email, member.role]));
    expect(roles).toEqual({ [OWNER]: 'owner', [VIEWER]: 'developer' });
  }, 60_000);

  it("no view wrote a warning or an error to the browser's console", () => {
    expect(consoleLines).toEqual([]);
  });
});
