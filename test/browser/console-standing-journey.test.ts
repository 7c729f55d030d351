// Where each member stands in the console (console/, served at /console), driven in Chromium through
// roles and labels with axe on every view visited, at 1280 and 390 px, against the real service: a
// viewer opening Payouts reads at once (within a second, no loading status first) that their role
// cannot, also on a fresh load of a page; a member whose business requires two-factor sign-in is taken
// to set it up; an admin makes new recovery codes and turns two-factor sign-in off with one of them, reads the API's limit on a
// payment link's amount in money, sees the title's character counter, and makes a link that expires
// when they said, in the business's time zone; and, with no SMTP server, the team page says where
// e-mail goes and hands over the invitation's link.
import { AxeBuilder } from '@axe-core/playwright';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_DIST_PATH } from '../../server/file-locations.js';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { PASSWORD, call, member, sessionCookieOf, signIn, totpCode } from '../support/members.js';
import { useService } from '../support/service.js';

const t = useService();
let browser: Browser;

async function noAxeViolations(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 120)}`).join(', ')}`);
  expect(found, `axe on ${view}`).toEqual([]);
}

async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

async function signInOnPage(page: Page, email: string, code?: string): Promise<void> {
  await page.goto(`${t.url}/console/sign-in`);
  await heading(page, 'Sign in to the console');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (code !== undefined) {
    await heading(page, 'Two-factor sign-in');
    await page.getByLabel('Authentication code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
  }
}

/**
 * Records every element with the role `status` that appears from now on (a loading spinner says so by
 * that role). Page scripts are strings: this project's TypeScript knows no DOM outside the console.
 */
async function watchStatuses(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const seen = (window.statusesSeen = []);
    new MutationObserver((mutations) => {
      for (const mutation of mutations)
        for (const node of mutation.addedNodes) {
          if (!(node instanceof Element)) continue;
          for (const status of [node, ...node.querySelectorAll('[role=status]')].filter((element) => element.getAttribute('role') === 'status'))
            seen.push(status.getAttribute('aria-label') ?? status.textContent ?? '');
        }
    }).observe(document.body, { subtree: true, childList: true });
  })()`);
}

const statusesSeen = (page: Page) => page.evaluate<string[]>('window.statusesSeen');

/** A link from elsewhere (a bookmark, a teammate's message) opened within the console: the router's own navigation, no reload. */
async function openWithinConsole(page: Page, path: string): Promise<void> {
  await page.evaluate(`(() => {
    window.history.pushState({ usr: null, key: 'opened', idx: 1 }, '', ${JSON.stringify(path)});
    window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
  })()`);
}

/** A two-factor owner requiring it of everyone in a business of its own. */
async function businessRequiringTwoFactor(): Promise<number> {
  const tenant = await t.newTenant(`Two-factor ${Date.now()}`);
  const owner = await member(t, tenant.business.id, 'owner');
  const first = await signIn(t, owner.email);
  const offer = await call(t, 'POST', '/api/auth/totp', { cookie: first.cookie, csrf: first.csrf });
  const on = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: first.cookie, csrf: first.csrf, body: { code: totpCode(offer.body.data.secret) } });
  const cookie = sessionCookieOf(on)!;
  const me = await call(t, 'GET', '/api/auth/me', { cookie });
  const required = await call(t, 'PATCH', '/api/team/settings', { cookie, csrf: me.body.data.csrf_token, body: { require_two_factor: true } });
  expect(required.status).toBe(200);
  return tenant.business.id;
}

beforeAll(async () => {
  if (!existsSync(join(CONSOLE_DIST_PATH, 'index.html'))) throw new Error('console/dist is missing: run `npm run build:console`');
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe.each(Object.entries(VIEWPORTS))('where a member stands, at %s width', (_, viewport) => {
  let page: Page;

  beforeAll(async () => {
    const context = await browser.newContext({ viewport, reducedMotion: 'reduce', colorScheme: 'light' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });
  afterAll(async () => {
    await page.context().close();
  });

  it('tells a viewer at once, by role and page, that they cannot see Payouts', async () => {
    const viewer = await member(t, t.a.business.id, 'viewer');
    await signInOnPage(page, viewer.email);
    await heading(page, 'Overview');
    // The overview done loading (its chart last), so what appears from here on is the next page's.
    await expect.poll(() => page.getByRole('status').count(), { timeout: 10_000 }).toBe(0);
    await watchStatuses(page);
    const asked = Date.now();
    await openWithinConsole(page, '/console/payouts');
    await page.getByRole('alert').getByText('Your role, Viewer, cannot see Payouts.').waitFor({ timeout: 5_000 });
    const tookMs = Date.now() - asked;
    expect(await statusesSeen(page), 'no loading status before the refusal').toEqual([]);
    expect(tookMs).toBeLessThan(1_000);
    await heading(page, 'Payouts');
    await noAxeViolations(page, 'payouts refused');

    // A fresh load of a page the role lacks: the console's own start, then the refusal, never the page's loading.
    await page.goto(`${t.url}/console/api-keys`);
    await page.getByRole('alert').getByText('Your role, Viewer, cannot see API keys.').waitFor({ timeout: 3_000 });
    await expect(page.getByRole('status', { name: 'Loading API keys' }).count()).resolves.toBe(0);
    await noAxeViolations(page, 'API keys refused');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to the console');
  });

  it('takes a member whose business requires two-factor sign-in to set it up', async () => {
    const business = await businessRequiringTwoFactor();
    const support = await member(t, business, 'support');
    await signInOnPage(page, support.email);
    await heading(page, 'Two-factor sign-in');
    await page.getByText(/requires two-factor sign-in/).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/account/two-factor');
    await expect(page.getByText(/lacks the .* permission/).count()).resolves.toBe(0);
    await noAxeViolations(page, 'two-factor required');
    // Any other page leads back here.
    await page.goto(`${t.url}/console/payments`);
    await heading(page, 'Two-factor sign-in');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to the console');
  });

  it('lets an admin make new recovery codes and turn two-factor off, reads amounts in money, counts characters and sets an expiry', async () => {
    const admin = await member(t, t.a.business.id, 'admin');
    const first = await signIn(t, admin.email);
    const offer = await call(t, 'POST', '/api/auth/totp', { cookie: first.cookie, csrf: first.csrf });
    const on = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: first.cookie, csrf: first.csrf, body: { code: totpCode(offer.body.data.secret) } });
    const recovery: string[] = on.body.data.recovery_codes;

    await signInOnPage(page, admin.email, totpCode(offer.body.data.secret, 1));
    await heading(page, 'Overview');
    await page.goto(`${t.url}/console/account/two-factor`);
    await heading(page, 'Two-factor sign-in');
    await page.getByText('10 of 10 recovery codes left', { exact: false }).waitFor();
    await noAxeViolations(page, 'two-factor on');
    // New recovery codes, for the password and one of the old codes; the ten shown replace the old ones.
    const newCodes = page.getByRole('form', { name: 'New recovery codes' });
    await newCodes.getByLabel('Your password').fill(PASSWORD);
    await newCodes.getByRole('textbox', { name: 'Code from the app' }).fill(recovery[0]!);
    await newCodes.getByRole('button', { name: 'Make new recovery codes' }).click();
    const shown = page.getByRole('list', { name: 'Recovery codes' });
    await shown.waitFor();
    const fresh = (await shown.getByRole('listitem').allTextContents()).map((text) => text.trim());
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => recovery.includes(code))).toEqual([]);
    await page.getByText('10 of 10 recovery codes left', { exact: false }).waitFor();
    await noAxeViolations(page, 'new recovery codes');
    const turnOff = page.getByRole('form', { name: 'Turn two-factor sign-in off' });
    await turnOff.getByLabel('Your password').fill(PASSWORD);
    // An old code no longer works; a new one does.
    await turnOff.getByRole('textbox', { name: 'Code from the app' }).fill(recovery[1]!);
    await turnOff.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await turnOff.getByText('The code is invalid.').waitFor();
    await turnOff.getByLabel('Your password').fill(PASSWORD);
    await turnOff.getByRole('textbox', { name: 'Code from the app' }).fill(fresh[0]!);
    await turnOff.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await page.getByText('Two-factor sign-in is off. With it on', { exact: false }).waitFor();
    await noAxeViolations(page, 'two-factor off');

    await page.goto(`${t.url}/console/payment-links/new`);
    await heading(page, 'New payment link');
    const title = page.getByRole('textbox', { name: 'Title' });
    await title.fill('Kenduri');
    await expect(title.getAttribute('aria-describedby')).resolves.toBeTruthy();
    await page.getByText('7 of 50 characters').waitFor();
    await page.getByLabel('Payer e-mail').fill('aminah@example.com');
    await page.getByLabel('Amount (MYR)').fill('50000');
    await page.getByRole('button', { name: 'Create payment link' }).click();
    await page.getByText('The amount must be at most RM 30,000.00.').waitFor();
    await expect(page.getByText('3000000').count()).resolves.toBe(0);
    await noAxeViolations(page, 'payment link form, amount refused');

    const year = new Date().getUTCFullYear() + 1;
    await page.getByLabel('Amount (MYR)').fill('150');
    await page.getByLabel('Expires').fill(`${year}-12-31T23:59`);
    await page.getByRole('textbox', { name: 'Redirect URL' }).fill('https://kedai.example/terima-kasih');
    await page.getByRole('combobox', { name: 'Payer language' }).selectOption('ms');
    await page.getByRole('button', { name: 'Create payment link' }).click();
    await heading(page, 'Kenduri');
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const link = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } });
    expect(new Date(link.data!.data.expires_at!).toISOString()).toBe(`${year}-12-31T15:59:00.000Z`);
    expect(link.data!.data.redirect_url).toBe('https://kedai.example/terima-kasih');
    expect(link.data!.data.locale).toBe('ms');
  });

  it('says where e-mail goes without SMTP and hands over the invitation link', async () => {
    await page.goto(`${t.url}/console/team`);
    await heading(page, 'Team');
    await page.getByRole('alert').filter({ hasText: 'E-mails are not sent' }).getByText(join(t.dir, 'mail')).waitFor();
    await page.getByRole('radio', { name: 'Finance' }).check();
    await page.getByText('Reads everything, refunds', { exact: false }).waitFor();
    const invitee = `farah.${Date.now()}@example.com`;
    await page.getByLabel('Invitee e-mail').fill(invitee);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const link = page.getByRole('textbox', { name: `Invitation link for ${invitee}` });
    await expect.poll(() => link.inputValue()).toMatch(new RegExp(`^${t.url}/console/setup\\?token=[A-Za-z0-9_-]{43}$`));
    await page.getByRole('button', { name: 'Copy the invitation link' }).waitFor();
    await noAxeViolations(page, 'team, invitation link');
  });
});
