// The console's lists as an owner of a business in New York (not Kuala Lumpur, the contract's default)
// uses them, by role and label with axe on every view visited: a payment's time on the business's
// clock, statuses in words, the whole row opening the record, a payment named by its link's title and
// showing the merchant's reference, a date preset counted in the business's days and Clear filters,
// the audit log in words; then at a phone's width, the list as cards that never scroll sideways and
// badges shown whole.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { openLink, paidLink } from '../support/factories.js';
import { PASSWORD, member } from '../support/members.js';
import { useService } from '../support/service.js';

const t = useService();
const ZONE = 'America/New_York';
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function noAxeViolations(view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''}`).join(', ')}`);
  expect(found, `axe on ${view}`).toEqual([]);
}

/** What a clock in `timeZone` reads at `instant`, as "d Mon yyyy" and "h:mm" (12-hour), whatever the ICU's spacing of am/pm. */
function clockIn(instant: string, timeZone: string): { day: string; time: string } {
  const part = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-MY', { timeZone, ...options }).format(new Date(instant));
  const hour = Number(part({ hour: 'numeric', hourCycle: 'h23' })) % 12 || 12;
  return { day: part({ day: 'numeric', month: 'short', year: 'numeric' }), time: `${hour}:${part({ minute: '2-digit' }).padStart(2, '0')}` };
}

/** How wide the page's content is: wider than the window means it scrolls sideways. */
const pageWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');

async function openPayments(): Promise<void> {
  await page.goto(`${t.url}/console/payments`);
  await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
}

let earlier: { paymentId: string; createdAt: string };
let recent: { paymentId: string };

beforeAll(async () => {
  const zone = await t.a.client.PATCH('/business', { body: { time_zone: ZONE } });
  expect(zone.response.status).toBe(200);
  // Three days ago at 21:24:03 UTC: the next day, 5:24 am, in Kuala Lumpur; the same day, 4:24 or 5:24 pm, in New York.
  const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  const createdAt = `${day}T21:24:03.000Z`;
  const first = await paidLink(t, t.a, { title: 'Tabung Surau', reference: 'INV-2026-0142', amount: 1500 });
  await t
    .sql('payments')
    .where({ _id: first.paymentId })
    .update({ created_at: createdAt.replace('Z', '000Z') });
  earlier = { paymentId: first.paymentId, createdAt };
  recent = await paidLink(t, t.a, { title: 'Yuran Tadika', reference: 'INV-2026-0143', amount: 2500 });
  // An open link paused: the audit log is to say so in words, by the link's title.
  const donations = await openLink(t.a, { title: 'Tabung Masjid' });
  expect(
    (await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: donations._id } } })).response.status,
  ).toBe(200);

  browser = await launchBrowser();
  context = await browser.newContext({ viewport: VIEWPORTS.desktop, reducedMotion: 'reduce', colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const owner = await member(t, t.a.business.id, 'owner');
  await page.goto(`${t.url}/console/sign-in`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

describe('the console lists, in the business time zone', () => {
  it("shows a payment's time on the business's clock, its status in words, and opens it from anywhere on its row (1280 px)", async () => {
    await openPayments();
    const table = page.getByRole('table', { name: 'Payments' });
    await expect.poll(() => table.innerText()).toContain('RM 15.00');
    const ny = clockIn(earlier.createdAt, ZONE);
    const kl = clockIn(earlier.createdAt, 'Asia/Kuala_Lumpur');
    expect(ny.day).not.toBe(kl.day);
    const row = table.getByRole('row').filter({ hasText: 'RM 15.00' });
    expect(await row.innerText()).toContain(`${ny.day}, ${ny.time}`);
    // Words, not codes.
    expect(await row.getByText('Paid', { exact: true }).count()).toBe(1);
    expect(await table.innerText()).not.toMatch(/\bpaid\b/);
    await noAxeViolations('payments, 1280 px');

    // The amount is no link: a click on it opens the payment all the same.
    await row.getByRole('cell', { name: 'RM 15.00' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment RM 15.00' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/payments/${earlier.paymentId}`);
    const details = page.getByRole('table', { name: 'Payment' });
    const field = (name: string) => details.getByRole('row').filter({ hasText: new RegExp(`^${name}`) });
    await expect.poll(() => field('From').innerText()).toContain('Payment link “Tabung Surau”');
    expect(await field('Reference').innerText()).toContain('INV-2026-0142');
    const created = await field('Created').innerText();
    expect(created, `the payment's time in ${ZONE}, not Kuala Lumpur's (${kl.day}, ${kl.time})`).toContain(`${ny.day}, ${ny.time}`);
    await noAxeViolations('payment detail, 1280 px');
  }, 60_000);

  it("a preset keeps the business's days, and Clear filters brings every payment back (1280 px)", async () => {
    await openPayments();
    const table = page.getByRole('table', { name: 'Payments' });
    await expect.poll(() => table.innerText()).toContain('RM 25.00');
    expect(await page.getByRole('button', { name: 'Clear filters' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Created' }).click();
    await page.getByRole('button', { name: 'Today', exact: true }).click();
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
    await expect.poll(() => new URL(page.url()).searchParams.get('created_at_between')).toBe(`${today},${today}`);
    await expect.poll(() => table.innerText()).not.toContain('RM 15.00');
    expect(await table.innerText()).toContain('RM 25.00');
    // The API counted the business's day itself (filter[created_on_between]): an exact total, not "Up to".
    await expect.poll(() => page.getByText(/^(Up to |At least )?[\d,]+ payments$/).innerText()).toBe('1 payments');
    await noAxeViolations('payments, today');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => table.innerText()).toContain('RM 15.00');
    expect(new URL(page.url()).search).toBe('');
    expect(await page.getByRole('button', { name: 'Clear filters' }).count()).toBe(0);
    void recent;
  }, 60_000);

  it('the audit log says what happened, naming the record (1280 px)', async () => {
    await page.goto(`${t.url}/console/audit-log`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit events' });
    await expect.poll(() => table.innerText()).toContain("Paused open payment link 'Tabung Masjid'");
    // Each record's name is read on its own: the rows name them one after another.
    await expect.poll(() => table.innerText()).toContain("Created payment link 'Tabung Surau'");
    expect(await table.innerText()).not.toContain('pauseOpenPaymentLink');
    await noAxeViolations('audit log, 1280 px');
  }, 60_000);

  it('at 390 px the list is cards: nothing scrolls sideways and no badge is cut', async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    try {
      await openPayments();
      const table = page.getByRole('table', { name: 'Payments' });
      await expect.poll(() => table.innerText()).toContain('RM 15.00');
      expect(await pageWidth()).toBeLessThanOrEqual(390);
      for (const badge of [table.getByText('Paid', { exact: true }).first(), page.getByText('TEST', { exact: true }).first()]) {
        const { scrollWidth, clientWidth } = await badge.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
        expect(scrollWidth, `${await badge.innerText()} is shown whole`).toBeLessThanOrEqual(clientWidth);
      }
      await noAxeViolations('payments, 390 px');
      // A card opens its payment too.
      await table
        .getByRole('row')
        .filter({ hasText: 'RM 25.00' })
        .getByRole('cell', { name: /RM 25\.00/ })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Payment RM 25.00' }).waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(390);
      await noAxeViolations('payment detail, 390 px');
      await page.goto(`${t.url}/console/audit-log`);
      await expect.poll(() => page.getByRole('table', { name: 'Audit events' }).innerText()).toContain("Paused open payment link 'Tabung Masjid'");
      expect(await pageWidth()).toBeLessThanOrEqual(390);
      await noAxeViolations('audit log, 390 px');
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }
  }, 60_000);
});
