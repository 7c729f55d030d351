// A payer on the stand-in's hosted Checkout page, posting its plain forms as a browser without
// JavaScript does: cards (Stripe's test numbers), FPX (now, or the bank confirms later), GrabPay, and
// saving a card in setup mode; what Stripe's objects and events say afterwards.
import type Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CANCEL_URL,
  TEST_KEY,
  eventTypesSince,
  payByCard,
  paymentSession,
  postPage,
  sdk,
  setupSession,
  startStripeStandin,
  takeViolations,
  type StripeStandin,
} from './helpers.js';

let standin: StripeStandin;
let stripe: Stripe;

beforeAll(async () => {
  standin = await startStripeStandin();
  stripe = sdk(standin);
});
afterAll(() => standin?.close());
afterEach(() => expect(takeViolations(standin)).toEqual([]));

const count = () => standin.events(TEST_KEY).length;
const lastEvent = (type: string) => standin.events(TEST_KEY).findLast((record) => record.event.type === type)!.event;

async function intentOf(session: Stripe.Checkout.Session, expand: string[] = []): Promise<Stripe.PaymentIntent> {
  const current = await stripe.checkout.sessions.retrieve(session.id);
  return stripe.paymentIntents.retrieve(current.payment_intent as string, { expand });
}

describe('the payment page', () => {
  it('shows what is paid and a form for each method the session offers, without scripts', async () => {
    const session = await paymentSession(stripe);
    const response = await fetch(session.url!);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('Annual dues');
    expect(page).toContain('MYR 25.00');
    expect(page).toContain('Paying as payer@example.com');
    for (const label of ['Card number', 'Expiration (MM / YY)', 'CVC', 'Cardholder name', 'Bank']) expect(page).toContain(`${label}\n<`);
    expect(page).toContain('<legend>FPX</legend>');
    expect(page).toContain('<legend>GrabPay</legend>');
    expect(page).toContain('>Pay MYR 25.00</button>');
    expect(page).toContain('value="fpx:later" formnovalidate>Authorize - the bank confirms later</button>');
    expect(page).toContain('<option value="maybank2u">Maybank2u</option>');
    expect(page).toContain(`<a href="${CANCEL_URL}">`);
    expect(page).not.toContain('<script');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('asks for an e-mail when the session has none', async () => {
    const session = await paymentSession(stripe, { customer_email: undefined });
    expect(await (await fetch(session.url!)).text()).toContain('<label for="email">Email');
    const missing = await payByCard(session, '4242424242424242');
    expect(missing.status).toBe(422);
    expect(missing.html).toContain('Enter your email.');
    const paid = await payByCard(session, '4242424242424242', { email: 'typed@example.com' });
    expect(paid.status).toBe(303);
    expect((await stripe.checkout.sessions.retrieve(session.id)).customer_details).toMatchObject({ email: 'typed@example.com' });
  });

  it('offers only card when the currency takes nothing else', async () => {
    const session = await paymentSession(stripe, {
      line_items: [{ price_data: { currency: 'usd', unit_amount: 500, product_data: { name: 'Dues' } }, quantity: 3 }],
    });
    const page = await (await fetch(session.url!)).text();
    expect(page).toContain('$15.00');
    expect(page).not.toContain('<legend>FPX</legend>');
    expect((await postPage(session, { pay: 'fpx:succeed', bank: 'maybank2u' })).status).toBe(400);
  });
});

describe('paying by card', () => {
  it('succeeds: the session completes paid, events as Stripe sends them, then 303 to success_url with the session id', async () => {
    const session = await paymentSession(stripe);
    const before = count();
    const answer = await payByCard(session, '4242 4242 4242 4242');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`http://127.0.0.1:9/orders/7/done?session=${session.id}`);
    expect(eventTypesSince(standin, before)).toEqual(['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded', 'checkout.session.completed']);
    const completed = lastEvent('checkout.session.completed');
    expect(completed.data.object).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid', client_reference_id: 'link_42' });
    expect(completed.request).toEqual({ id: null, idempotency_key: null });
    expect(await intentOf(session)).toMatchObject({ status: 'succeeded', amount_received: 2500 });
    // The number is gone: only brand and last four digits are anywhere.
    expect(JSON.stringify(standin.events(TEST_KEY))).not.toContain('4242424242424242');
    const after = await fetch(session.url!);
    expect(await after.text()).toContain('This Checkout Session is complete');
  });

  it('keeps the payer on the page after a decline, the session open, and takes a second card on the same PaymentIntent', async () => {
    const session = await paymentSession(stripe);
    const before = count();
    const declined = await payByCard(session, '4000000000000002');
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('<p class="alert" role="alert">Your card was declined.</p>');
    expect(declined.html).toContain('value="Aminah Yusof"');
    expect(/<input id="cardNumber"[^>]*>/.exec(declined.html)![0]).toContain('value=""');
    expect(eventTypesSince(standin, before)).toEqual(['payment_intent.created', 'charge.failed', 'payment_intent.payment_failed']);
    const open = await stripe.checkout.sessions.retrieve(session.id);
    expect(open).toMatchObject({ status: 'open', payment_status: 'unpaid' });
    const failed = await intentOf(session, ['latest_charge']);
    expect(failed).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined', decline_code: 'generic_decline', type: 'card_error' },
    });
    expect(failed.latest_charge).toMatchObject({ status: 'failed', failure_code: 'card_declined' });

    expect((await payByCard(session, '5555555555554444')).status).toBe(303);
    const paid = await intentOf(session, ['latest_charge']);
    expect(paid.id).toBe(failed.id);
    expect(paid).toMatchObject({ status: 'succeeded', last_payment_error: null });
    expect((paid.latest_charge as Stripe.Charge).payment_method_details).toMatchObject({ type: 'card', card: { brand: 'mastercard', last4: '4444' } });
  });

  it.each([
    ['4000000000009995', 'Your card has insufficient funds.', 'insufficient_funds'],
    ['4000000000000069', 'Your card has expired.', 'expired_card'],
    ['4000000000000341', 'Your card was declined.', 'generic_decline'],
    ['4111111111111111', 'Your card was declined. Your request was in test mode, but used a non test (live) card.', 'test_mode_live_card'],
  ])('declines %s as Stripe’s test mode does', async (number, message, declineCode) => {
    const session = await paymentSession(stripe);
    const answer = await payByCard(session, number);
    expect(answer.status).toBe(402);
    expect(answer.html).toContain(message);
    expect((await intentOf(session)).last_payment_error).toMatchObject({ decline_code: declineCode });
  });

  it('refuses what no card could be before anything is tried', async () => {
    const session = await paymentSession(stripe);
    const before = count();
    const wrong = await payByCard(session, '4242424242424241', { cardExpiry: '01 / 20', cardCvc: '1' });
    expect(wrong.status).toBe(422);
    expect(wrong.html).toContain('Your card number is invalid.');
    expect(wrong.html).toContain('Your card&#39;s expiration year is in the past.');
    expect(wrong.html).toContain('Your card&#39;s security code is incomplete.');
    expect(wrong.html).toContain('aria-invalid="true" aria-describedby="cardNumber-error"');
    expect(count()).toBe(before);
    expect((await stripe.checkout.sessions.retrieve(session.id)).payment_intent).toBeNull();
  });
});

describe('FPX and GrabPay', () => {
  it('FPX authorized now: paid at once, a py_ charge naming the bank', async () => {
    const session = await paymentSession(stripe);
    const before = count();
    const answer = await postPage(session, { pay: 'fpx:succeed', bank: 'maybank2u' });
    expect(answer.status).toBe(303);
    expect(eventTypesSince(standin, before)).toEqual([
      'payment_intent.created',
      'payment_intent.requires_action',
      'charge.succeeded',
      'payment_intent.succeeded',
      'checkout.session.completed',
    ]);
    const intent = await intentOf(session, ['latest_charge', 'payment_method']);
    expect(intent.status).toBe('succeeded');
    const charge = intent.latest_charge as Stripe.Charge;
    expect(charge.id).toMatch(/^py_/);
    expect(charge.payment_method_details).toMatchObject({ type: 'fpx', fpx: { bank: 'maybank2u' } });
    expect(intent.payment_method).toMatchObject({ type: 'fpx', fpx: { bank: 'maybank2u' } });
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({ status: 'complete', payment_status: 'paid' });
  });

  it('FPX the bank confirms later: complete but unpaid, processing, then settled succeeded', async () => {
    const session = await paymentSession(stripe);
    const before = count();
    expect((await postPage(session, { pay: 'fpx:later', bank: 'cimb' })).status).toBe(303);
    expect(eventTypesSince(standin, before)).toEqual([
      'payment_intent.created',
      'payment_intent.requires_action',
      'charge.pending',
      'payment_intent.processing',
      'checkout.session.completed',
    ]);
    expect(lastEvent('checkout.session.completed').data.object).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    const intent = await intentOf(session);
    expect(intent.status).toBe('processing');

    const settling = count();
    await standin.settle(intent.id, 'succeeded');
    expect(eventTypesSince(standin, settling)).toEqual(['charge.succeeded', 'payment_intent.succeeded', 'checkout.session.async_payment_succeeded']);
    expect(lastEvent('checkout.session.async_payment_succeeded').data.object).toMatchObject({ id: session.id, payment_status: 'paid' });
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({ status: 'succeeded', amount_received: 2500 });
    await expect(standin.settle(intent.id, 'failed')).rejects.toThrow('only a processing PaymentIntent can be settled');
  });

  it('FPX the bank confirms later, then settled failed', async () => {
    const session = await paymentSession(stripe);
    await postPage(session, { pay: 'fpx:later', bank: 'public_bank' });
    const intent = await intentOf(session);
    const settling = count();
    await standin.settle(intent.id, 'failed');
    expect(eventTypesSince(standin, settling)).toEqual(['charge.failed', 'payment_intent.payment_failed', 'checkout.session.async_payment_failed']);
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'payment_method_provider_decline' },
    });
  });

  it('FPX failed at the bank: the payer stays on the page, the session open; and a bank must be chosen', async () => {
    const session = await paymentSession(stripe);
    const noBank = await postPage(session, { pay: 'fpx:succeed' });
    expect(noBank.status).toBe(422);
    expect(noBank.html).toContain('Select your bank.');
    const before = count();
    const failed = await postPage(session, { pay: 'fpx:fail', bank: 'rhb' });
    expect(failed.status).toBe(402);
    expect(failed.html).toContain('We are unable to authenticate your payment method.');
    expect(failed.html).toContain('<option value="rhb" selected>');
    expect(eventTypesSince(standin, before)).toEqual(['payment_intent.created', 'payment_intent.requires_action', 'payment_intent.payment_failed']);
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({ status: 'open' });
    expect((await intentOf(session)).last_payment_error).toMatchObject({ code: 'payment_intent_authentication_failure' });
  });

  it('GrabPay authorized, and GrabPay failed', async () => {
    const paid = await paymentSession(stripe);
    expect((await postPage(paid, { pay: 'grabpay:succeed' })).status).toBe(303);
    expect(((await intentOf(paid, ['latest_charge'])).latest_charge as Stripe.Charge).payment_method_details).toMatchObject({ type: 'grabpay' });
    const refused = await paymentSession(stripe);
    const before = count();
    expect((await postPage(refused, { pay: 'grabpay:fail' })).status).toBe(402);
    expect(eventTypesSince(standin, before).at(-1)).toBe('payment_intent.payment_failed');
    expect((await postPage(refused, { pay: 'grabpay:later' })).status).toBe(400);
  });
});

describe('saving a card (setup mode)', () => {
  it('saves the card to the customer: PaymentMethod attached, SetupIntent succeeded, session complete', async () => {
    const customer = await stripe.customers.create({ email: 'saver@example.com' });
    const session = await setupSession(stripe, customer.id);
    const page = await (await fetch(session.url!)).text();
    expect(page).toContain('Save your card');
    expect(page).toContain('>Save card</button>');
    expect(page).not.toContain('<legend>FPX</legend>');
    const before = count();
    const answer = await payByCard(session, '4000000000005126', { cardExpiry: '0731' });
    expect(answer.status).toBe(303);
    expect(eventTypesSince(standin, before)).toEqual(['payment_method.attached', 'setup_intent.succeeded', 'checkout.session.completed']);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['setup_intent.payment_method'] });
    expect(done).toMatchObject({ status: 'complete', payment_status: 'no_payment_required' });
    const intent = done.setup_intent as Stripe.SetupIntent;
    expect(intent).toMatchObject({ status: 'succeeded', customer: customer.id });
    expect(intent.payment_method).toMatchObject({ customer: customer.id, card: { brand: 'visa', last4: '5126', exp_month: 7, exp_year: 2031 } });
    expect(await stripe.setupIntents.retrieve(intent.id)).toMatchObject({
      status: 'succeeded',
      payment_method: (intent.payment_method as Stripe.PaymentMethod).id,
    });
  });

  it.each([
    ['4000000000000002', 'Your card was declined.'],
    ['4000000000009995', 'Your card has insufficient funds.'],
    ['4000000000000069', 'Your card has expired.'],
  ])('refuses to save %s, shown on the page', async (number, message) => {
    const customer = await stripe.customers.create({ email: 'saver@example.com' });
    const session = await setupSession(stripe, customer.id);
    const before = count();
    const answer = await payByCard(session, number);
    expect(answer.status).toBe(402);
    expect(answer.html).toContain(message);
    expect(eventTypesSince(standin, before)).toEqual(['setup_intent.setup_failed']);
    const open = await stripe.checkout.sessions.retrieve(session.id, { expand: ['setup_intent'] });
    expect(open.status).toBe('open');
    expect(open.setup_intent).toMatchObject({ status: 'requires_payment_method', last_setup_error: { type: 'card_error', message } });
  });
});

describe('closed sessions', () => {
  it('says so on an expired session’s page and takes nothing', async () => {
    const session = await paymentSession(stripe);
    await stripe.checkout.sessions.expire(session.id);
    const page = await fetch(session.url!);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This Checkout Session has expired');
    expect((await payByCard(session, '4242424242424242')).status).toBe(410);
    expect((await fetch(`${standin.url}/c/pay/cs_test_nothing`)).status).toBe(404);
  });

  it('expires a session whose expires_at has passed, with its event', async () => {
    const session = await paymentSession(stripe);
    const before = count();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 25 * 60 * 60 * 1000);
      expect((await fetch(session.url!)).status).toBe(410);
    } finally {
      vi.useRealTimers();
    }
    // Every session still open has run out by then (canceling what was started in it); this one is among them.
    const expired = standin.events(TEST_KEY).slice(before);
    expect(new Set(expired.map((record) => record.event.type))).toEqual(
      new Set(['checkout.session.expired', 'payment_intent.canceled', 'setup_intent.canceled']),
    );
    expect(
      expired.filter((record) => 'id' in record.event.data.object && record.event.data.object.id === session.id).map((record) => record.event.type),
    ).toEqual(['checkout.session.expired']);
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({ status: 'expired' });
  });
});
