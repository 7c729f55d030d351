// The overview's chart and the webhook views as a merchant reads them, at a desk's width (1280 px) and
// a phone's (390 px): the range presets ask the collections report for their days in the interval that
// suits them, the count axis has whole-number ticks only (three payments once read 0, 0.75, 1.5, 2.25,
// 3), dates are in words, and neither the overview nor the webhooks (a long endpoint URL included)
// scrolls sideways or cuts a badge short. Elements by role and label; axe on every view visited, at
// both widths.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, VIEWPORTS, widthProblems } from '../support/browser.js';
import { PASSWORD, member } from '../support/members.js';
import { DECLINED_CARD, GOOD_CARD, submitPage } from '../support/payer.js';
import { useService, type Tenant } from '../support/service.js';

const t = useService();
let browser: Browser;
let tenant: Tenant;
let page: Page;

// A name of the length Malaysian businesses are registered under, and an endpoint URL with no space to wrap at.
const BUSINESS = 'Kedai Kopi Pak Mat Sdn Bhd';
// (merchant.example.com is the one name the tests' resolver knows.)
const LONG_URL =
  'https://merchant.example.com/payments/webhooks/receiver/v2/kedai-kopi-pak-mat/collections?source=payment-collection-service&tenant=kedai-kopi';

/** The business's day (the report's days are the business's; Asia/Kuala_Lumpur unless it chose another). */
function businessToday(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kuala_Lumpur', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

async function noAxeViolations(view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 120)}`).join(', ')}`);
  expect(found, `axe on ${view}`).toEqual([]);
}

/** At 1280 px and at 390 px: axe finds nothing, and at 390 px nothing scrolls sideways or is cut short. */
async function checkBothWidths(view: string): Promise<void> {
  await noAxeViolations(`${view} (1280 px)`);
  await page.setViewportSize(VIEWPORTS.phone);
  await expect.poll(() => widthProblems(page), { message: `${view} at 390 px` }).toEqual([]);
  await noAxeViolations(`${view} (390 px)`);
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** Pays a new link of the tenant's: by a declined card first when `failFirst` (a failed payment, then a paid one). */
async function pay(title: string, failFirst = false): Promise<void> {
  const { data } = await tenant.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 12_000, title } });
  if (failFirst) await submitPage(t.url, data!.data.payment_url, { name: 'Aisyah Rahman', ...DECLINED_CARD });
  const paid = await submitPage(t.url, data!.data.payment_url, { name: 'Aisyah Rahman', ...GOOD_CARD });
  expect(paid.status).toBe(303);
}

/** The collections report the chart asks for when `act` is done: its range and interval. */
async function reportAskedBy(act: () => Promise<void>): Promise<{ range: string | null; interval: string | null; groupBy: string | null }> {
  const asked = page.waitForRequest(
    (r: Request) => new URL(r.url()).pathname === '/api/reports/collections' && new URL(r.url()).searchParams.has('filter[created_at_between]'),
  );
  // Waited on before acting, so the request is not missed; a failed act is the error reported.
  asked.catch(() => undefined);
  await act();
  const request = await asked;
  const query = new URL(request.url()).searchParams;
  return { range: query.get('filter[created_at_between]'), interval: query.get('interval'), groupBy: query.get('group_by') };
}

/** A segmented control's option, picked by its label (the radio itself is drawn over by it), and then checked. */
async function choose(group: Locator, option: string): Promise<void> {
  await group.getByText(option, { exact: true }).click();
  await expect.poll(() => group.getByRole('radio', { name: option }).isChecked()).toBe(true);
}

/** The count axis's tick labels, as drawn: the chart's left axis, read from its SVG text. */
async function countAxisTicks(): Promise<string[]> {
  const chart = page.getByRole('img', { name: /count by status$/ });
  return chart.locator('svg text[text-anchor="end"]').allTextContents();
}

beforeAll(async () => {
  browser = await launchBrowser();
  tenant = await t.newTenant(BUSINESS);
  const { email } = await member(t, tenant.business.id, 'admin');
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, reducedMotion: 'reduce', colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.url}/console/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the overview chart and the webhooks, at 1280 and 390 px', () => {
  it('range presets ask the report for their days and interval; counts have whole-number ticks; dates in words', async () => {
    // Two paid payments and a failed one today: the count axis must reach 3 in steps of 1.
    await pay('Kopi order 1', true);
    await pay('Kopi order 2');
    await page.reload();
    const today = businessToday();
    const chart = page.getByRole('region', { name: /^Collections per / });
    await chart.getByRole('img', { name: /^Collections per day from .*, amount by method$/ }).waitFor();
    const presets = chart.getByRole('radiogroup', { name: 'Range' });
    expect(await presets.getByRole('radio', { name: '30 days' }).isChecked()).toBe(true);

    expect(await reportAskedBy(() => choose(presets, '7 days'))).toEqual({
      range: `${addDays(today, -6)},${today}`,
      interval: 'day',
      groupBy: 'method',
    });
    await chart.getByRole('heading', { name: 'Collections per day' }).waitFor();
    const [year, month, day] = today.split('-').map(Number) as [number, number, number];
    const inWords = (d: Date, options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', ...options }).format(d);
    const todayInWords = inWords(new Date(Date.UTC(year, month - 1, day)), { day: 'numeric', month: 'short', year: 'numeric' });
    await chart.getByRole('img', { name: new RegExp(`from \\d{1,2} \\w{3} \\d{4} to ${todayInWords}, amount by method$`) }).waitFor();

    const ninety = await reportAskedBy(() => choose(presets, '90 days'));
    expect(ninety.interval).toBe('week');
    const [from90, to90] = ninety.range!.split(',') as [string, string];
    expect(to90).toBe(today);
    expect(new Date(`${from90}T00:00:00Z`).getUTCDay(), 'the 90 days start on a Monday').toBe(1);
    await chart.getByRole('heading', { name: 'Collections per week' }).waitFor();

    const year12 = await reportAskedBy(() => choose(presets, '12 months'));
    const firstOfMonth11Ago = new Date(Date.UTC(year, month - 12, 1)).toISOString().slice(0, 10);
    expect(year12).toEqual({ range: `${firstOfMonth11Ago},${today}`, interval: 'month', groupBy: 'method' });
    await chart.getByRole('heading', { name: 'Collections per month' }).waitFor();
    await chart.getByRole('img', { name: /amount by method$/ }).waitFor();
    // The month axis names this month in words.
    await expect
      .poll(() => chart.getByRole('img').locator('svg text').allTextContents())
      .toContain(inWords(new Date(Date.UTC(year, month - 1, 1)), { month: 'short', year: 'numeric' }));

    // Back to 30 days: read again, or from what the console keeps of the first read.
    await choose(presets, '30 days');
    await chart.getByRole('heading', { name: 'Collections per day' }).waitFor();
    expect(await reportAskedBy(() => choose(chart.getByRole('radiogroup', { name: 'Split by' }), 'By status (count)'))).toEqual({
      range: `${addDays(today, -29)},${today}`,
      interval: 'day',
      groupBy: 'status',
    });
    await chart.getByRole('img', { name: /count by status$/ }).waitFor();
    await expect.poll(countAxisTicks).toEqual(['0', '1', '2', '3']);
    // Dates in words, evenly spaced: every label is "3 Nov", and this one's neighbours are as far apart as the others.
    const dayLabels = await chart.getByRole('img').locator('svg text[text-anchor="middle"]').allTextContents();
    expect(dayLabels.length).toBeGreaterThan(2);
    for (const label of dayLabels) expect(label).toMatch(/^\d{1,2} [A-Z][a-z]{2}$/);
    await checkBothWidths('the overview, counts by status');

    await page.setViewportSize(VIEWPORTS.phone);
    await expect.poll(countAxisTicks).toEqual(['0', '1', '2', '3']);
    await page.setViewportSize(VIEWPORTS.desktop);
  }, 90_000);

  it('webhooks: a long endpoint URL wraps whole in the list and on its page, at 390 px as at 1280 px', async () => {
    const { error } = await tenant.client.POST('/webhook-endpoints', { body: { url: LONG_URL, enabled_events: ['*'] } });
    expect(error).toBeUndefined();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const link = page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('link', { name: LONG_URL });
    await link.waitFor();
    await checkBothWidths('webhooks');

    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    // The whole URL, for screen readers and for copying, not an ellipsis.
    expect(await page.getByRole('table', { name: 'Webhook endpoint' }).innerText()).toContain(LONG_URL);
    await checkBothWidths('a webhook endpoint with a long URL');
  }, 60_000);

  // At 390 px a long business name once squeezed the TEST badge to "T…", then, on two lines, ran out of
  // the top of the header ("Kedai Kopi Ah Seng" in three lines of the desktop's size).
  it('the header fits at 390 px: the mode badge whole beside the business name, the name inside the header', async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    try {
      await page.getByRole('banner').getByText('TEST', { exact: true }).waitFor();
      expect(await widthProblems(page, 'banner')).toEqual([]);
      const banner = (await page.getByRole('banner').boundingBox())!;
      const name = (await page.getByRole('banner').getByRole('heading', { level: 2 }).boundingBox())!;
      expect(name.y, 'the name starts inside the header').toBeGreaterThanOrEqual(banner.y);
      expect(name.y + name.height, 'the name ends inside the header').toBeLessThanOrEqual(banner.y + banner.height);
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }
  });
});
