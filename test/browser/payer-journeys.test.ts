// What a payer does in a real browser, end to end, checked through the API afterwards.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, screenshots } from '../support/browser.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

let browser: Browser;
let context: BrowserContext;
let page: Page;
/** A merchant site on loopback for redirect_url. */
let merchant: Server;
let merchantUrl: string;

const t = useService();
beforeAll(async () => {
  browser = await launchBrowser();
  merchant = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Merchant order page</h1>'));
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/orders/7`;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  merchant?.close();
});
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});
afterEach(() => context.close());

async function fillCard(number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill('12/39');
  await page.getByLabel('CVC').fill('123');
}

describe('payer in a browser', () => {
  it('pays a payment link and lands on the merchant redirect with the payment in the query', async () => {
    const { data } = await t.a.client.POST('/payment-links', {
      body: { email: 'aisyah@example.com', currency: 'MYR', amount: 4990, title: 'Invoice 1001', description: 'Web design, May', redirect_url: merchantUrl },
    });
    const link = data!.data;
    await page.goto(link.payment_url);
    await expect(page.getByRole('heading', { name: 'Invoice 1001' }).isVisible()).resolves.toBe(true);
    expect(await page.getByText('RM 49.90').isVisible()).toBe(true);
    expect(await page.getByLabel('Email').inputValue()).toBe('a***@example.com');
    await screenshots(page, 'payment-link');

    await page.getByLabel('Name').fill('Aisyah Rahman');
    await fillCard('4242 4242 4242 4242');
    await Promise.all([page.waitForURL(/\/orders\/7\?/), page.getByRole('button', { name: 'Pay' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('payment_link_id')).toBe(link._id);
    expect(landed.searchParams.get('payment_status')).toBe('1');
    expect(landed.searchParams.get('payment_id')).toMatch(/^[0-9a-f]{24}$/);
    expect(await page.getByRole('heading', { name: 'Merchant order page' }).isVisible()).toBe(true);

    const read = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
    expect(read.data?.data).toMatchObject({ paid: true, status: 'Paid' });

    const again = await page.goto(link.payment_url);
    expect(again?.status()).toBe(409);
    expect(await page.getByRole('heading', { name: 'Already paid' }).isVisible()).toBe(true);
    await screenshots(page, 'payment-link-paid');
  });

  it('shows a decline on the page and lets the payer try another card', async () => {
    const created = await create.paymentLink(t.a, { email: 'tan@example.com', currency: 'SGD', amount: 1500, title: 'Invoice 1002' });
    await page.goto(created.payment_url);
    await page.getByLabel('Name').fill('Tan Wei Ming');
    await fillCard('4000 0000 0000 0002');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('Your card was declined.');
    await screenshots(page, 'payment-link-declined');

    await fillCard('5555 5555 5555 4444');
    await Promise.all([page.waitForURL(/\/payment\/thank-you\?/), page.getByRole('button', { name: 'Pay' }).click()]);
    expect(await page.getByText('Payment received').isVisible()).toBe(true);
    expect(await page.getByText('S$ 15.00').isVisible()).toBe(true);
    await screenshots(page, 'thank-you');
  });

  it('pays an open link twice with different amounts; total-collection and top-collection agree', async () => {
    const { data } = await t.a.client.POST('/open-payment-links', {
      body: { currency: 'MYR', minimum_amount: '10.00', title: 'Flood relief fund', description: 'Any amount from RM 10' },
    });
    const link = data!.data;
    for (const [amount, name, email] of [
      ['25.50', 'Siti Aminah', 'siti@example.com'],
      ['100', 'Raj Kumar', 'raj@example.com'],
    ]) {
      await page.goto(link.payment_url);
      if (name === 'Siti Aminah') await screenshots(page, 'open-link');
      await page.getByLabel('Amount').fill(amount!);
      await page.getByLabel('Name').fill(name!);
      await page.getByLabel('Email').fill(email!);
      await fillCard('4242 4242 4242 4242');
      await Promise.all([page.waitForURL(/\/payment\/thank-you\?/), page.getByRole('button', { name: 'Pay' }).click()]);
      expect(new URL(page.url()).searchParams.get('payment_link_id')).toBe(link._id);
    }
    const total = await t.a.client.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params: { path: { open_payment_link_id: link._id } } });
    expect(total.data?.data).toMatchObject({ currency: 'MYR', total_amount: 125.5, total_count: 2 });
    const top = await t.a.client.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params: { path: { open_payment_link_id: link._id } } });
    expect(top.data?.data.collections.map((c) => [c.amount, c.payer_name])).toEqual([
      [100, 'Raj Kumar'],
      [25.5, 'Siti Aminah'],
    ]);
  });

  it('activates a token by saving a card', async () => {
    const { data } = await t.a.client.POST('/tokenizations/create-token', {
      body: { email: 'lim@example.com', title: 'Monthly plan', description: 'Save a card for your monthly plan' },
    });
    const token = data!.data;
    await page.goto(token.activation_url);
    await screenshots(page, 'activation');
    await page.getByLabel('Name').fill('Lim Mei Ling');
    await fillCard('5555 5555 5555 4444');
    await page.getByRole('button', { name: 'Save card' }).click();
    await page.getByRole('heading', { name: 'Card saved' }).waitFor();
    expect(await page.getByText('MASTERCARD ending in 4444').isVisible()).toBe(true);
    await screenshots(page, 'activation-saved');
    const read = await t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: token._id } } });
    expect(read.data?.data).toMatchObject({ status: 'active', card: { brand: 'mastercard', last4: '4444' } });
  });

  it('explains an unknown link without a stack trace', async () => {
    const response = await page.goto(`${t.url}/payment/pay?id=000000000000000000000000`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('heading', { name: 'Payment link not found' }).isVisible()).toBe(true);
    await screenshots(page, 'not-found');
  });
});
