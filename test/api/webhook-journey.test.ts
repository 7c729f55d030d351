// The webhook half of the "done means", as one merchant's journey through the API alone: register
// an endpoint, send it a test, lose the receiver, watch a real payment's delivery fail and show under
// filter[delivery_success]=false, bring the receiver back, resend and see it delivered, then rotate the
// key and check, during the overlap, that both keys verify with the client's verifyWebhook and with the
// standardwebhooks library.
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/webhooks.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/receiver.js';
import { useService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

let receiver: Receiver | undefined;

// Retries an hour apart: within the test only the resend brings a failed delivery back.
const t = useService({ outbox: { retry: { baseMs: 3_600_000, capMs: 3_600_000, maxAttempts: 12 } } });
afterAll(async () => {
  await receiver?.close();
});

const headersOf = (request: ReceivedRequest) => request.headers as Record<string, string>;
const eventOf = async (id: string) => (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: id } } })).data!.data;
const listed = async (success: boolean) =>
  (await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': success, per_page: 100 } } })).data!.data.data.map((e) => e.id);

async function pay(amount: number): Promise<string> {
  return (await create.paidLink(t, t.a, { amount, title: `Invoice ${amount}` }, { name: 'Payer' })).paymentId;
}

describe('a merchant runs its own webhook endpoint', () => {
  it('registers, tests, misses a delivery, sees it failed, resends it, and rotates its key', async () => {
    receiver = await startReceiver();
    const port = Number(new URL(receiver.url).port);

    // Register through the API: the key is shown this once.
    const created = await t.a.client.POST('/webhook-endpoints', { body: { url: receiver.url, description: 'Books' } });
    expect(created.response.status).toBe(200);
    const endpoint = created.data!.data;
    expect(endpoint).toMatchObject({ url: receiver.url, enabled: true, enabled_events: ['*'] });

    // A test: a ping, delivered and signed with that key.
    const test = await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/test', { params: { path: { webhook_endpoint_id: endpoint._id } } });
    expect(test.response.status).toBe(200);
    const pingId = test.data!.data.id;
    const [ping] = await waitFor('the ping', () => receiver!.requests.length > 0 && receiver!.requests);
    expect(ping!.headers['webhook-id']).toBe(pingId);
    expect(verifyWebhook(ping!.raw, headersOf(ping!), endpoint.secret)).toMatchObject({ event: 'ping', data: { webhook_endpoint_id: endpoint._id } });
    await waitFor('the ping delivered', async () => (await eventOf(pingId)).delivery_success);

    // The receiver goes down; a real payment happens.
    await receiver.close();
    receiver = undefined;
    const paymentId = await pay(2100);
    const failed = await waitFor('a failed delivery, listed', async () => {
      const events = (await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': false } } })).data!.data.data;
      return events.find((e) => e.type === 'payment.created' && e.data.payment_id === paymentId);
    });
    expect(failed).toMatchObject({ delivery_success: false, status: 'pending', attempts: 1 });
    const detail = await eventOf(failed.id);
    expect(detail.deliveries).toEqual([
      expect.objectContaining({
        webhook_endpoint_id: endpoint._id,
        attempt: 1,
        outcome: 'failed',
        http_status: null,
        error: expect.stringMatching(/^webhook not delivered: /),
      }),
    ]);
    expect(detail.next_attempt_at).not.toBeNull();
    expect(await listed(true)).not.toContain(failed.id);

    // Back up, and the event is resent: the same id, delivered, no longer listed as failed.
    receiver = await startReceiver(undefined, port);
    const resent = await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: failed.id } } });
    expect(resent.response.status).toBe(200);
    const [redelivered] = await waitFor('the resent delivery', () => receiver!.requests.length > 0 && receiver!.requests);
    expect(redelivered!.headers['webhook-id']).toBe(failed.id);
    expect(verifyWebhook(redelivered!.raw, headersOf(redelivered!), endpoint.secret)).toMatchObject({
      event: 'payment.created',
      data: { payment_id: paymentId },
    });
    const delivered = await waitFor('delivered', async () => {
      const event = await eventOf(failed.id);
      return event.delivery_success && event;
    });
    expect(delivered.deliveries.map((d) => d.outcome)).toEqual(['failed', 'delivered']);
    expect(await listed(false)).not.toContain(failed.id);
    expect(await listed(true)).toContain(failed.id);

    // A new key; for its overlap both keys verify every delivery.
    const rotated = await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/rotate-secret', {
      params: { path: { webhook_endpoint_id: endpoint._id } },
    });
    expect(rotated.response.status).toBe(200);
    const fresh = rotated.data!.data.secret;
    expect(fresh).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.data!.data.previous_secret_expires_at!)).toBeGreaterThan(Date.now());
    const secondPayment = await pay(2200);
    const during = await waitFor('a delivery during the overlap', () =>
      receiver!.requests.find((r) => (r.body as { data?: { payment_id?: string } }).data?.payment_id === secondPayment),
    );
    expect(headersOf(during)['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const key of [endpoint.secret, fresh]) {
      expect(verifyWebhook(during.raw, headersOf(during), key)).toMatchObject({ event: 'payment.created', data: { payment_id: secondPayment } });
      expect(new Webhook(key).verify(during.raw, headersOf(during))).toMatchObject({ event: 'payment.created' });
    }
    // A key that was never the endpoint's verifies nothing.
    const stranger = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(() => verifyWebhook(during.raw, headersOf(during), stranger)).toThrow();
    expect(() => new Webhook(stranger).verify(during.raw, headersOf(during))).toThrow();
  }, 60_000);
});
