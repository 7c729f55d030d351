// The payer pages in the merchant's name and the payer's language: the display name, logo
// and brand colours on the page and in the title; English, Malay or Chinese by ?lang= (remembered in
// a cookie by the switcher's plain links), else Accept-Language, else the link's or token's own
// `locale`, else the business's default; the form's errors and a decline in the same language; the
// payment request and the receipt in the link's language, else the business's, with its name.
import { beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../../server/store/outbox.js';
import { PNG_1X1 } from '../support/images.js';
import { DECLINED_CARD, GOOD_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

const t = useService();
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

async function brand() {
  await t.a.client.PATCH('/business', { body: { display_name: 'Kedai Kopi Ah Seng', brand_color: '#0b6e4f', support_email: 'hello@ahseng.example.com' } });
  const logo = await t.a.client.PUT('/business/logo', { body: { image: PNG_1X1.toString('base64') } });
  return new URL(logo.data!.data.logo!.url).pathname;
}

// Each test starts from the business as created: its own name, no brand, English.
beforeEach(async () => {
  await t.a.client.PATCH('/business', { body: { display_name: null, brand_color: null, support_email: null, default_locale: null } });
  await t.a.client.DELETE('/business/logo');
});

const page = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers }).then(async (r) => ({ r, html: await r.text() }));

describe("the merchant's name and brand", () => {
  it('is on the pay page: title "Pay <merchant>", the logo, the brand stylesheet and the support address', async () => {
    const logoPath = await brand();
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7' });
    const { html } = await page(pathOf(link.payment_url));
    expect(html).toContain('<title>Pay Kedai Kopi Ah Seng – Invoice 7</title>');
    expect(html).toContain(`<img src="${logoPath}" alt="">`);
    expect(html).toContain('<p class="merchant-name">Kedai Kopi Ah Seng</p>');
    expect(html).toContain('<link rel="stylesheet" href="/assets/brand/0b6e4f.css">');
    expect(html).toContain('mailto:hello@ahseng.example.com');
    const css = await fetch(`${t.url}/assets/brand/0b6e4f.css`);
    expect(await css.text()).toBe(':root{--brand:#0b6e4f;--on-brand:#ffffff}\n');
    expect((await fetch(`${t.url}/assets/brand/ffd400.css`)).status).toBe(404);
  });

  it('is on the 410 pages and the poster of its links', async () => {
    await brand();
    const open = await create.openLink(t.a, { minimum_amount: '10.00', title: 'Surau roof fund' });
    const poster = await page(`/payment/open-link/poster?id=${open._id}`);
    expect(poster.html).toContain('Kedai Kopi Ah Seng');
    await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: open._id } } });
    const paused = await page(pathOf(open.payment_url));
    expect(paused.r.status).toBe(410);
    expect(paused.html).toContain('<title>Payment link paused – Kedai Kopi Ah Seng</title>');
  });
});

describe("the payer's language", () => {
  it('follows Accept-Language: Malay, and Chinese of either script, English otherwise', async () => {
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7' });
    const ms = await page(pathOf(link.payment_url), { 'accept-language': 'ms-MY,ms;q=0.9,en;q=0.5' });
    expect(ms.html).toContain('<html lang="ms-MY">');
    expect(ms.html).toContain('<title>Bayar kepada Business A – Invoice 7</title>');
    expect(ms.html).toMatch(/<label for="card_number">Nombor kad/);
    expect(ms.r.headers.get('content-language')).toBe('ms-MY');
    const zh = await page(pathOf(link.payment_url), { 'accept-language': 'zh-CN,zh;q=0.9' });
    expect(zh.html).toContain('<html lang="zh-Hans-MY">');
    expect(zh.html).toMatch(/<label for="card_number">卡号/);
    // A reader of Traditional characters (Taiwan, Hong Kong) gets the Chinese page, not the English one.
    for (const range of ['zh-TW', 'zh-HK,en;q=0.5', 'zh-Hant', 'zh-SG', 'zh-Hant-MY;q=0.8, fr;q=0.9']) {
      expect((await page(pathOf(link.payment_url), { 'accept-language': range })).html, range).toContain('<html lang="zh-Hans-MY">');
    }
    expect((await page(pathOf(link.payment_url), { 'accept-language': 'fr' })).html).toContain('<html lang="en-MY">');
  });

  it('translates the sandbox test cards and the expiry hint on the Malay and Chinese pages', async () => {
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7' });
    const en = await page(`${pathOf(link.payment_url)}&lang=en`);
    expect(en.html).toContain('<td>Visa: declined for insufficient funds</td>');
    expect(en.html).toContain('placeholder="MM/YY"');
    const ms = await page(`${pathOf(link.payment_url)}&lang=ms`);
    expect(ms.html).toContain('<td>Visa: ditolak kerana baki tidak mencukupi</td>');
    expect(ms.html).toContain('placeholder="BB/TT"');
    const zh = await page(`${pathOf(link.payment_url)}&lang=zh`);
    expect(zh.html).toContain('<td>Visa：因余额不足被拒绝</td>');
    expect(zh.html).toContain('placeholder="月/年"');
    for (const { html } of [ms, zh]) {
      expect(html).not.toMatch(/succeeds|declined|MM\/YY"/);
      // Every card of the list, in the page's language.
      expect(html.match(/<tr><td><code>/g)).toHaveLength(en.html.match(/<tr><td><code>/g)!.length);
    }
  });

  it('takes ?lang= over Accept-Language and remembers it in a cookie for the next page', async () => {
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7' });
    const chosen = await page(`${pathOf(link.payment_url)}&lang=zh`, { 'accept-language': 'ms' });
    expect(chosen.html).toContain('<html lang="zh-Hans-MY">');
    const cookie = chosen.r.headers.getSetCookie().find((c) => c.startsWith('payer_lang='))!;
    expect(cookie).toMatch(/^payer_lang=zh;.*httponly/i);
    const next = await page(pathOf(link.payment_url), { 'accept-language': 'ms', cookie: cookie.split(';')[0]! });
    expect(next.html).toContain('<html lang="zh-Hans-MY">');
  });

  it('offers every language as a plain link to the same page, the current one marked', async () => {
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7' });
    const { html } = await page(pathOf(link.payment_url), { 'accept-language': 'ms' });
    expect(html).toContain(`<nav class="languages" aria-label="Bahasa">`);
    expect(html).toContain(`href="/payment/pay?id=${link._id}&amp;lang=zh" lang="zh-Hans-MY" hreflang="zh-Hans-MY">简体中文</a>`);
    expect(html).toMatch(/lang=ms" lang="ms-MY" hreflang="ms-MY" aria-current="true">Bahasa Melayu/);
  });

  it("falls back to the business's default language", async () => {
    await t.a.client.PATCH('/business', { body: { default_locale: 'ms' } });
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7' });
    expect((await page(pathOf(link.payment_url))).html).toContain('<html lang="ms-MY">');
    expect((await page(pathOf(link.payment_url), { 'accept-language': 'zh-CN' })).html).toContain('<html lang="zh-Hans-MY">');
  });

  it('answers a submitted form in the language it was shown in: field errors tied to their fields, a summary, a decline', async () => {
    const link = await create.openLink(t.a, { minimum_amount: '10.00' });
    const payer = new Payer(t.url, { 'accept-language': 'ms' });
    const form = await payer.open(pathOf(link.payment_url));
    const invalid = await payer.submit(form, { lang: 'ms', amount: '5', name: '', email: 'nope', ...GOOD_CARD });
    expect(invalid.status).toBe(422);
    expect(invalid.html).toContain('Sila betulkan maklumat yang ditandakan.');
    expect(invalid.html).toContain('Jumlah mestilah sekurang-kurangnya RM 10.00.');
    expect(invalid.html).toContain('Masukkan nama anda.');
    expect(invalid.html).toMatch(/<input id="name"[^>]*aria-describedby="name_error" aria-invalid="true">/);
    expect(invalid.html).toMatch(/<input id="amount"[^>]*aria-describedby="amount_hint amount_error" aria-invalid="true">/);
    expect(invalid.html).toContain('<a href="#email">Masukkan alamat e-mel yang sah.</a>');
    expect(invalid.html).toMatch(/class="error-summary" role="alert" tabindex="-1" autofocus/);
    const again = await payer.open(pathOf(link.payment_url));
    const declined = await payer.submit(again, { lang: 'zh', amount: '10.00', name: 'Tan', email: 'tan@example.com', ...DECLINED_CARD });
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('您的银行卡被拒绝。');
  });

  it('sends the receipt in the business language, from the merchant by name', async () => {
    await t.a.client.PATCH('/business', { body: { display_name: 'Kedai Kopi Ah Seng', default_locale: 'zh' } });
    const link = await create.openLink(t.a, { minimum_amount: '10.00', title: 'Kopi' });
    const payer = new Payer(t.url);
    const paid = await payer.submit(await payer.open(pathOf(link.payment_url)), { amount: '12.50', name: 'Tan', email: 'tan@example.com', ...GOOD_CARD });
    expect(paid.status).toBe(303);
    const receipt = (await listOutbox(t.service.db)).find((entry) => entry.topic === 'payment.receipt');
    const message = (receipt!.payload as { message: { subject: string; text: string; html: string } }).message;
    expect(message.subject).toBe('收据：已向Kedai Kopi Ah Seng支付 RM 12.50');
    expect(message.text).toContain('尾号 4242 的 VISA 卡');
    expect(message.html).toContain('<html lang="zh-Hans-MY">');
  });
});

/** The e-mails of one topic to one address, as the outbox holds them. */
async function emailsTo(topic: string, to: string) {
  return (await listOutbox(t.service.db))
    .filter((entry) => entry.topic === topic)
    .map((entry) => (entry.payload as { message: { to: string; subject: string; text: string; html: string } }).message)
    .filter((message) => message.to === to);
}

describe("the link's and the token's own language (locale)", () => {
  it("comes after the payer's choice and browser, before the business's default", async () => {
    await t.a.client.PATCH('/business', { body: { default_locale: 'zh' } });
    const link = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 7', locale: 'ms' });
    const path = pathOf(link.payment_url);
    // Nothing of the payer's own: the link's language, not the business's.
    expect((await page(path)).html).toContain('<html lang="ms-MY">');
    expect((await page(path, { 'accept-language': 'fr, de;q=0.8' })).html).toContain('<html lang="ms-MY">');
    // The browser's language, the switcher's cookie and ?lang= all come first.
    expect((await page(path, { 'accept-language': 'en-GB,en;q=0.9' })).html).toContain('<html lang="en-MY">');
    expect((await page(path, { cookie: 'payer_lang=zh' })).html).toContain('<html lang="zh-Hans-MY">');
    expect((await page(`${path}&lang=en`, { 'accept-language': 'zh-CN' })).html).toContain('<html lang="en-MY">');
    // Without a locale the business's default decides again.
    const plain = await create.paymentLink(t.a, { amount: 1250, title: 'Invoice 8' });
    expect((await page(pathOf(plain.payment_url))).html).toContain('<html lang="zh-Hans-MY">');
  });

  it("is the open link's: its page, its 410 page once paused, and the thank-you page after paying", async () => {
    const open = await create.openLink(t.a, { minimum_amount: '10.00', title: 'Tabung surau', locale: 'ms' });
    const payer = new Payer(t.url);
    const form = await payer.open(pathOf(open.payment_url));
    expect(form.html).toContain('<html lang="ms-MY">');
    const paid = await payer.submit(form, { lang: 'ms', amount: '12.00', name: 'Aminah', email: 'aminah@example.com', ...GOOD_CARD });
    expect(paid.status).toBe(303);
    const thanks = await new Payer(t.url).get(paid.location!);
    expect(thanks.html).toContain('<html lang="ms-MY">');
    expect(thanks.html).toContain('<h1>Terima kasih</h1>');
    await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: open._id } } });
    const paused = await page(pathOf(open.payment_url));
    expect(paused.r.status).toBe(410);
    expect(paused.html).toContain('<html lang="ms-MY">');
  });

  it("is the token's on its activation page", async () => {
    const token = await create.token(t.a, { title: 'Yuran bulanan', locale: 'zh' });
    const { html } = await page(pathOf(token.activation_url));
    expect(html).toContain('<html lang="zh-Hans-MY">');
    expect(html).toContain('<title>在Business A保存银行卡 – Yuran bulanan');
    expect((await page(pathOf(token.activation_url), { 'accept-language': 'ms' })).html).toContain('<html lang="ms-MY">');
  });

  it("writes the payment request and the receipt in the link's language, over the business's default", async () => {
    await t.a.client.PATCH('/business', { body: { display_name: 'Kedai Kopi Ah Seng', default_locale: 'en' } });
    const link = await create.paymentLink(t.a, { amount: 4550, title: 'Katering', email: 'siti@example.com', locale: 'ms', send_email: true });
    const [request] = await emailsTo('payment_link.sent', 'siti@example.com');
    expect(request!.subject).toBe('Permintaan bayaran daripada Kedai Kopi Ah Seng: Katering (RM 45.50)');
    expect(request!.html).toContain('<html lang="ms-MY">');
    // The payer reads the page in English (their browser asks for it); the receipt still follows the link.
    const payer = new Payer(t.url, { 'accept-language': 'en' });
    const form = await payer.open(pathOf(link.payment_url));
    expect(form.html).toContain('<html lang="en-MY">');
    expect((await payer.submit(form, { lang: 'en', name: 'Siti', ...GOOD_CARD })).status).toBe(303);
    const [receipt] = await emailsTo('payment.receipt', 'siti@example.com');
    expect(receipt!.subject).toBe('Resit: RM 45.50 kepada Kedai Kopi Ah Seng');
    expect(receipt!.text).toContain('Dibayar menggunakan VISA yang berakhir dengan 4242.');
  });

  it("writes them in the business's default when the link has no locale", async () => {
    await t.a.client.PATCH('/business', { body: { display_name: 'Kedai Kopi Ah Seng', default_locale: 'zh' } });
    const link = await create.paymentLink(t.a, { amount: 4550, title: 'Katering', email: 'weiming@example.com', send_email: true });
    const [request] = await emailsTo('payment_link.sent', 'weiming@example.com');
    expect(request!.subject).toBe('Kedai Kopi Ah Seng的付款请求：Katering（RM 45.50）');
    await create.payment(t, link);
    const [receipt] = await emailsTo('payment.receipt', 'weiming@example.com');
    expect(receipt!.subject).toBe('收据：已向Kedai Kopi Ah Seng支付 RM 45.50');
  });
});
