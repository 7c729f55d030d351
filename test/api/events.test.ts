// GET /api/events and /api/events/{id}, POST /api/events/{id}/resend: a merchant sees which webhooks
// arrived and which did not (with each attempt's HTTP status or error and duration), and sends one again.
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/webhooks.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { useWebhookService, WEBHOOK_SECRET } from '../support/webhook-service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = WEBHOOK_SECRET;
/** The receiver's answer: a failing endpoint until the merchant fixes it. */
let answer = 500;

// Retries far apart: only a resend brings a failed event back within the test.
const w = useWebhookService({ outbox: { retry: { baseMs: 3_600_000, capMs: 3_600_000, maxAttempts: 12 } } }, () => answer);
const { t, receiver } = w;

async function paidEvent(): Promise<{ paymentId: string; eventId: string }> {
  const link = await create.paymentLink(t.a);
  const paymentId = (await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).paymentId!;
  const list = await t.a.client.GET('/events', { params: { query: { 'filter[type]': 'payment.created' } } });
  const event = list.data!.data.data.find((e) => e.data.payment_id === paymentId)!;
  return { paymentId, eventId: event.id };
}

describe('webhook events', () => {
  it('a failed delivery shows in delivery_success=false with its HTTP status; resent once the receiver is back, it is delivered', async () => {
    answer = 500;
    const { eventId, paymentId } = await paidEvent();
    expect(eventId).toMatch(/^evt_[0-9a-f]{24}$/);
    const failed = await waitFor('a failed attempt', async () => {
      const event = (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: eventId } } })).data!.data;
      return event.deliveries.length > 0 && event;
    });
    expect(failed).toMatchObject({ type: 'payment.created', status: 'pending', delivery_success: false, attempts: 1, last_error: 'webhook answered HTTP 500' });
    expect(failed.deliveries[0]).toMatchObject({ attempt: 1, outcome: 'failed', http_status: 500, error: 'webhook answered HTTP 500' });
    expect(failed.deliveries[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(failed.data).toMatchObject({ payment_id: paymentId, payment_amount: 1000 });
    const undelivered = await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': false } } });
    expect(undelivered.data!.data.data.map((e) => e.id)).toContain(eventId);

    answer = 200;
    const resent = await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: eventId } } });
    expect(resent.response.status).toBe(200);
    expect(resent.data!.data).toMatchObject({ id: eventId, status: 'pending' });
    const delivered = await waitFor('the resent delivery', async () => {
      const event = (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: eventId } } })).data!.data;
      return event.status === 'delivered' && event;
    });
    expect(delivered.deliveries.map((d) => [d.outcome, d.http_status])).toEqual([
      ['failed', 500],
      ['delivered', 200],
    ]);
    expect(delivered.delivery_success).toBe(true);
    // Both requests carried the event's id: a receiver can tell a resend from a new event.
    const ids = receiver.requests
      .filter((r) => (r.body as { data: { payment_id?: string } }).data.payment_id === paymentId)
      .map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([eventId, eventId]);
    const event = verifyWebhook(receiver.requests.at(-1)!.raw, receiver.requests.at(-1)!.headers as Record<string, string>, SECRET);
    expect(event.event).toBe('payment.created');
    const good = await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': true } } });
    expect(good.data!.data.data.map((e) => e.id)).toContain(eventId);
    const bad = await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': false } } });
    expect(bad.data!.data.data.map((e) => e.id)).not.toContain(eventId);
  });

  it('a delivered event can be sent again', async () => {
    answer = 200;
    const { eventId } = await paidEvent();
    await waitFor(
      'delivered',
      async () => (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: eventId } } })).data!.data.status === 'delivered',
    );
    const before = receiver.requests.length;
    expect((await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: eventId } } })).response.status).toBe(200);
    await waitFor('the second delivery', () => receiver.requests.length > before);
    expect(receiver.requests.at(-1)!.headers['webhook-id']).toBe(eventId);
  });

  it("is the business's own: another's event is a 404, and its list is empty", async () => {
    const { eventId } = await paidEvent();
    for (const call of [
      t.b.client.GET('/events/{event_id}', { params: { path: { event_id: eventId } } }),
      t.b.client.POST('/events/{event_id}/resend', { params: { path: { event_id: eventId } } }),
      t.a.client.GET('/events/{event_id}', { params: { path: { event_id: 'evt_ffffffffffffffffffffffff' } } }),
      t.a.client.GET('/events/{event_id}', { params: { path: { event_id: 'not-an-event' } } }),
    ]) {
      const { response, error } = await call;
      expect(response.status).toBe(404);
      expect(error).toEqual({ message: 'Event not found.' });
    }
    expect((await t.b.client.GET('/events')).data!.data.total).toBe(0);
  });

  it('filters by type and pages like the other lists', async () => {
    const all = await t.a.client.GET('/events', { params: { query: { per_page: 1 } } });
    expect(all.data!.data.total).toBeGreaterThanOrEqual(3);
    expect(all.data!.data.data).toHaveLength(1);
    const none = await t.a.client.GET('/events', { params: { query: { 'filter[type]': 'refund.failed' } } });
    expect(none.data!.data.total).toBe(0);
    const refused = await t.a.client.GET('/events', { params: { query: { 'filter[type]': 'payment.exploded' as 'payment.created' } } });
    expect(refused.response.status).toBe(422);
  });
});
