// The hosted page in Chromium with JavaScript off, found by its labels and roles as a person (and
// the lead's browser tests) will use it: a decline then a card that works, FPX confirmed later, and
// saving a card.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, screenshots } from './support/browser.js';
import { paymentSession, sdk, startStripeStandin, takeViolations, type StripeStandin } from './helpers.js';

let standin: StripeStandin;
let stripe: Stripe;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** The merchant's site on loopback, where success_url and cancel_url point. */
let merchant: Server;
let merchantUrl: string;

beforeAll(async () => {
  standin = await startStripeStandin();
  stripe = sdk(standin);
  browser = await launchBrowser();
  merchant = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Merchant</h1><p>${req.url}</p>`));
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  merchant?.close();
  await standin?.close();
});
beforeEach(async () => {
  context = await browser.newContext({ javaScriptEnabled: false });
  page = await context.newPage();
});
afterEach(async () => {
  await context.close();
  expect(takeViolations(standin)).toEqual([]);
});

const session = (extra: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  paymentSession(stripe, {
    customer_email: undefined,
    success_url: `${merchantUrl}/done?session={CHECKOUT_SESSION_ID}`,
    cancel_url: `${merchantUrl}/cart`,
    ...extra,
  });

async function fillCard(number: string) {
  const card = page.getByRole('group', { name: 'Card' });
  await card.getByLabel('Card number').fill(number);
  await card.getByLabel('Expiration (MM / YY)').fill('12 / 34');
  await card.getByLabel('CVC').fill('123');
  await card.getByLabel('Cardholder name').fill('Aminah Yusof');
}

describe('the hosted page in a browser without JavaScript', () => {
  it('shows a decline, then takes another card and lands on success_url', async () => {
    const created = await session();
    await page.goto(created.url!);
    expect(await page.getByRole('heading', { name: 'Annual dues' }).isVisible()).toBe(true);
    expect(await page.getByText('MYR 25.00', { exact: true }).isVisible()).toBe(true);
    await screenshots(page, 'stripe-standin-checkout');
    await page.getByLabel('Email').fill('aminah@example.com');
    await fillCard('4000 0000 0000 0002');
    await page.getByRole('button', { name: 'Pay MYR 25.00' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Your card was declined.');
    await screenshots(page, 'stripe-standin-declined');

    await fillCard('4242 4242 4242 4242');
    await Promise.all([page.waitForURL(/\/done\?/), page.getByRole('button', { name: 'Pay MYR 25.00' }).click()]);
    expect(new URL(page.url()).searchParams.get('session')).toBe(created.id);
    expect(await stripe.checkout.sessions.retrieve(created.id)).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      customer_details: { email: 'aminah@example.com' },
    });
  });

  it('pays by FPX that the bank confirms later, then the bank’s answer comes', async () => {
    const created = await session();
    await page.goto(created.url!);
    await page.getByLabel('Email').fill('aminah@example.com');
    const fpx = page.getByRole('group', { name: 'FPX' });
    await fpx.getByLabel('Bank').selectOption({ label: 'Maybank2u' });
    await Promise.all([page.waitForURL(/\/done\?/), fpx.getByRole('button', { name: 'Authorize - the bank confirms later' }).click()]);
    const paid = await stripe.checkout.sessions.retrieve(created.id, { expand: ['payment_intent'] });
    expect(paid).toMatchObject({ status: 'complete', payment_status: 'unpaid', payment_intent: { status: 'processing' } });
    await standin.settle((paid.payment_intent as Stripe.PaymentIntent).id, 'succeeded');
    expect((await stripe.checkout.sessions.retrieve(created.id)).payment_status).toBe('paid');
  });

  it('goes back to cancel_url, and says a complete session is complete', async () => {
    const created = await session();
    await page.goto(created.url!);
    await Promise.all([page.waitForURL(/\/cart$/), page.getByRole('link', { name: 'Cancel and go back' }).click()]);
    await page.goto(created.url!);
    await page.getByLabel('Email').fill('aminah@example.com');
    await Promise.all([page.waitForURL(/\/done\?/), page.getByRole('group', { name: 'GrabPay' }).getByRole('button', { name: 'Authorize' }).click()]);
    await page.goto(created.url!);
    expect(await page.getByRole('heading', { name: 'This Checkout Session is complete' }).isVisible()).toBe(true);
  });

  it('saves a card in setup mode', async () => {
    const customer = await stripe.customers.create({ email: 'saver@example.com' });
    const created = await stripe.checkout.sessions.create({
      mode: 'setup',
      currency: 'myr',
      customer: customer.id,
      success_url: `${merchantUrl}/saved`,
      cancel_url: `${merchantUrl}/cart`,
    });
    await page.goto(created.url!);
    expect(await page.getByText('Saving for saver@example.com').isVisible()).toBe(true);
    await screenshots(page, 'stripe-standin-setup');
    await fillCard('4000 0000 0000 0341');
    await Promise.all([page.waitForURL(/\/saved$/), page.getByRole('button', { name: 'Save card' }).click()]);
    const done = await stripe.checkout.sessions.retrieve(created.id, { expand: ['setup_intent.payment_method'] });
    expect((done.setup_intent as Stripe.SetupIntent).payment_method).toMatchObject({ customer: customer.id, card: { last4: '0341' } });
  });
});
