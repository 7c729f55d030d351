// A forgotten password in the console (console/, served at /console), driven in Chromium through its
// roles and labels with axe on every view visited, against the real service: a member with two-factor
// sign-in on follows "Forgot password?" from the sign-in page, asks for a link (the page says the same
// for any e-mail), opens the link from the e-mail, has a weak password refused on its field, sets a
// new one and lands on the sign-in page (every earlier session ended), signs in with it and a code,
// and turns two-factor sign-in off on its page, which asks for the password too (a wrong one refused
// on its field first). The used link then says it is not valid.
import { AxeBuilder } from '@axe-core/playwright';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_DIST_PATH } from '../../server/file-locations.js';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { mailTo } from '../support/member-mail.js';
import { PASSWORD, call, member, sessionCookieOf, signIn, totpCode } from '../support/members.js';
import { useService } from '../support/service.js';

const t = useService();
const NEW_PASSWORD = 'velvet-canyon-drum-77';
let browser: Browser;
let page: Page;

async function noAxeViolations(view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 120)}`).join(', ')}`);
  expect(found, `axe on ${view}`).toEqual([]);
}

async function heading(name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

beforeAll(async () => {
  if (!existsSync(join(CONSOLE_DIST_PATH, 'index.html'))) throw new Error('console/dist is missing: run `npm run build:console`');
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, reducedMotion: 'reduce', colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('a forgotten password in the console', () => {
  let secret: string;
  let recoveryCode: string;
  let link: string;

  it('is reset through a link e-mailed to the member, who then signs in with it and a code', async () => {
    const { email } = await member(t, t.a.business.id, 'admin');
    // Two-factor on, and a session elsewhere that the reset ends.
    const elsewhere = await signIn(t, email);
    const offer = await call(t, 'POST', '/api/auth/totp', { cookie: elsewhere.cookie, csrf: elsewhere.csrf });
    secret = offer.body.data.secret;
    const on = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: elsewhere.cookie, csrf: elsewhere.csrf, body: { code: totpCode(secret) } });
    const elsewhereCookie = sessionCookieOf(on)!;
    recoveryCode = on.body.data.recovery_codes[0];

    await page.goto(`${t.url}/console/sign-in`);
    await heading('Sign in to the console');
    await noAxeViolations('sign-in');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await heading('Forgot your password?');
    await noAxeViolations('forgot password');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await heading('Check your e-mail');
    await page.getByRole('status').getByText(`If ${email} has an account`, { exact: false }).waitFor();
    await noAxeViolations('forgot password, sent');

    const mail = await mailTo(t, email, 'Reset your password');
    link = /(http:\/\/\S+\/console\/reset-password\?token=[A-Za-z0-9_-]{43})/.exec(mail.text!)![1]!;
    await page.goto(link);
    await heading('Choose a new password');
    await page.getByText(`For ${email}.`, { exact: false }).waitFor();
    await noAxeViolations('reset password');
    const password = page.getByRole('textbox', { name: 'New password', exact: true });
    const again = page.getByRole('textbox', { name: 'New password again' });
    await password.fill('password1234');
    await again.fill('password1234');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('The given password is too common or too easy to guess.', { exact: false }).waitFor();
    await noAxeViolations('reset password, with errors');
    await password.fill(NEW_PASSWORD);
    await again.fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await heading('Sign in to the console');
    await page.getByText(`Your password is set and you were signed out everywhere. Sign in as ${email}.`).waitFor();
    await noAxeViolations('sign-in, after the reset');
    expect((await call(t, 'GET', '/api/auth/me', { cookie: elsewhereCookie })).status).toBe(401);

    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password' }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Two-factor sign-in');
    await page.getByLabel('Authentication code').fill(totpCode(secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading('Overview');
  }, 90_000);

  it('asks for the password and a code to turn two-factor sign-in off, and the used link is no longer valid', async () => {
    await page.goto(`${t.url}/console/account/two-factor`);
    await heading('Two-factor sign-in');
    const form = page.getByRole('form', { name: 'Turn two-factor sign-in off' });
    await noAxeViolations('two-factor, on');
    await form.getByRole('textbox', { name: 'Your password' }).fill(PASSWORD);
    // The app's next code was used to sign in; the clock would have to move on for another: a recovery code.
    await form.getByLabel('Code from the app').fill(recoveryCode);
    await form.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await expect.poll(() => form.getByRole('textbox', { name: 'Your password' }).getAttribute('aria-invalid')).toBe('true');
    await form.getByText('The password is incorrect.').waitFor();
    await noAxeViolations('two-factor, turning off refused');
    await form.getByRole('textbox', { name: 'Your password' }).fill(NEW_PASSWORD);
    await form.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await page.getByText('Two-factor sign-in is off. Your other sessions were signed out.').waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    await noAxeViolations('two-factor, off');

    await page.goto(link);
    await heading('This link is not valid');
    await noAxeViolations('reset password, used link');
  }, 90_000);
});
