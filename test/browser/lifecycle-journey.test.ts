// Links that expire, pause and close, for a small merchant at a counter: an open link that takes two payments, its
// printed poster (whose QR code leads to the pay page), two payers paying in the browser, and the
// third told plainly that the link is closed.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { useService } from '../support/service.js';

let browser: Browser;

const t = useService();
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('an open link with max_payments: 2, in a browser', () => {
  it('prints a poster, takes two payments, and tells the third payer it is closed', async () => {
    const link = (await t.a.client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: '5.00', title: 'Raffle tickets', max_payments: 2 } }))
      .data!.data;
    const page = await browser.newPage();

    await page.goto(link.payment_url);
    await page.getByRole('link', { name: /poster/i }).click();
    await page.getByRole('heading', { name: 'Raffle tickets' }).waitFor();
    expect(await page.getByText('Pay at least RM 5.00').isVisible()).toBe(true);
    expect(await page.locator('svg').count()).toBe(1);
    expect(await page.getByText(link.payment_url).isVisible()).toBe(true);

    for (const name of ['Siti Aminah', 'Raj Kumar']) {
      await page.goto(link.payment_url);
      await page.getByLabel('Amount').fill('10.00');
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Email').fill('payer@example.com');
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiry (MM/YY)').fill('12/39');
      await page.getByLabel('CVC').fill('123');
      await Promise.all([page.waitForURL(/\/payment\/thank-you\?/), page.getByRole('button', { name: 'Pay' }).click()]);
    }

    const third = await page.goto(link.payment_url);
    expect(third?.status()).toBe(410);
    expect(await page.getByRole('heading', { name: 'Payment link closed' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Pay' }).count()).toBe(0);
    const read = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ state: 'exhausted', status_id: 2, payments_count: 2 });
    await page.close();
  }, 60_000);
});
