// payment.failed: every failed attempt on a payment link or an open link is announced once, signed
// like payment.created, with payment_status 3 and the reason, so a merchant's books see every outcome.
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook, type PaymentFailedEvent } from '../../client/webhooks.js';
import { setWebhook } from '../../server/store/businesses.js';
import { listOutbox } from '../../server/store/outbox.js';
import { assertSchema } from '../support/contract.js';
import { DECLINED_CARD, GOOD_CARD, NO_FUNDS_CARD, Payer } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { useServicePerTest, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let t: TestService | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  t = receiver = undefined;
});
// Registered after the hook above, so each test's service closes before what it delivered to.
const serviceWith = useServicePerTest();

async function attempt(service: TestService, paymentUrl: string, fields: Record<string, string>) {
  const url = new URL(paymentUrl);
  const payer = new Payer(service.url);
  return payer.submit(await payer.open(url.pathname + url.search), fields);
}

describe('payment.failed webhook', () => {
  it('announces each declined attempt once, with the reason, then payment.created for the success', async () => {
    receiver = await startReceiver();
    t = await serviceWith();
    await setWebhook(t.service.db, t.a.business.id, { url: receiver.url, secret: SECRET }, t.service.secretsKey);
    const { data } = await t.a.client.POST('/payment-links', {
      body: { email: 'payer@example.com', currency: 'MYR', amount: 1050, title: 'Invoice 9', reference: 'INV-9' },
    });
    const link = data!.data;

    expect((await attempt(t, link.payment_url, { name: 'Ali', ...DECLINED_CARD })).status).toBe(402);
    expect((await attempt(t, link.payment_url, { name: 'Ali', ...NO_FUNDS_CARD })).status).toBe(402);
    expect((await attempt(t, link.payment_url, { name: 'Ali', ...GOOD_CARD })).status).toBe(303);

    const requests = await waitFor('three webhooks', () => receiver!.requests.length >= 3 && receiver!.requests);
    await t.service.worker!.drained();
    expect(receiver.requests).toHaveLength(3);
    const events = requests.map((request) => verifyWebhook(request.raw, request.headers as Record<string, string>, SECRET));
    const failed = events.filter((event): event is PaymentFailedEvent => event.event === 'payment.failed');
    expect(failed).toHaveLength(2);
    for (const event of failed) await assertSchema('PaymentFailedEvent', event);
    expect(failed.map((event) => [event.data.payment_status, event.data.failure_code]).sort()).toEqual([
      [3, 'card_declined'],
      [3, 'insufficient_funds'],
    ]);
    const { data: page } = await t.a.client.GET('/payments', { params: { query: { 'filter[status]': 'failed', 'filter[payment_link_id]': link._id } } });
    const records = page!.data.data;
    // Each event names its payment record, whose reason it carries.
    for (const event of failed) {
      const record = records.find((payment) => payment._id === event.data.payment_id)!;
      expect(event.data).toMatchObject({
        payment_link_id: link._id,
        payment_link_reference: 'INV-9',
        payment_amount: 1050,
        charge_amount: 0,
        payment_reference_model: 'payment_link',
        payment_reference_id: link._id,
        payment_message: record.failure_message,
        failure_code: record.failure_code,
      });
    }
    expect(events.filter((event) => event.event === 'payment.created')).toHaveLength(1);
  });

  it('is also sent for an open link, and not at all for a business without a webhook', async () => {
    receiver = await startReceiver();
    t = await serviceWith();
    await setWebhook(t.service.db, t.a.business.id, { url: receiver.url, secret: SECRET }, t.service.secretsKey);
    for (const client of [t.a.client, t.b.client]) {
      const { data } = await client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: 5, title: 'Donations' } });
      expect((await attempt(t, data!.data.payment_url, { amount: '20.00', name: 'Ben', email: 'ben@example.com', ...DECLINED_CARD })).status).toBe(402);
    }
    const [request] = await waitFor('the webhook', () => receiver!.requests.length && receiver!.requests);
    const event = verifyWebhook(request!.raw, request!.headers as Record<string, string>, SECRET);
    expect(event).toMatchObject({
      event: 'payment.failed',
      data: { payment_status: 3, payment_amount: 2000, payment_reference_model: 'open_payment_link', failure_code: 'card_declined' },
    });
    // B has no webhook: its event is recorded (its event log lists it) but owed to nobody, so nothing is sent.
    expect((await listOutbox(t.service.db)).filter((entry) => entry.business_id === t!.b.business.id && entry.channel === 'webhook')).toMatchObject([
      { topic: 'payment.failed', status: 'delivered', attempts: 0, endpoint_id: null },
    ]);
  });
});
