// The payer pages for everyone (WCAG 2.2 AA): axe (@axe-core/playwright, every rule it runs
// by default, any impact) finds nothing on any page a payer can meet, in every state (the forms empty,
// with field errors, after a decline; paid, thanked, expired, paused, withdrawn, rate-limited), in
// English, Malay and Chinese, at 390 px and at 1280 px, in the frame of a merchant with a logo, a
// brand colour and support contacts. One browser and one page for the whole file; each state is
// reached once per language and judged at both widths without loading it again.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translator, type MessageKey } from '../../server/i18n/index.js';
import { LOCALES, type Locale } from '../../server/domain/locales.js';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { PNG_1X1 } from '../support/images.js';
import { DECLINED_CARD, GOOD_CARD, Payer, submitPage } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';
import { windowWithTimeLeft } from '../support/window-edge.js';

// Two declines on a link and its form refuses further cards for the window: the rate-limited page.
// A window with half an hour left at least, so no test straddles the start of a new one.
const t = useService({ pageLimits: { perLink: 2, windowSeconds: windowWithTimeLeft(3_600, 1_800) } });
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: VIEWPORTS.desktop, reducedMotion: 'reduce' })).newPage();
  page.setDefaultTimeout(10_000);
  await t.a.client.PATCH('/business', {
    body: { display_name: 'Kedai Kopi Ah Seng', brand_color: '#0b6e4f', support_email: 'hello@ahseng.example.com', support_phone: '+60 3-1234 5678' },
  });
  await t.a.client.PUT('/business/logo', { body: { image: PNG_1X1.toString('base64') } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const say = (locale: Locale, key: MessageKey, values?: Record<string, string>) => translator(locale).t(key, values);

/** The address with `lang` set, as the language switcher makes it. */
function inLanguage(url: string, locale: Locale): string {
  const address = new URL(url, t.url);
  address.searchParams.set('lang', locale);
  return address.toString();
}

/** axe on the page as it stands, at phone width and at desktop width: every violation, whatever its impact. */
async function expectNoAxeViolations(view: string): Promise<void> {
  for (const [width, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    const results = await new AxeBuilder({ page }).analyze();
    const found = results.violations.map(
      (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 160)} ${n.failureSummary ?? ''}`).join(' | ')}`,
    );
    expect(found, `axe on ${view} at ${width} width`).toEqual([]);
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** Opens a page in a language and checks the status it answered with and the language it says it is in. */
async function open(url: string, locale: Locale, status = 200): Promise<void> {
  const response = await page.goto(inLanguage(url, locale));
  expect(response?.status()).toBe(status);
  expect(await page.locator('html').getAttribute('lang')).toMatch(new RegExp(`^${locale}-`));
}

async function submit(locale: Locale, status: number, button: MessageKey = 'pay.submit'): Promise<void> {
  const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: say(locale, button), exact: true }).click()]);
  expect(response?.status()).toBe(status);
}

async function fillCard(locale: Locale, card: { card_number: string; expiry: string; cvc: string }): Promise<void> {
  await page.getByLabel(say(locale, 'field.card_number')).fill(card.card_number);
  await page.getByLabel(say(locale, 'field.expiry')).fill(card.expiry);
  await page.getByLabel(say(locale, 'field.cvc')).fill(card.cvc);
}

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

describe.each(LOCALES)('every payer page in %s, at 390 px and 1280 px: axe finds nothing', (locale) => {
  it('the payment link form, empty', async () => {
    const link = await create.paymentLink(t.a, { amount: 4990, title: 'Invoice 1001', description: 'Web design, May' });
    await open(link.payment_url, locale);
    await expectNoAxeViolations('the payment link form');
  });

  it('the open link form, empty, and with an error on every field', async () => {
    const link = await create.openLink(t.a, { minimum_amount: '10.00', title: 'Flood relief fund', description: 'Any amount from RM 10' });
    await open(link.payment_url, locale);
    await expectNoAxeViolations('the open link form');
    await page.getByLabel(say(locale, 'field.amount')).fill('1');
    await page.getByLabel(say(locale, 'field.email')).fill('not-an-address');
    await fillCard(locale, { card_number: '1234', expiry: '13/99', cvc: '1' });
    await submit(locale, 422);
    expect(await page.getByRole('alert').first().textContent()).toContain(say(locale, 'form.fix'));
    await expectNoAxeViolations('the open link form with field errors');
  });

  it('the form after a decline', async () => {
    const link = await create.paymentLink(t.a, { amount: 1500, title: 'Invoice 1002' });
    await open(link.payment_url, locale);
    await page.getByLabel(say(locale, 'field.name'), { exact: true }).fill('Tan Wei Ming');
    await fillCard(locale, DECLINED_CARD);
    await submit(locale, 402);
    expect(await page.getByRole('alert').textContent()).toContain(say(locale, 'form.declined'));
    await expectNoAxeViolations('the declined form');
  });

  it('the thank-you page and the page of a paid link', async () => {
    const link = await create.paymentLink(t.a, { amount: 2500, title: 'Invoice 1003', reference: 'INV-2026-0142', email: 'aisyah@example.com' });
    const paid = await submitPage(t.url, link.payment_url, { name: 'Aisyah Rahman', ...GOOD_CARD });
    expect(paid.status).toBe(303);
    await open(paid.location!, locale);
    // The merchant's reference and where the receipt went, in the payer's language; the payment's id nowhere.
    expect(await page.getByText(say(locale, 'thanks.reference', { reference: 'INV-2026-0142' })).isVisible()).toBe(true);
    expect(await page.getByText(say(locale, 'thanks.emailed', { email: 'aisyah@example.com' })).isVisible()).toBe(true);
    expect(await page.getByRole('main').textContent()).not.toContain(paid.paymentId!);
    await expectNoAxeViolations('the thank-you page');
    await open(link.payment_url, locale, 409);
    await expectNoAxeViolations('the page of a paid link');
  });

  it('the pages of an expired, a paused, a deleted and an unknown link', async () => {
    const expired = await create.paymentLink(t.a, { amount: 2500, title: 'Invoice 1004' });
    await t.sql('payment_links').where({ _id: expired._id }).update({ expires_at: '2020-01-01T00:00:00.000000Z' });
    await open(expired.payment_url, locale, 410);
    await expectNoAxeViolations('the page of an expired link');
    const paused = await create.openLink(t.a, { minimum_amount: '10.00', title: 'Surau roof fund' });
    await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: paused._id } } });
    await open(paused.payment_url, locale, 410);
    await expectNoAxeViolations('the page of a paused link');
    const deleted = await create.paymentLink(t.a, { amount: 2500, title: 'Invoice 1005' });
    await t.a.client.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: deleted._id } } });
    await open(deleted.payment_url, locale, 410);
    await expectNoAxeViolations('the page of a deleted link');
    await open(`${t.url}/payment/pay?id=0123456789abcdef01234567`, locale, 404);
    await expectNoAxeViolations('the page of an unknown link');
  });

  it('the rate-limited page', async () => {
    const link = await create.paymentLink(t.a, { amount: 1500, title: 'Invoice 1006' });
    for (let i = 0; i < 2; i++) {
      const payer = new Payer(t.url);
      const declined = await payer.submit(await payer.open(pathOf(link.payment_url)), { name: 'Card tester', ...DECLINED_CARD });
      expect(declined.status).toBe(402);
    }
    await open(link.payment_url, locale);
    await page.getByLabel(say(locale, 'field.name'), { exact: true }).fill('Aisyah Rahman');
    await fillCard(locale, GOOD_CARD);
    await submit(locale, 429);
    await expectNoAxeViolations('the rate-limited page');
  });

  it('the activation form, empty and with field errors, and the page of a saved card', async () => {
    const token = await create.token(t.a, { title: 'Monthly plan', description: 'Save a card for your monthly plan' });
    await open(token.activation_url, locale);
    await expectNoAxeViolations('the activation form');
    await fillCard(locale, { card_number: '4242', expiry: '', cvc: '' });
    await submit(locale, 422, 'activation.submit');
    await expectNoAxeViolations('the activation form with field errors');
    await page.getByLabel(say(locale, 'field.name'), { exact: true }).fill('Lim Mei Ling');
    await fillCard(locale, GOOD_CARD);
    await submit(locale, 200, 'activation.submit');
    await expectNoAxeViolations('the page of a saved card');
  });
});

/** Whether the element a locator finds has the focus. */
const focused = (locator: ReturnType<Page['locator']>) => locator.evaluate((element) => element === element.ownerDocument.activeElement);

/** Presses Tab (or Shift+Tab) until the element has the focus; fails after a page's worth of stops. */
async function tabTo(locator: ReturnType<Page['locator']>, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<void> {
  for (let presses = 0; presses < 25; presses++) {
    if (await focused(locator)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`${key} never reached ${locator.toString()}`);
}

describe('a payer with a keyboard alone (Tab, Shift+Tab, Enter, Space)', () => {
  it('names what each field holds for phones and autofill', async () => {
    const link = await create.openLink(t.a, { minimum_amount: '10.00', title: 'Flood relief fund' });
    await open(link.payment_url, 'en');
    const attributes = async (label: string) =>
      page.getByLabel(label).evaluate((input) => ({
        type: input.getAttribute('type'),
        inputmode: input.getAttribute('inputmode'),
        autocomplete: input.getAttribute('autocomplete'),
      }));
    expect(await attributes('Amount')).toEqual({ type: null, inputmode: 'decimal', autocomplete: 'transaction-amount' });
    expect(await attributes('Name')).toEqual({ type: null, inputmode: null, autocomplete: 'cc-name' });
    expect(await attributes('Email')).toEqual({ type: 'email', inputmode: 'email', autocomplete: 'email' });
    expect(await attributes('Card number')).toEqual({ type: null, inputmode: 'numeric', autocomplete: 'cc-number' });
    expect(await attributes('Expiry (MM/YY)')).toEqual({ type: null, inputmode: 'numeric', autocomplete: 'cc-exp' });
    expect(await attributes('CVC')).toEqual({ type: null, inputmode: 'numeric', autocomplete: 'cc-csc' });
  });

  it('pays an open link: a failed submit focuses the error summary, each error is tied to its field, Space pays', async () => {
    const link = await create.openLink(t.a, { minimum_amount: '10.00', title: 'Flood relief fund' });
    await open(link.payment_url, 'en');
    const amount = page.getByLabel('Amount');
    const name = page.getByLabel('Name', { exact: true });
    const pay = page.getByRole('button', { name: 'Pay', exact: true });

    // Enter on the button with nothing filled in but the amount the page suggests.
    await tabTo(pay);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const summary = page.getByRole('alert').filter({ hasText: say('en', 'form.fix') });
    expect(await focused(summary)).toBe(true);
    await expectNoAxeViolations('the form after a failed submit');
    // Each error is the description of its field, whose name stays its label alone.
    for (const [label, error] of [
      ['Name', 'error.name_required'],
      ['Email', 'error.email'],
      ['Card number', 'error.card_number'],
      ['Expiry (MM/YY)', 'error.expiry_format'],
    ] as const) {
      const input = page.getByRole('textbox', { name: label, exact: true });
      expect(await input.getAttribute('aria-invalid'), label).toBe('true');
      const described = (await input.getAttribute('aria-describedby'))!.split(' ');
      const texts = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
      expect(texts, label).toContain(say('en', error));
    }
    // The amount the page suggested is right: no error, still described by its hint.
    expect(await amount.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('[id="amount_hint"]').textContent()).toBe('At least RM 10.00.');
    expect(await amount.getAttribute('aria-describedby')).toBe('amount_hint');

    // From the summary on through the form: Tab forward, Shift+Tab back, typing in each field.
    await tabTo(name);
    await page.keyboard.type('Siti Aminah');
    await page.keyboard.press('Tab');
    await page.keyboard.type('siti@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('4242 4242 4242 4242');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1239');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page.getByLabel('Card number'))).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused(page.getByLabel('CVC'))).toBe(true);
    await page.keyboard.type('123');
    await page.keyboard.press('Tab');
    expect(await focused(pay)).toBe(true);
    await Promise.all([page.waitForURL(/\/payment\/thank-you\?/), page.keyboard.press('Space')]);
    expect(await page.getByRole('heading', { level: 1, name: 'Thank you' }).isVisible()).toBe(true);
    expect(await page.getByRole('status').textContent()).toContain('RM 10.00');
    await expectNoAxeViolations('the thank-you page after a keyboard payment');

    const collected = await t.a.client.GET('/open-payment-links/{open_payment_link_id}/total-collection', {
      params: { path: { open_payment_link_id: link._id } },
    });
    expect(collected.data?.data).toMatchObject({ total_amount: 10, total_count: 1 });
  });
});
