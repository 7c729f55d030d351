// The payer's language and the merchant's brand end to end in Chromium: a merchant sets its display name, logo and brand colour through the
// API; one payer whose browser asks for Malay (Accept-Language: ms) pays in Malay, another whose
// browser asks for zh-CN pays in Chinese, a third reads the page in English and switches it to Malay
// with the page's language switcher. Each receipt arrives over SMTP in that payer's language (the
// merchant wrote each link in its payer's language: e-mails follow the link's `locale`) with the
// merchant's name. axe finds nothing on any page visited.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locale } from '../../server/domain/locales.js';
import { translator, type MessageKey } from '../../server/i18n/index.js';
import { launchBrowser, VIEWPORTS } from '../support/browser.js';
import { PNG_1X1 } from '../support/images.js';
import { useService } from '../support/service.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const MERCHANT = 'Kedai Kopi Ah Seng';
const BRAND = '#0b6e4f';

let smtp: TestSmtp;
let browser: Browser;
beforeAll(async () => {
  smtp = await startSmtp();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await smtp?.close();
});
// Registered after the hooks above, so the service closes before the SMTP server it delivers to.
const t = useService(() => ({ mail: { smtpUrl: smtp.url, from: 'Payments <payments@service.test>' } }));

const say = (locale: Locale, key: MessageKey, values?: Record<string, string>) => translator(locale).t(key, values);

async function expectNoAxeViolations(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 160)}`).join(' | ')}`);
  expect(found, `axe on ${view}`).toEqual([]);
}

/** A payer's own browser: its language as Accept-Language says it, nothing else shared with other payers. */
async function payerBrowser(acceptLanguage: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: VIEWPORTS.phone, extraHTTPHeaders: { 'Accept-Language': acceptLanguage } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { context, page };
}

/** The page is in the language, in the merchant's name, with its logo and its brand colour on the button. */
async function expectMerchantPage(page: Page, locale: Locale, title: string): Promise<void> {
  expect(await page.locator('html').getAttribute('lang')).toMatch(new RegExp(`^${locale}-`));
  expect(await page.title()).toBe(`${say(locale, 'pay.title', { merchant: MERCHANT })} – ${title}`);
  const banner = page.getByRole('banner');
  expect(await banner.getByText(MERCHANT, { exact: true }).isVisible()).toBe(true);
  // The logo is decorative beside the name (alt=""): it is found as the banner's image, loaded.
  expect(await banner.locator('img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
  const button = page.getByRole('button', { name: say(locale, 'pay.submit'), exact: true });
  expect(await button.evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).backgroundColor)).toBe('rgb(11, 110, 79)');
}

async function payWithCard(page: Page, locale: Locale, fields: { amount?: string; name: string; email?: string }): Promise<void> {
  if (fields.amount) await page.getByLabel(say(locale, 'field.amount')).fill(fields.amount);
  await page.getByLabel(say(locale, 'field.name'), { exact: true }).fill(fields.name);
  if (fields.email) await page.getByLabel(say(locale, 'field.email')).fill(fields.email);
  await page.getByLabel(say(locale, 'field.card_number')).fill('4242 4242 4242 4242');
  await page.getByLabel(say(locale, 'field.expiry')).fill('12/39');
  await page.getByLabel(say(locale, 'field.cvc')).fill('123');
  await Promise.all([page.waitForURL(/\/payment\/thank-you\?/), page.getByRole('button', { name: say(locale, 'pay.submit'), exact: true }).click()]);
  expect(await page.getByRole('heading', { level: 1, name: say(locale, 'thanks.heading') }).isVisible()).toBe(true);
  expect(await page.locator('html').getAttribute('lang')).toMatch(new RegExp(`^${locale}-`));
}

/** The one e-mail to the address: each payer here is sent nothing but the receipt. */
const receiptTo = (address: string) =>
  waitFor(`the receipt to ${address}`, () => smtp.messages.find((mail) => JSON.stringify(mail.to ?? '').includes(`"${address}"`)));

describe("payers in their own language, in the merchant's name", () => {
  beforeAll(async () => {
    const profile = await t.a.client.PATCH('/business', { body: { display_name: MERCHANT, brand_color: BRAND, default_locale: 'en' } });
    expect(profile.data?.data).toMatchObject({ display_name: MERCHANT, brand_color: BRAND, button_text_color: '#ffffff' });
    const logo = await t.a.client.PUT('/business/logo', { body: { image: PNG_1X1.toString('base64') } });
    expect(logo.data?.data.logo).toMatchObject({ content_type: 'image/png' });
  });

  it('a payer whose browser asks for Malay pays in Malay and gets a Malay receipt', async () => {
    const link = await create.paymentLink(t.a, { email: 'aminah@example.com', amount: 4550, title: 'Katering Hari Raya', locale: 'ms' });
    const { context, page } = await payerBrowser('ms');
    await page.goto(link.payment_url);
    await expectMerchantPage(page, 'ms', 'Katering Hari Raya');
    await expectNoAxeViolations(page, 'the pay page in Malay');
    await payWithCard(page, 'ms', { name: 'Aminah binti Yusof' });
    await expectNoAxeViolations(page, 'the thank-you page in Malay');
    await context.close();

    const receipt = await receiptTo('aminah@example.com');
    expect(receipt.subject).toBe(`Resit: RM 45.50 kepada ${MERCHANT}`);
    expect(receipt.text).toContain(`Kami telah menerima bayaran anda sebanyak RM 45.50 kepada ${MERCHANT} untuk "Katering Hari Raya".`);
    expect(receipt.html).toContain('<html lang="ms-MY">');
  });

  it('a payer whose browser asks for zh-CN pays an open link in Chinese and gets a Chinese receipt', async () => {
    const open = await create.openLink(t.a, { minimum_amount: '10.00', title: '中秋月饼', locale: 'zh' });
    const { context, page } = await payerBrowser('zh-CN,zh;q=0.9,en;q=0.5');
    await page.goto(open.payment_url);
    await expectMerchantPage(page, 'zh', '中秋月饼');
    await expectNoAxeViolations(page, 'the open link page in Chinese');
    await payWithCard(page, 'zh', { amount: '88.00', name: '陈美玲', email: 'meiling@example.com' });
    await expectNoAxeViolations(page, 'the thank-you page in Chinese');
    await context.close();

    const receipt = await receiptTo('meiling@example.com');
    expect(receipt.subject).toBe(`收据：已向${MERCHANT}支付 RM 88.00`);
    expect(receipt.html).toContain('<html lang="zh-Hans-MY">');
  });

  it('a payer switches the page from English to Malay with the switcher, pays in Malay and gets a Malay receipt', async () => {
    const link = await create.paymentLink(t.a, { email: 'farid@example.com', amount: 12000, title: 'Yuran tuisyen', locale: 'ms' });
    const { context, page } = await payerBrowser('en-GB,en;q=0.9');
    await page.goto(link.payment_url);
    await expectMerchantPage(page, 'en', 'Yuran tuisyen');
    await expectNoAxeViolations(page, 'the pay page in English');
    const switcher = page.getByRole('navigation', { name: say('en', 'frame.language') });
    await Promise.all([page.waitForURL(/lang=ms/), switcher.getByRole('link', { name: 'Bahasa Melayu' }).click()]);
    await expectMerchantPage(page, 'ms', 'Yuran tuisyen');
    const current = page.getByRole('navigation', { name: say('ms', 'frame.language') }).getByRole('link', { name: 'Bahasa Melayu' });
    expect(await current.getAttribute('aria-current')).toBe('true');
    await expectNoAxeViolations(page, 'the pay page switched to Malay');
    // The choice is remembered: the same address without ?lang= stays in Malay.
    await page.goto(link.payment_url);
    await expectMerchantPage(page, 'ms', 'Yuran tuisyen');
    await payWithCard(page, 'ms', { name: 'Farid Hakim' });
    await expectNoAxeViolations(page, 'the thank-you page after switching');
    await context.close();

    const receipt = await receiptTo('farid@example.com');
    expect(receipt.subject).toBe(`Resit: RM 120.00 kepada ${MERCHANT}`);
  });
});
