// Stripe's journeys in Chromium, with business A on Stripe (the local stand-in): a payment link paid
// by card on Stripe's page, one paid by FPX that stays pending and then succeeds (the payer's page
// turns to the thank-you page by itself), one whose FPX fails, a refund of a card payment, and a card
// saved on Stripe's page then charged. The card number is typed on Stripe's page only.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshots } from '../support/browser.js';
import { useStripeService } from '../support/stripe.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

let browser: Browser;

const s = useStripeService();
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const newLink = (amount: number, title: string) => create.paymentLink(s.t.a, { email: 'aisyah@example.com', amount, title });

const payment = async (id: string) => (await s.t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } })).data!.data;

/** Our page, then "Continue to payment" to Stripe's page; every request the browser made is kept. */
async function toStripe(url: string): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  const requested: string[] = [];
  // A route handler misses requests that follow a redirect to another host: watch every request.
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(url);
  await page.getByLabel('Name').fill('Aisyah Rahman');
  await Promise.all([
    page.waitForURL((target) => target.origin === new URL(s.standin.url).origin),
    page.getByRole('button', { name: 'Continue to payment' }).click(),
  ]);
  return { page, requested };
}

async function payByCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiration (MM / YY)').fill('12 / 39');
  await page.getByLabel('CVC').fill('123');
  await page.getByLabel('Cardholder name').fill('Aisyah Rahman');
  await page.getByRole('button', { name: /^(Pay|Save card)/ }).click();
}

describe('Stripe journeys in a browser', () => {
  it('a payment link paid by card on Stripe’s page, then refunded', async () => {
    const link = await newLink(5_000, 'Order 501');
    const { page, requested } = await toStripe(link.payment_url);
    await screenshots(page, 'stripe-checkout');
    await payByCard(page, '4242 4242 4242 4242');
    await page.waitForURL(/\/payment\/thank-you/);
    await page.getByText('Payment received').waitFor();
    const paymentId = new URL(page.url()).searchParams.get('payment_id')!;
    // The browser went our page -> Stripe -> our return -> our thank-you page.
    expect(requested.some((url) => url.startsWith(`${s.t.url}/payment/return`))).toBe(true);
    await page.close();

    expect(await payment(paymentId)).toMatchObject({ status: 'paid', provider: 'stripe', method: 'card', card_last4: '4242' });
    const refund = await s.t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 2_000 } });
    expect(refund.data!.data).toMatchObject({ status: 'succeeded', amount: 2_000 });
    expect(await payment(paymentId)).toMatchObject({ status: 'partially_refunded', amount_refunded: 2_000 });
    await waitFor('refund.succeeded', () =>
      s.events().find((e) => e.event === 'refund.succeeded' && (e.data as { payment_id: string }).payment_id === paymentId),
    );
  }, 60_000);

  it('a payment link paid by FPX: pending while the bank confirms, then paid; the payer’s page follows', async () => {
    const link = await newLink(12_000, 'Order 502');
    const { page } = await toStripe(link.payment_url);
    await page.getByLabel('Bank').selectOption('maybank2u');
    await page.getByRole('button', { name: 'Authorize - the bank confirms later' }).click();
    await page.getByRole('heading', { name: 'Payment being confirmed' }).waitFor();
    await screenshots(page, 'stripe-fpx-pending');
    const listed = (await s.t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': link._id } } })).data!.data.data;
    expect(listed.map((p) => [p.status, p.method, p.payment_status])).toEqual([['pending', 'fpx', 2]]);

    await s.standin.settle(listed[0]!.provider_reference!, 'succeeded');
    // The pending page looks again every few seconds and moves on once the payment is paid.
    await page.waitForURL(/\/payment\/thank-you/, { timeout: 20_000 });
    await page.close();
    expect(await payment(listed[0]!._id)).toMatchObject({ status: 'paid', payment_status: 1 });
  }, 60_000);

  it('a payment link whose FPX fails at the bank: the payer is told, and may try again', async () => {
    const link = await newLink(3_000, 'Order 503');
    const { page } = await toStripe(link.payment_url);
    await page.getByLabel('Bank').selectOption('cimb');
    await page.getByRole('button', { name: 'Authorize - the bank confirms later' }).click();
    await page.getByRole('heading', { name: 'Payment being confirmed' }).waitFor();
    const listed = (await s.t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': link._id } } })).data!.data.data;
    await s.standin.settle(listed[0]!.provider_reference!, 'failed');
    await page.getByRole('heading', { name: 'Payment not completed' }).waitFor({ timeout: 20_000 });
    await screenshots(page, 'stripe-fpx-failed');
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Continue to payment' }).waitFor();
    await page.close();
    expect(await payment(listed[0]!._id)).toMatchObject({ status: 'failed', payment_status: 3 });
    await waitFor('payment.failed', () =>
      s.events().find((e) => e.event === 'payment.failed' && (e.data as { payment_id: string }).payment_id === listed[0]!._id),
    );
  }, 60_000);

  it('a card saved on Stripe’s page, then charged by the merchant', async () => {
    const token = (await s.t.a.client.POST('/tokenizations/create-token', { body: { email: 'lim@example.com', title: 'Monthly plan', description: 'Plan' } }))
      .data!.data;
    const page = await browser.newPage();
    await page.goto(token.activation_url);
    await Promise.all([
      page.waitForURL((target) => target.origin === new URL(s.standin.url).origin),
      page.getByRole('button', { name: 'Continue to save a card' }).click(),
    ]);
    await payByCard(page, '4242 4242 4242 4242');
    await page.getByRole('heading', { name: 'Card saved' }).waitFor();
    await page.close();
    const charged = await s.t.a.client.POST('/tokenizations/{token_id}/charges', {
      params: { path: { token_id: token._id } },
      body: { amount: 2_990, currency: 'MYR' },
    });
    expect(charged.data!.data).toMatchObject({ status: 'paid', provider: 'stripe', card_last4: '4242' });
  }, 60_000);
});
