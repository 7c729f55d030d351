// Events forwarded as `stripe listen --forward-to` does: signed so that the SDK's constructEvent
// verifies them, in order, once each, their delivery recorded; held and delivered by hand; and the
// same controls over HTTP under /_standin/ for the CLI.
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from './support/receiver.js';
import { OTHER_KEY, TEST_KEY, payByCard, paymentSession, postPage, sdk, startStripeStandin, takeViolations, type StripeStandin } from './helpers.js';

const SECRET = 'whsec_standin_test_secret';

let standin: StripeStandin;
let stripe: Stripe;
let receiver: Receiver;
let answer: (n: number) => number = () => 200;

beforeAll(async () => {
  standin = await startStripeStandin();
  stripe = sdk(standin);
  receiver = await startReceiver((n) => answer(n));
});
afterAll(async () => {
  await standin?.close();
  await receiver?.close();
});
afterEach(() => {
  expect(takeViolations(standin)).toEqual([]);
  standin.holdWebhooks(false);
  standin.forward(TEST_KEY, null);
  answer = () => 200;
  receiver.requests.splice(0);
});

function verified(index: number, secret = SECRET): Stripe.Event {
  const request = receiver.requests[index]!;
  return stripe.webhooks.constructEvent(request.raw, request.headers['stripe-signature'] as string, secret);
}

describe('forwarding', () => {
  it('posts each event once, in order, signed so constructEvent verifies it', async () => {
    standin.forward(TEST_KEY, { url: receiver.url, secret: SECRET });
    const session = await paymentSession(stripe);
    await payByCard(session, '4242424242424242');
    await standin.idle();
    const types = ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded', 'checkout.session.completed'];
    expect(receiver.requests.map((_request, index) => verified(index).type)).toEqual(types);
    expect(() => verified(0, 'whsec_some_other_secret')).toThrow(Stripe.errors.StripeSignatureVerificationError);
    const first = receiver.requests[0]!;
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['user-agent']).toBe('Stripe/1.0 (+https://stripe.com/docs/webhooks)');
    expect(first.headers['stripe-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const completed = verified(3) as Stripe.CheckoutSessionCompletedEvent;
    expect(completed).toMatchObject({
      object: 'event',
      livemode: false,
      pending_webhooks: 1,
      api_version: Stripe.API_VERSION,
      request: { id: null, idempotency_key: null },
    });
    expect(completed.id).toMatch(/^evt_/);
    expect(completed.data.object).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid' });
    const records = standin.events(TEST_KEY).slice(-4);
    expect(records.map((record) => record.event.id)).toEqual(receiver.requests.map((_request, index) => verified(index).id));
    expect(
      records.every((record) => record.deliveries.length === 1 && record.deliveries[0]!.status === 200 && record.deliveries[0]!.url === receiver.url),
    ).toBe(true);
  });

  it('names the API request behind an event, with its idempotency key', async () => {
    standin.forward(TEST_KEY, { url: receiver.url, secret: SECRET });
    const customer = await stripe.customers.create({ email: 'c@example.com' }, { idempotencyKey: 'make-customer-7' });
    await standin.idle();
    const created = verified(0);
    expect(created).toMatchObject({ type: 'customer.created', data: { object: { id: customer.id } }, request: { idempotency_key: 'make-customer-7' } });
    expect(created.request!.id).toBe(customer.lastResponse.requestId);
  });

  it('records what the receiver answered and does not retry; deliver() sends again and says the status', async () => {
    standin.forward(TEST_KEY, { url: receiver.url, secret: SECRET });
    answer = (n) => (n === 1 ? 500 : 204);
    await stripe.customers.create({ email: 'c@example.com' });
    await standin.idle();
    const record = standin.events(TEST_KEY).at(-1)!;
    expect(record.deliveries.map((delivery) => delivery.status)).toEqual([500]);
    expect(await standin.deliver(record.event.id)).toBe(204);
    expect(record.deliveries.map((delivery) => delivery.status)).toEqual([500, 204]);
    expect(receiver.requests.map((request) => (request.body as { id: string }).id)).toEqual([record.event.id, record.event.id]);
  });

  it('holds events until delivered by hand, then forwards new ones again when released', async () => {
    standin.forward(TEST_KEY, { url: receiver.url, secret: SECRET });
    standin.holdWebhooks(true);
    const session = await paymentSession(stripe);
    await postPage(session, { pay: 'fpx:later', bank: 'maybank2u' });
    await standin.idle();
    expect(receiver.requests).toEqual([]);
    const held = standin.events(TEST_KEY).slice(-5);
    expect(held.every((record) => record.deliveries.length === 0)).toBe(true);
    const completed = held.find((record) => record.event.type === 'checkout.session.completed')!;
    expect(await standin.deliver(completed.event.id)).toBe(200);
    expect(verified(0).id).toBe(completed.event.id);

    standin.holdWebhooks(false);
    const intent = (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;
    await standin.settle(intent, 'succeeded');
    expect(receiver.requests.slice(1).map((_request, index) => verified(index + 1).type)).toEqual([
      'charge.succeeded',
      'payment_intent.succeeded',
      'checkout.session.async_payment_succeeded',
    ]);
  });

  it('sends nothing for an account without a target, and says so when asked to deliver', async () => {
    await stripe.customers.create({ email: 'c@example.com' });
    await standin.idle();
    expect(receiver.requests).toEqual([]);
    const record = standin.events(TEST_KEY).at(-1)!;
    expect(record.event.pending_webhooks).toBe(0);
    await expect(standin.deliver(record.event.id)).rejects.toThrow('forwards its events nowhere');
    await expect(standin.deliver('evt_nothing')).rejects.toThrow('no event evt_nothing');
  });

  it('records a receiver that cannot be reached', async () => {
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close();
    standin.forward(OTHER_KEY, { url, secret: SECRET });
    await sdk(standin, OTHER_KEY).customers.create({ email: 'c@example.com' });
    await standin.idle();
    const record = standin.events(OTHER_KEY).at(-1)!;
    expect(record.deliveries).toEqual([expect.objectContaining({ url, status: null, error: expect.any(String) })]);
    await expect(standin.deliver(record.event.id)).rejects.toThrow(`delivering ${record.event.id} to ${url} failed`);
    standin.forward(OTHER_KEY, null);
  });

  it('forwards only to this machine', () => {
    expect(() => standin.forward(TEST_KEY, { url: 'https://example.com/hooks', secret: SECRET })).toThrow('127.0.0.1, localhost or [::1]');
    expect(() => standin.forward(TEST_KEY, { url: receiver.url, secret: '' })).toThrow('secret');
  });
});

describe('a default target for every account (the CLI’s --forward-to)', () => {
  it('forwards every account’s events there unless the account has its own', async () => {
    const other = await startReceiver();
    const shared = await startStripeStandin({ forwardTo: { url: other.url, secret: SECRET } });
    try {
      await sdk(shared, 'sk_test_one').customers.create({ email: 'one@example.com' });
      await sdk(shared, 'sk_test_two').customers.create({ email: 'two@example.com' });
      shared.forward('sk_test_three', { url: receiver.url, secret: 'whsec_three' });
      await sdk(shared, 'sk_test_three').customers.create({ email: 'three@example.com' });
      await shared.idle();
      expect(other.requests.map((request) => (request.body as Stripe.Event).data.object)).toMatchObject([
        { email: 'one@example.com' },
        { email: 'two@example.com' },
      ]);
      expect(verified(0, 'whsec_three').data.object).toMatchObject({ email: 'three@example.com' });
      expect(shared.violations).toEqual([]);
    } finally {
      await shared.close();
      await other.close();
    }
  });
});

describe('the controls over HTTP (/_standin/)', () => {
  it('lists events, delivers one, settles a payment, and shows it all on a page with buttons', async () => {
    standin.forward(TEST_KEY, { url: receiver.url, secret: SECRET });
    standin.holdWebhooks(true);
    const session = await paymentSession(stripe);
    await postPage(session, { pay: 'fpx:later', bank: 'maybank2u' });
    const intent = (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;

    const page = await (await fetch(`${standin.url}/_standin/`)).text();
    expect(page).toContain(session.id);
    expect(page).toContain(`action="/_standin/payment_intents/${intent}/settle"`);
    expect(page).toContain('>Settle: failed</button>');

    const listed = (await (await fetch(`${standin.url}/_standin/events`)).json()) as { data: { event: Stripe.Event; account: string }[] };
    const completed = listed.data.find(
      (record) => record.event.type === 'checkout.session.completed' && (record.event.data.object as { id: string }).id === session.id,
    )!;
    const delivered = await fetch(`${standin.url}/_standin/events/${completed.event.id}/deliver`, { method: 'POST' });
    expect(await delivered.json()).toEqual({ status: 200 });
    expect(verified(0).id).toBe(completed.event.id);

    // A browser's button press comes back to the page.
    const settled = await fetch(`${standin.url}/_standin/payment_intents/${intent}/settle`, {
      method: 'POST',
      headers: { accept: 'text/html' },
      body: new URLSearchParams({ outcome: 'failed' }),
      redirect: 'manual',
    });
    expect(settled.status).toBe(303);
    expect(settled.headers.get('location')).toBe('/_standin/');
    expect(await stripe.paymentIntents.retrieve(intent)).toMatchObject({ status: 'requires_payment_method' });
    const again = await fetch(`${standin.url}/_standin/payment_intents/${intent}/settle`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'succeeded' }),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: expect.stringContaining('only a processing PaymentIntent can be settled') });
    expect(await (await fetch(`${standin.url}/_standin/violations`)).json()).toEqual({ data: [] });
  });
});
