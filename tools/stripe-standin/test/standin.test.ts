// The stand-in's API driven by the official SDK as the service's Stripe provider will drive it:
// what it answers, what it refuses (as Stripe does, recorded in `violations`) and what it remembers.
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StripeSpec } from '../src/spec.js';
import {
  CLOVER,
  OTHER_KEY,
  TEST_KEY,
  eventTypesSince,
  payByCard,
  paymentSession,
  saveCard,
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

async function refusal(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Stripe.errors.StripeError)) throw new Error(`expected a Stripe error, got ${String(error)}`);
  return error;
}

describe('validation against Stripe’s description', () => {
  it('refuses an unknown parameter with 400 as Stripe words it, and records the violation', async () => {
    const error = await refusal(stripe.checkout.sessions.create({ mode: 'payment', bogus: 1 } as never));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.statusCode).toBe(400);
    expect(error.type).toBe('StripeInvalidRequestError');
    expect(error.rawType).toBe('invalid_request_error');
    expect(error.message).toBe('Received unknown parameter: bogus');
    expect(error.param).toBe('bogus');
    const violations = takeViolations(standin);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    expect(violations[0]!.problems).toContain('Received unknown parameter: bogus');
    expect(violations[0]!.problems).toContain('Missing required param: success_url.');
  });

  it('refuses a mistyped parameter, nested ones in bracket notation', async () => {
    const error = await refusal(
      stripe.checkout.sessions.create({
        mode: 'payment',
        success_url: 'http://127.0.0.1:9/ok',
        line_items: [{ price_data: { currency: 'myr', unit_amount: 'ten' as never, product_data: { name: 'Tea' } }, quantity: 1 }],
      }),
    );
    expect(error.statusCode).toBe(400);
    expect(error.message).toBe('Invalid integer: ten');
    expect(error.param).toBe('line_items[0][price_data][unit_amount]');
    expect(takeViolations(standin)).toHaveLength(1);
  });

  it('refuses a value outside an enum and an unknown query parameter', async () => {
    const mode = await refusal(stripe.checkout.sessions.create({ mode: 'rental' as never, success_url: 'http://127.0.0.1:9/ok' }));
    expect(mode.message).toBe('Invalid mode: must be one of payment, setup, subscription');
    const session = await paymentSession(stripe);
    const query = await refusal(stripe.checkout.sessions.retrieve(session.id, { expnd: ['payment_intent'] } as never));
    expect(query.message).toBe('Received unknown parameter: expnd');
    expect(takeViolations(standin).map((violation) => violation.path)).toEqual(['/v1/checkout/sessions', `/v1/checkout/sessions/${session.id}`]);
  });

  it('answers an operation it does not serve with Stripe’s 404, recorded', async () => {
    const error = await refusal(stripe.charges.retrieve('ch_123'));
    expect(error.statusCode).toBe(404);
    expect(error.message).toBe(
      'Unrecognized request URL (GET: /v1/charges/ch_123). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.',
    );
    expect(takeViolations(standin)).toEqual([{ method: 'GET', path: '/v1/charges/ch_123', problems: [expect.stringContaining('no such operation')] }]);
  });

  it('refuses a parameter Stripe takes but the stand-in does not act on, recorded', async () => {
    const error = await refusal(stripe.customers.create({ email: 'a@example.com', preferred_locales: ['ms'] }));
    expect(error.statusCode).toBe(400);
    expect(error.message).toContain('does not implement `preferred_locales`');
    expect(takeViolations(standin)).toHaveLength(1);
  });

  it('takes only sk_test_ keys, Bearer as the SDK sends them', async () => {
    const none = await fetch(`${standin.url}/v1/customers`, { method: 'POST' });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/^You did not provide an API key/);
    const live = await refusal(new Stripe('sk_live_0123456789abcdef', { ...standin.sdkOptions, maxNetworkRetries: 0 }).customers.create({}));
    expect(live).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    // curl -u sk_test_...: works too, as with Stripe.
    const basic = await fetch(`${standin.url}/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${TEST_KEY}:`).toString('base64')}` },
    });
    expect(basic.status).toBe(200);
    expect(live.statusCode).toBe(401);
    expect(live.message).toBe('Invalid API Key provided: sk_live_************cdef');
  });
});

describe('customers and accounts', () => {
  it('creates and retrieves a customer, only under the key that made it', async () => {
    const customer = await stripe.customers.create({ email: 'c@example.com', name: 'Chong Wei', metadata: { business: 'b1' } });
    expect(customer).toMatchObject({ object: 'customer', email: 'c@example.com', name: 'Chong Wei', metadata: { business: 'b1' }, livemode: false });
    expect(customer.id).toMatch(/^cus_[0-9A-Za-z]{14}$/);
    expect(await stripe.customers.retrieve(customer.id)).toEqual(customer);
    const elsewhere = await refusal(sdk(standin, OTHER_KEY).customers.retrieve(customer.id));
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.code).toBe('resource_missing');
    expect(elsewhere.message).toBe(`No such customer: '${customer.id}'`);
  });
});

describe('Checkout Sessions', () => {
  it('creates a payment-mode session as Stripe answers it: open, unpaid, no PaymentIntent until the payer submits', async () => {
    const session = await paymentSession(stripe, { expand: ['customer'] });
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      payment_intent: null,
      setup_intent: null,
      amount_total: 2500,
      amount_subtotal: 2500,
      currency: 'myr',
      customer: null,
      customer_email: 'payer@example.com',
      client_reference_id: 'link_42',
      metadata: { link: '42' },
      success_url: 'http://127.0.0.1:9/orders/7/done?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://127.0.0.1:9/orders/7',
      // The Dashboard's methods that take ringgit, since payment_method_types is gone at the SDK's version.
      payment_method_types: ['card', 'fpx', 'grabpay'],
      livemode: false,
    });
    expect(session.id).toMatch(/^cs_test_[0-9A-Za-z]{58}$/);
    expect(session.url).toBe(`${standin.url}/c/pay/${session.id}`);
    expect(session.expires_at - session.created).toBe(24 * 60 * 60);
  });

  it('narrows the methods with allowed_payment_method_types (API version 2026-09-30.endive and later)', async () => {
    // PayNow is one of Stripe's payment method types, but not one the stand-in's account takes ringgit by.
    const session = await paymentSession(stripe, { allowed_payment_method_types: ['card', 'grabpay', 'paynow'] });
    expect(session.payment_method_types).toEqual(['card', 'grabpay']);
    const dollars = await paymentSession(stripe, {
      line_items: [{ price_data: { currency: 'usd', unit_amount: 900, product_data: { name: 'Dues' } }, quantity: 2 }],
    });
    expect(dollars).toMatchObject({ payment_method_types: ['card'], amount_total: 1800, currency: 'usd' });
  });

  it('takes in allowed_payment_method_types only Stripe’s own payment method types, as its description lists them', async () => {
    const body = StripeSpec.load().document.paths['/v1/checkout/sessions']!.post!.requestBody!.content['application/x-www-form-urlencoded']!.schema;
    const listed = (body as { properties: { payment_method_types: { items: { enum: string[] } } } }).properties.payment_method_types.items.enum;
    expect(listed).toEqual(expect.arrayContaining(['card', 'fpx', 'grabpay']));
    // Every type Stripe lists passes; the stand-in's account offers the ones that take ringgit.
    expect((await paymentSession(stripe, { allowed_payment_method_types: listed as never })).payment_method_types).toEqual(['card', 'fpx', 'grabpay']);

    const typo = await refusal(paymentSession(stripe, { allowed_payment_method_types: ['card', 'fxp'] as never }));
    expect(typo.statusCode).toBe(400);
    expect(typo.param).toBe('allowed_payment_method_types[1]');
    expect(typo.message).toBe(`Invalid allowed_payment_method_types[1]: must be one of ${listed.join(', ')}`);
    const intent = await refusal(
      stripe.paymentIntents.create({ amount: 1500, currency: 'myr', allowed_payment_method_types: ['crad'] as never, payment_method: 'pm_card_visa' }),
    );
    expect(intent.param).toBe('allowed_payment_method_types[0]');
    expect(takeViolations(standin)).toEqual([
      { method: 'POST', path: '/v1/checkout/sessions', problems: [typo.message] },
      { method: 'POST', path: '/v1/payment_intents', problems: [intent.message] },
    ]);
  });

  it('refuses payment_method_types at the SDK’s own version, as Stripe does since 2026-09-30.endive', async () => {
    const error = await refusal(paymentSession(stripe, { payment_method_types: ['card'] } as never));
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('payment_method_types_no_longer_supported');
    expect(takeViolations(standin)).toHaveLength(1);
  });

  it('takes payment_method_types at an earlier API version, and refuses the newer parameter there', async () => {
    const older = sdk(standin, 'sk_test_standin_clover', CLOVER);
    const session = await paymentSession(older, { payment_method_types: ['card', 'fpx'] } as never);
    expect(session.payment_method_types).toEqual(['card', 'fpx']);
    const fpxInDollars = await refusal(
      paymentSession(older, {
        payment_method_types: ['fpx'],
        line_items: [{ price_data: { currency: 'usd', unit_amount: 900, product_data: { name: 'Dues' } }, quantity: 1 }],
      } as never),
    );
    expect(fpxInDollars.param).toBe('payment_method_types');
    const newer = await refusal(paymentSession(older, { allowed_payment_method_types: ['card'] }));
    expect(newer.message).toBe('Received unknown parameter: allowed_payment_method_types');
    expect(takeViolations(standin)).toHaveLength(1);
  });

  it('refuses what Stripe refuses beyond the description: no line items, both customer and email, a short expiry, an unknown customer', async () => {
    const noLines = await refusal(stripe.checkout.sessions.create({ mode: 'payment', success_url: 'http://127.0.0.1:9/ok' }));
    expect(noLines.message).toBe('`line_items` is required in `payment` mode.');
    const customer = await stripe.customers.create({ email: 'c@example.com' });
    const both = await refusal(paymentSession(stripe, { customer: customer.id }));
    expect(both.message).toBe('You may only specify one of these parameters: customer, customer_email.');
    const soon = await refusal(paymentSession(stripe, { expires_at: Math.floor(Date.now() / 1000) + 60 }));
    expect(soon.param).toBe('expires_at');
    const unknown = await refusal(paymentSession(stripe, { customer_email: undefined, customer: 'cus_nobody' }));
    expect(unknown).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'customer' });
  });

  it('creates a setup-mode session with its SetupIntent for the customer', async () => {
    const customer = await stripe.customers.create({ email: 'c@example.com' });
    const session = await stripe.checkout.sessions.retrieve((await setupSession(stripe, customer.id)).id, { expand: ['setup_intent'] });
    expect(session).toMatchObject({
      mode: 'setup',
      status: 'open',
      payment_status: 'no_payment_required',
      customer: customer.id,
      amount_total: null,
      payment_intent: null,
      payment_method_types: ['card'],
      metadata: { token: 't_1' },
    });
    expect(session.setup_intent).toMatchObject({
      object: 'setup_intent',
      status: 'requires_payment_method',
      customer: customer.id,
      metadata: { token: 't_1' },
      usage: 'off_session',
    });
    const noCurrency = await refusal(stripe.checkout.sessions.create({ mode: 'setup', customer: customer.id, success_url: 'http://127.0.0.1:9/ok' }));
    expect(noCurrency.message).toBe('Missing required param: currency.');
  });

  it('expands a paid session’s PaymentIntent, its latest charge and payment method', async () => {
    const session = await paymentSession(stripe);
    expect((await payByCard(session, '4242424242424242')).status).toBe(303);
    const paid = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.latest_charge', 'payment_intent.payment_method'] });
    expect(paid).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      url: null,
      customer_details: { email: 'payer@example.com', name: 'Aminah Yusof' },
    });
    const intent = paid.payment_intent as Stripe.PaymentIntent;
    expect(intent).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 2500,
      amount_received: 2500,
      currency: 'myr',
      description: 'Annual dues',
      metadata: { link: '42' },
    });
    expect(intent.latest_charge).toMatchObject({
      object: 'charge',
      status: 'succeeded',
      amount: 2500,
      amount_refunded: 0,
      refunded: false,
      payment_intent: intent.id,
      payment_method_details: { type: 'card', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 } },
    });
    expect(intent.payment_method).toMatchObject({
      object: 'payment_method',
      type: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 },
    });
    const unexpandable = await refusal(stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.amount'] }));
    expect(unexpandable.message).toBe('This property cannot be expanded (payment_intent.amount).');
    // The PaymentIntent by itself, and the charge's refunds only when asked for.
    const alone = await stripe.paymentIntents.retrieve(intent.id, { expand: ['latest_charge'] });
    expect((alone.latest_charge as Stripe.Charge).refunds).toBeUndefined();
    const withRefunds = await stripe.paymentIntents.retrieve(intent.id, { expand: ['latest_charge.refunds'] });
    expect((withRefunds.latest_charge as Stripe.Charge).refunds).toMatchObject({ object: 'list', data: [], has_more: false });
  });

  it('expires an open session (checkout.session.expired), and refuses to expire a complete one as Stripe does', async () => {
    const session = await paymentSession(stripe);
    const before = standin.events(TEST_KEY).length;
    const expired = await stripe.checkout.sessions.expire(session.id);
    expect(expired).toMatchObject({ status: 'expired', url: null, payment_status: 'unpaid' });
    expect(eventTypesSince(standin, before)).toEqual(['checkout.session.expired']);
    const again = await refusal(stripe.checkout.sessions.expire(session.id));
    expect(again.message).toBe('Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of `expired`.');
    const paid = await paymentSession(stripe);
    await payByCard(paid, '4242424242424242');
    const complete = await refusal(stripe.checkout.sessions.expire(paid.id));
    expect(complete.statusCode).toBe(400);
    expect(complete.message).toContain('has a status of `complete`');
  });

  it('cancels a declined session’s PaymentIntent when the session expires', async () => {
    const session = await paymentSession(stripe);
    await payByCard(session, '4000000000000002');
    const expired = await stripe.checkout.sessions.expire(session.id, { expand: ['payment_intent'] });
    expect(expired.payment_intent).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
  });
});

describe('off-session PaymentIntents with a saved card', () => {
  const charge = (customer: string, paymentMethod: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
    stripe.paymentIntents.create({
      amount: 1500,
      currency: 'myr',
      customer,
      payment_method: paymentMethod,
      off_session: true,
      confirm: true,
      allowed_payment_method_types: ['card'],
      metadata: { charge: 'c1' },
      description: 'Monthly dues',
      ...extra,
    });

  it('succeeds with a test card saved in setup mode', async () => {
    const saved = await saveCard(stripe, '5555555555554444');
    const before = standin.events(TEST_KEY).length;
    const intent = await charge(saved.customer.id, saved.paymentMethod);
    expect(intent).toMatchObject({
      status: 'succeeded',
      amount: 1500,
      amount_received: 1500,
      customer: saved.customer.id,
      payment_method: saved.paymentMethod,
      metadata: { charge: 'c1' },
    });
    expect(eventTypesSince(standin, before)).toEqual(['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded']);
    const method = await stripe.paymentMethods.retrieve(saved.paymentMethod);
    expect(method).toMatchObject({ customer: saved.customer.id, card: { brand: 'mastercard', last4: '4444' } });
  });

  it('declines the 0341 card (it saved fine) with a 402 the SDK throws as StripeCardError', async () => {
    const saved = await saveCard(stripe, '4000000000000341');
    const before = standin.events(TEST_KEY).length;
    const error = await refusal(charge(saved.customer.id, saved.paymentMethod));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' });
    const intent = error.payment_intent!;
    expect(intent).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' },
    });
    expect(eventTypesSince(standin, before)).toEqual(['payment_intent.created', 'charge.failed', 'payment_intent.payment_failed']);
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({ status: 'requires_payment_method' });
  });

  it('asks for a return_url when the Dashboard’s methods (some redirecting) are on, as Stripe does since 2023-08-16', async () => {
    const saved = await saveCard(stripe, '4242424242424242');
    const error = await refusal(charge(saved.customer.id, saved.paymentMethod, { allowed_payment_method_types: undefined }));
    expect(error.message).toContain('A `return_url` must be specified');
    const noRedirects = await charge(saved.customer.id, saved.paymentMethod, {
      allowed_payment_method_types: undefined,
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    });
    expect(noRedirects).toMatchObject({
      status: 'succeeded',
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      payment_method_types: ['card'],
    });
  });

  it('refuses a payment method of another customer', async () => {
    const saved = await saveCard(stripe, '4242424242424242');
    const stranger = await stripe.customers.create({ email: 's@example.com' });
    const error = await refusal(charge(stranger.id, saved.paymentMethod));
    expect(error).toMatchObject({ statusCode: 400, param: 'payment_method' });
    const missing = await refusal(charge(stranger.id, 'pm_nothing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing', message: "No such PaymentMethod: 'pm_nothing'" });
  });
});

describe('refunds', () => {
  async function paidIntent(number = '4242424242424242'): Promise<string> {
    const session = await paymentSession(stripe);
    expect((await payByCard(session, number)).status).toBe(303);
    return (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;
  }

  it('refunds part, then the rest, then refuses: charge_already_refunded', async () => {
    const intent = await paidIntent();
    const before = standin.events(TEST_KEY).length;
    const part = await stripe.refunds.create({ payment_intent: intent, amount: 1000, reason: 'requested_by_customer', metadata: { refund: 'r1' } });
    expect(part).toMatchObject({
      object: 'refund',
      amount: 1000,
      currency: 'myr',
      status: 'succeeded',
      payment_intent: intent,
      reason: 'requested_by_customer',
      metadata: { refund: 'r1' },
    });
    expect(part.id).toMatch(/^re_/);
    expect(eventTypesSince(standin, before)).toEqual(['charge.refunded', 'refund.created']);
    const refunded = standin.events(TEST_KEY).at(-2)!.event;
    expect(refunded.data.object).toMatchObject({ object: 'charge', amount_refunded: 1000, refunded: false });
    expect(refunded.data.previous_attributes).toEqual({ amount_refunded: 0, refunded: false });

    const over = await refusal(stripe.refunds.create({ payment_intent: intent, amount: 2000 }));
    expect(over).toMatchObject({
      statusCode: 400,
      param: 'amount',
      message: 'Refund amount (MYR 20.00) is greater than unrefunded amount on charge (MYR 15.00)',
    });
    const rest = await stripe.refunds.create({ payment_intent: intent });
    expect(rest.amount).toBe(1500);
    const charge = (await stripe.paymentIntents.retrieve(intent, { expand: ['latest_charge.refunds'] })).latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({ amount_refunded: 2500, refunded: true });
    expect(charge.refunds!.data.map((refund) => refund.id)).toEqual([rest.id, part.id]);
    const done = await refusal(stripe.refunds.create({ payment_intent: intent, amount: 1 }));
    expect(done).toMatchObject({ statusCode: 400, code: 'charge_already_refunded', message: `Charge ${charge.id} has already been refunded.` });
  });

  it('fails the 5126 card’s refund after it first looks successful (charge.refund.updated)', async () => {
    const intent = await paidIntent('4000000000005126');
    const before = standin.events(TEST_KEY).length;
    const refund = await stripe.refunds.create({ payment_intent: intent });
    expect(refund.status).toBe('succeeded');
    const later = await stripe.refunds.retrieve(refund.id);
    expect(later).toMatchObject({ status: 'failed', failure_reason: 'expired_or_canceled_card' });
    expect(eventTypesSince(standin, before)).toEqual(['charge.refunded', 'refund.created', 'charge.refund.updated', 'refund.updated']);
    const updated = standin.events(TEST_KEY).at(-2)!.event;
    expect(updated.data.object).toMatchObject({ object: 'refund', id: refund.id, status: 'failed' });
    expect(updated.request).toEqual({ id: null, idempotency_key: null });
    // The money went back to the charge: it can be refunded again.
    expect(((await stripe.paymentIntents.retrieve(intent, { expand: ['latest_charge'] })).latest_charge as Stripe.Charge).amount_refunded).toBe(0);
  });

  it('refuses a refund of a PaymentIntent that has not succeeded, and of one that does not exist', async () => {
    const session = await paymentSession(stripe);
    await payByCard(session, '4000000000009995');
    const declined = (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;
    expect((await refusal(stripe.refunds.create({ payment_intent: declined }))).statusCode).toBe(400);
    expect((await refusal(stripe.refunds.create({ payment_intent: 'pi_nothing' }))).code).toBe('resource_missing');
    expect((await refusal(stripe.refunds.retrieve('re_nothing'))).statusCode).toBe(404);
  });
});

describe('idempotency', () => {
  it('replays the first answer for the same key and params, without doing it twice', async () => {
    const params = { email: 'same@example.com', metadata: { n: '1' } };
    const first = await stripe.customers.create(params, { idempotencyKey: 'customer-1' });
    const before = standin.events(TEST_KEY).length;
    const replay = await stripe.customers.create({ metadata: { n: '1' }, email: 'same@example.com' }, { idempotencyKey: 'customer-1' });
    expect(replay).toEqual(first);
    expect(replay.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(standin.events(TEST_KEY).length).toBe(before);
    expect(standin.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/customers', secretKey: TEST_KEY, idempotencyKey: 'customer-1' });
  });

  it('replays a decline too, and refuses the key with different params (idempotency_error)', async () => {
    const saved = await saveCard(stripe, '4000000000000341');
    const params = {
      amount: 900,
      currency: 'myr',
      customer: saved.customer.id,
      payment_method: saved.paymentMethod,
      off_session: true,
      confirm: true,
      allowed_payment_method_types: ['card'],
    };
    const first = await refusal(stripe.paymentIntents.create(params, { idempotencyKey: 'charge-1' }));
    const replay = await refusal(stripe.paymentIntents.create(params, { idempotencyKey: 'charge-1' }));
    expect(replay).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(replay.payment_intent!.id).toBe(first.payment_intent!.id);
    const different = await refusal(stripe.paymentIntents.create({ ...params, amount: 901 }, { idempotencyKey: 'charge-1' }));
    expect(different).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(different.statusCode).toBe(400);
    expect(different.message).toBe(
      "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'charge-1' if you meant to execute a different request.",
    );
  });

  it('keeps keys per account', async () => {
    const a = await stripe.customers.create({ email: 'a@example.com' }, { idempotencyKey: 'shared-key' });
    const b = await sdk(standin, OTHER_KEY).customers.create({ email: 'b@example.com' }, { idempotencyKey: 'shared-key' });
    expect(b.id).not.toBe(a.id);
  });
});
