// Signed webhooks to a receiver on loopback: what arrives, how to verify it, and what happens when
// the receiver fails, hangs or is not there.
import { createServer } from 'node:net';
import { swipeTime } from '../../server/domain/time.js';
import { afterEach, describe, expect, it } from 'vitest';
import { eventHash, verifyWebhook } from '../../client/webhooks.js';
import { setWebhook } from '../../server/store/businesses.js';
import { listAttempts, listOutbox } from '../../server/store/outbox.js';
import { findPayment } from '../../server/store/payments.js';
import { assertSchema } from '../support/contract.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { SWIPE_PAYMENT_FIELDS } from '../support/swipe-receiver.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { useServicePerTest, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const FAST_RETRY = { baseMs: 40, capMs: 200, maxAttempts: 3 };

let t: TestService | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  t = receiver = undefined;
});
// Registered after the hook above, so each test's service closes before what it delivered to.
const serviceWith = useServicePerTest();

/**
 * A receiver that hangs is given up on after 300 ms; the others get as long as production gives, so
 * an answer slowed by a busy machine is not taken for a timeout (and delivered again).
 */
async function setup(respond?: (n: number) => number | 'hang', url?: (receiver: Receiver) => string) {
  receiver = await startReceiver(respond);
  const hangs = respond ? [1, 2, 3].some((n) => respond(n) === 'hang') : false;
  t = await serviceWith({ outbox: { retry: FAST_RETRY, webhookTimeoutMs: hangs ? 300 : 10_000 } });
  await setWebhook(t.service.db, t.a.business.id, { url: url ? url(receiver) : receiver.url, secret: SECRET }, t.service.secretsKey);
  return { receiver, t };
}

const pay = (t: TestService, body: Record<string, unknown> = {}) =>
  create.paidLink(t, t.a, { amount: 1050, title: 'Invoice 9', reference: 'INV-9', ...body }, { name: 'Ali' });

/** Swipe's payment.created fields in Swipe's order, then the service's own. */
const PAYMENT_FIELDS = [...SWIPE_PAYMENT_FIELDS, 'payment_time_iso', 'payment_amount_decimal'];

describe('payment.created webhook', () => {
  it('arrives once, signed both ways, with the payment in data', async () => {
    const { receiver, t } = await setup();
    const { link, paymentId } = await pay(t);
    const [request] = await waitFor('the webhook', () => receiver.requests.length && receiver.requests);
    const event = verifyWebhook(request!.raw, request!.headers as Record<string, string>, SECRET);
    await assertSchema('PaymentCreatedEvent', event);
    const payment = (await findPayment(t.service.db, paymentId))!;
    expect(event).toMatchObject({
      event: 'payment.created',
      data: {
        attempt_id: payment.attempt_id,
        charge_amount: 1050,
        payment_id: paymentId,
        payment_time: swipeTime(payment.updated_at),
        payment_amount: 1050,
        payment_status: 1,
        payment_link_id: link._id,
        payment_link_reference: 'INV-9',
        payment_link_reference_2: null,
        payment_message: 'Payment successful',
        payment_reference_model: 'payment_link',
        payment_reference_id: link._id,
        payment_currency: 'MYR',
        payment_method: 'card',
        payment_provider: 'sandbox',
        payment_time_iso: payment.updated_at,
        payment_amount_decimal: '10.50',
      },
    });
    expect(Object.keys(event.data)).toEqual([...PAYMENT_FIELDS, 'hash']);
    expect(request!.headers['webhook-id']).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(request!.headers['content-type']).toBe('application/json');
    await t.service.worker!.drained();
    expect(receiver.requests).toHaveLength(1);
  });

  it('computes hash as documented: HMAC-SHA256 keyed with the key over the key and the data values in order', async () => {
    const { receiver, t } = await setup();
    await pay(t);
    const [request] = await waitFor('the webhook', () => receiver.requests.length && receiver.requests);
    const { data } = request!.body as { data: Record<string, unknown> };
    const { createHmac } = await import('node:crypto');
    const values = [...PAYMENT_FIELDS].map((k) => (data[k] === null ? '' : String(data[k])));
    expect(data.hash).toBe(
      createHmac('sha256', SECRET)
        .update(SECRET + values.join(''))
        .digest('hex'),
    );
    expect(eventHash(SECRET, data)).toBe(data.hash);
  });

  it('is retried after a failing answer, with the same webhook-id, until a 2xx', async () => {
    const { receiver, t } = await setup((n) => (n <= 2 ? 500 : 204));
    await pay(t);
    await waitFor('three requests', () => receiver.requests.length >= 3);
    await t.service.worker!.drained();
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const [entry] = await listOutbox(t.service.db, { channel: 'webhook' });
    expect(entry).toMatchObject({ status: 'delivered', attempts: 3 });
    const attempts = await listAttempts(t.service.db, entry!.id);
    expect(attempts.map((a) => a.error)).toEqual(['webhook answered HTTP 500', 'webhook answered HTTP 500', null]);
  });

  it('treats a receiver that does not answer in time as a failure and retries', async () => {
    const { receiver, t } = await setup((n) => (n === 1 ? 'hang' : 200));
    await pay(t);
    const [entry] = await waitFor('delivery', async () => {
      const entries = await listOutbox(t.service.db, { channel: 'webhook', status: 'delivered' });
      return entries.length && entries;
    });
    expect(entry!.attempts).toBe(2);
    expect((await listAttempts(t.service.db, entry!.id))[0]!.error).toBe('webhook not delivered: timeout (no answer within 300 ms)');
    expect(receiver.requests).toHaveLength(2);
  });

  it('retries a refused connection, then gives up and marks the event dead', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const { t } = await setup(undefined, () => `http://127.0.0.1:${closed}/hooks`);
    await pay(t);
    const [entry] = await waitFor('the event to die', async () => {
      const entries = await listOutbox(t.service.db, { channel: 'webhook', status: 'dead' });
      return entries.length && entries;
    });
    expect(entry).toMatchObject({ attempts: FAST_RETRY.maxAttempts, last_error: 'webhook not delivered: connection refused' });
  });

  it('never posts to the service itself', async () => {
    const { t } = await setup();
    await setWebhook(t.service.db, t.a.business.id, { url: `${t.url}/api/payment-links`, secret: SECRET }, t.service.secretsKey);
    await pay(t);
    const [entry] = await waitFor('the event to be refused', async () => {
      const entries = await listOutbox(t.service.db, { channel: 'webhook', status: 'dead' });
      return entries.length && entries;
    });
    expect(entry).toMatchObject({ attempts: 1, last_error: 'webhook not delivered: address not allowed' });
  });

  it('is recorded but sent nowhere for a business without a webhook URL', async () => {
    const { receiver, t } = await setup();
    await setWebhook(t.service.db, t.a.business.id, null, t.service.secretsKey);
    await pay(t);
    await t.service.worker!.drained();
    expect(receiver.requests).toHaveLength(0);
    // The event log keeps it (test/api/events-without-endpoint.test.ts); the entry is owed to nobody and never attempted.
    expect(await listOutbox(t.service.db, { channel: 'webhook' })).toMatchObject([
      { topic: 'payment.created', status: 'delivered', attempts: 0, endpoint_id: null },
    ]);
  });
});

describe('token.activated webhook', () => {
  it('arrives when a payer saves a card', async () => {
    const { receiver, t } = await setup();
    const { data } = await t.a.client.POST('/tokenizations/create-token', { body: { email: 'lim@example.com', title: 'Plan', description: 'Monthly' } });
    const payer = new Payer(t.url);
    const saved = await payer.submit(await payer.open(new URL(data!.data.activation_url).pathname), { name: 'Lim', ...GOOD_CARD });
    expect(saved.status).toBe(303);
    const [request] = await waitFor('the webhook', () => receiver.requests.length && receiver.requests);
    const event = verifyWebhook(request!.raw, request!.headers as Record<string, string>, SECRET);
    await assertSchema('TokenActivatedEvent', event);
    expect(event.data).toMatchObject({ token_id: data!.data._id, token_status: 'active', card_brand: 'visa', card_last4: '4242' });
  });
});
