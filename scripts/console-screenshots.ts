// `npm run screenshots:console`: the pictures of the console in docs/console.md, made from a browser run over a
// seeded service on 127.0.0.1 (scripts/console-seed.ts), so they show the console as it is built now
// (`npm run build:console` first). Writes docs/screenshots/console-<view>.png. Debian's Chromium
// (CHROMIUM_PATH, /usr/bin/chromium by default) through playwright-core; elements found by role and label.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { CONSOLE_DIST_PATH } from '../server/file-locations.js';
import { OWNER, startSeededConsole } from './console-seed.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(join(CONSOLE_DIST_PATH, 'index.html'))) throw new Error('console/dist is missing: run `npm run build:console` first');
mkdirSync(out, { recursive: true });

const seeded = await startSeededConsole();
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const shoot = async (page: Page, name: string, heading: string | RegExp) => {
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    // Wait for the view's data (its loaders gone) and for charts to draw.
    await page.getByRole('status', { name: /^Loading/ }).waitFor({ state: 'detached' });
    // No tooltip where the pointer last was.
    await page.mouse.move(0, 0);
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(out, `console-${name}.png`) });
    console.log(`docs/screenshots/console-${name}.png`);
  };
  const open = async (page: Page, path: string) => page.goto(`${seeded.url}/console${path}`);

  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, reducedMotion: 'reduce', colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await open(page, '/');
  await page.getByLabel('E-mail').fill(OWNER.email);
  await page.getByRole('textbox', { name: 'Password' }).fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('img', { name: /^Collections per day from / }).waitFor();
  await shoot(page, 'overview', 'Overview');
  await open(page, '/payments');
  await page.getByRole('table', { name: 'Payments' }).waitFor();
  await shoot(page, 'payments', 'Payments');
  await open(page, `/payments/${seeded.paymentIds[0]}`);
  await page.getByRole('table', { name: 'Refunds' }).waitFor();
  await shoot(page, 'payment', /^Payment /);
  await open(page, '/payment-links');
  await page.getByRole('table', { name: 'Payment links' }).waitFor();
  await shoot(page, 'payment-links', 'Payment links');
  await open(page, '/team');
  await page.getByRole('table', { name: 'Members' }).waitFor();
  await shoot(page, 'team', 'Team');
  await open(page, '/settings');
  await page.getByRole('form', { name: 'Business profile' }).waitFor();
  await shoot(page, 'settings', 'Settings');
  await context.close();

  // The dark theme at a phone's width.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, reducedMotion: 'reduce', colorScheme: 'dark' });
  const small = await phone.newPage();
  small.setDefaultTimeout(15_000);
  await small.goto(`${seeded.url}/console/payments`);
  await small.getByLabel('E-mail').fill(OWNER.email);
  await small.getByRole('textbox', { name: 'Password' }).fill(OWNER.password);
  await small.getByRole('button', { name: 'Sign in' }).click();
  await small.getByRole('table', { name: 'Payments' }).waitFor();
  await shoot(small, 'payments-phone-dark', 'Payments');
  await phone.close();
} finally {
  await browser.close();
  await seeded.close();
}
