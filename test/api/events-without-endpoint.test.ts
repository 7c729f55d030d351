// A business's events are recorded from its first payment, whether or not it has a webhook endpoint yet:
// the event log lists them (and a payment's history never starts empty), while nothing is delivered until
// an endpoint wants them.
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/webhooks.js';
import { setWebhook } from '../../server/store/businesses.js';
import { listOutbox } from '../../server/store/outbox.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { useService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const t = useService();
let receiver: Receiver | undefined;
afterAll(() => receiver?.close());

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('events of a business without a webhook endpoint', () => {
  it('are in the event log with nothing to deliver, and go to the first endpoint that wants them on a resend', async () => {
    const link = await create.paymentLink(t.a);
    const paymentId = (await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).paymentId!;

    const list = await t.a.client.GET('/events', { params: { query: { 'filter[type]': 'payment.created' } } });
    const listed = list.data!.data.data.find((e) => e.data.payment_id === paymentId);
    expect(listed).toMatchObject({ type: 'payment.created', status: 'delivered', delivery_success: true, attempts: 0, delivered_at: null, last_error: null });
    const event = (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: listed!.id } } })).data!.data;
    expect(event).toMatchObject({ id: listed!.id, endpoints: [], deliveries: [] });
    expect(event.data).toMatchObject({ payment_id: paymentId, payment_amount: 1000 });
    // Nothing is owed to anybody: no worker claims it, no attempt is made.
    await t.service.worker!.drained();
    const entries = await listOutbox(t.service.db, { channel: 'webhook' });
    expect(entries.filter((entry) => (entry.payload as { id?: string }).id === listed!.id)).toMatchObject([
      { status: 'delivered', attempts: 0, endpoint_id: null },
    ]);
    // Another business sees none of it.
    expect((await t.b.client.GET('/events/{event_id}', { params: { path: { event_id: listed!.id } } })).response.status).toBe(404);

    const nowhere = await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: listed!.id } } });
    expect(nowhere.response.status).toBe(409);

    receiver = await startReceiver();
    await setWebhook(t.service.db, t.a.business.id, { url: receiver.url, secret: SECRET }, t.service.secretsKey);
    const resent = await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: listed!.id } } });
    expect(resent.response.status).toBe(200);
    const [request] = await waitFor('the resent event', () => receiver!.requests.length && receiver!.requests);
    const delivered = verifyWebhook(request!.raw, request!.headers as Record<string, string>, SECRET);
    expect(delivered).toMatchObject({ event: 'payment.created', data: { payment_id: paymentId } });
    const after = await waitFor('the delivery recorded', async () => {
      const read = (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: listed!.id } } })).data!.data;
      return read.deliveries.length === 1 && read;
    });
    expect(after).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(after.endpoints).toHaveLength(1);
  });
});
