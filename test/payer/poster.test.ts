// The printable poster of an open link (/payment/open-link/poster?id=...): the title, the minimum
// amount, the QR code inline and the address as text, refused like the pay page for links nobody can
// pay, under the pages' strict CSP; and, in Chromium, a code that scans from the screen and a poster
// that prints on one A4 page.
import type { Browser } from 'playwright-core';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, screenshots } from '../support/browser.js';
import { Payer } from '../support/payer.js';
import { decodePng, decodeSvg } from '../support/qr.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

const openLink = (body: Record<string, unknown> = {}) => create.openLink(t.a, { minimum_amount: '10.00', ...body });

const posterOf = (id: string) => `/payment/open-link/poster?id=${id}`;

const t = useService();

describe('the poster', () => {
  it("shows the link's title, its minimum amount, the QR code inline and the payment URL as text", async () => {
    const link = await openLink({ title: 'Surau roof fund', minimum_amount: '10.00' });
    const page = await new Payer(t.url).get(posterOf(link._id));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.html).toContain('<title>Pay Business A – Surau roof fund</title>');
    expect(page.html).toContain('<h1>Surau roof fund</h1>');
    expect(page.html).toContain('Pay at least RM 10.00');
    expect(page.html).toContain(`<p class="url">${link.payment_url}</p>`);
    const svg = /<svg[^>]*>.*?<\/svg>/s.exec(page.html)?.[0];
    expect(svg, 'an inline <svg>').toBeDefined();
    expect(decodeSvg(svg!)).toBe(link.payment_url);
    // Nothing to load but the stylesheet, and nothing to run.
    expect(page.html).not.toMatch(/<script|<img|<iframe|\son[a-z]+=|style="/i);
  });

  it('draws its code once: the page asked for again is answered with the code already drawn, and the text as it is now', async () => {
    const drawings = vi.spyOn(QRCode, 'toString');
    try {
      const link = await openLink({ title: 'Masjid fund' });
      const first = await new Payer(t.url).get(posterOf(link._id));
      const second = await new Payer(t.url).get(posterOf(link._id));
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(drawings).toHaveBeenCalledTimes(1);
      expect(second.html).toBe(first.html);
      // The page around the code is made on each request: an edit shows at once, the code unchanged.
      await t.a.client.PUT('/open-payment-links/{open_payment_link_id}', {
        params: { path: { open_payment_link_id: link._id } },
        body: { currency: 'MYR', minimum_amount: '15.00', title: 'Masjid roof fund' },
      });
      const edited = await new Payer(t.url).get(posterOf(link._id));
      expect(edited.html).toContain('<h1>Masjid roof fund</h1>');
      expect(edited.html).toContain('Pay at least RM 15.00');
      expect(decodeSvg(/<svg[^>]*>.*?<\/svg>/s.exec(edited.html)![0])).toBe(link.payment_url);
      expect(drawings).toHaveBeenCalledTimes(1);
      // Deleted: refused, though its code is still kept.
      await t.a.client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
      const gone = await new Payer(t.url).get(posterOf(link._id));
      expect(gone.status).toBe(410);
      expect(gone.html).not.toContain('<svg');
    } finally {
      drawings.mockRestore();
    }
  });

  it('is served under the strict CSP of every payer page', async () => {
    const link = await openLink();
    const { headers } = await new Payer(t.url).get(posterOf(link._id));
    expect(headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it("is linked from the open link's pay page, and only from there", async () => {
    const link = await openLink();
    const pay = await new Payer(t.url).get(new URL(link.payment_url).pathname + new URL(link.payment_url).search);
    expect(pay.html).toContain(`<a href="${posterOf(link._id)}">Print a poster with a QR code</a>`);
    const created = await create.paymentLink(t.a);
    const fixed = await new Payer(t.url).get(new URL(created.payment_url).pathname + new URL(created.payment_url).search);
    expect(fixed.status).toBe(200);
    expect(fixed.html).not.toContain('poster');
  });

  it('is a 404 page for unknown, malformed and missing ids, and a 410 page for deleted and inactive links, as the pay page is', async () => {
    const payer = new Payer(t.url);
    for (const path of [posterOf('0123456789abcdef01234567'), posterOf('nonsense'), '/payment/open-link/poster']) {
      const page = await payer.get(path);
      expect(page.status, path).toBe(404);
      expect(page.html).toContain('Payment link not found');
      expect(page.html).not.toContain('<svg');
    }
    const deleted = await openLink();
    await t.a.client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: deleted._id } } });
    const inactive = await openLink();
    await t.a.client.POST('/open-payment-links/{open_payment_link_id}/pause', { params: { path: { open_payment_link_id: inactive._id } } });
    for (const [link, why] of [
      [deleted, 'no longer available'],
      [inactive, 'paused'],
    ] as const) {
      const page = await payer.get(posterOf(link._id));
      expect(page.status).toBe(410);
      expect(page.html).toContain(why);
      expect(page.html).not.toContain('<svg');
      expect((await payer.get(new URL(link.payment_url).pathname + new URL(link.payment_url).search)).status).toBe(410);
    }
  });

  it('has print rules in the stylesheet: A4, without the page chrome', async () => {
    const css = await (await fetch(`${t.url}/assets/pay.css`)).text();
    expect(css).toMatch(/@media print\{.*@page\{size:A4;/s);
    expect(css).toMatch(/@media print\{.*footer,\.no-print\{display:none\}/s);
  });
});

describe('the poster in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('scans from the screen, breaks no CSP rule and prints on one A4 page', async () => {
    // The longest title and largest minimum a link takes: the most the poster has to fit.
    const link = await openLink({ title: 'W'.repeat(50), minimum_amount: '30000.00' });
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${t.url}${posterOf(link._id)}`);
    expect(response?.status()).toBe(200);
    await screenshots(page, 'open-link-poster');
    const shot = await page.locator('.qr svg').screenshot();
    expect(decodePng(shot)).toBe(link.payment_url);

    const pdf = (await page.pdf({ format: 'A4', preferCSSPageSize: true, printBackground: true })).toString('latin1');
    expect(pdf.match(/\/Type\s*\/Page\b/g), 'pages in the printed PDF').toHaveLength(1);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('footer').isVisible()).toBe(false);
    expect(await page.locator('.no-print').first().isVisible()).toBe(false);
    // Printed, the code is 120 mm wide (about 454 CSS pixels): large enough to scan across a room.
    const box = await page.locator('.qr svg').boundingBox();
    expect(box!.width).toBeGreaterThan(400);
    expect(violations).toEqual([]);
    await page.close();
  });
});
