// Refunds: part or all of a paid payment, repeatedly, never more in all than was paid; a refused
// refund gives nothing back; each settled refund is announced once; the totals show what was kept.
import { describe, expect, it } from 'vitest';
import { verifyWebhook, type RefundEvent } from '../../client/webhooks.js';
import { assertSchema } from '../support/contract.js';
import { DECLINED_CARD, GOOD_CARD, REFUND_FAILS_CARD, submitPage } from '../support/payer.js';
import { raw } from '../support/service.js';
import { useWebhookService, WEBHOOK_SECRET } from '../support/webhook-service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = WEBHOOK_SECRET;

const w = useWebhookService();
const { t, receiver } = w;

async function paidLink(amount: number, card = GOOD_CARD): Promise<{ linkId: string; paymentId: string }> {
  const { data } = await t.a.client.POST('/payment-links', {
    body: { email: 'payer@example.com', currency: 'MYR', amount, title: 'Order', reference: 'ORD-1' },
  });
  const paid = await submitPage(t.url, data!.data.payment_url, { name: 'Aisyah', ...card });
  expect(paid.status).toBe(303);
  return { linkId: data!.data._id, paymentId: paid.paymentId! };
}

const refund = (paymentId: string, body?: { amount?: number; reason?: string | null }, client = t.a.client) =>
  client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body });

const refundEvents = (paymentId: string) =>
  receiver.requests
    .map((request) => verifyWebhook(request.raw, request.headers as Record<string, string>, SECRET))
    .filter((event): event is RefundEvent => event.event.startsWith('refund.') && (event as RefundEvent).data.payment_id === paymentId);

describe('POST /api/payments/{payment_id}/refunds', () => {
  it('refunds half, then the rest, announcing each refund once; the payment shows where it stands', async () => {
    const { linkId, paymentId } = await paidLink(5000);
    const half = await refund(paymentId, { amount: 2500, reason: 'Returned one item' });
    expect(half.response.status).toBe(200);
    expect(half.data!.data).toMatchObject({
      payment_id: paymentId,
      amount: 2500,
      currency: 'MYR',
      status: 'succeeded',
      reason: 'Returned one item',
      failure_code: null,
    });
    expect(half.data!.data.provider_reference).toMatch(/^sbx_re_/);
    let payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(payment).toMatchObject({ status: 'partially_refunded', payment_status: 1, amount: 5000, amount_refunded: 2500 });

    const rest = await refund(paymentId);
    expect(rest.data!.data).toMatchObject({ amount: 2500, status: 'succeeded', reason: null });
    payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(payment).toMatchObject({ status: 'refunded', payment_status: 1, amount_refunded: 5000 });

    const listed = await t.a.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } });
    expect(listed.data!.data.map((r) => [r._id, r.amount])).toEqual([
      [half.data!.data._id, 2500],
      [rest.data!.data._id, 2500],
    ]);
    const ids = async (status: 'paid' | 'refunded' | 'partially_refunded') =>
      (await t.a.client.GET('/payments', { params: { query: { 'filter[status]': status, 'filter[payment_link_id]': linkId } } })).data!.data.data.map(
        (p) => p._id,
      );
    expect(await ids('refunded')).toEqual([paymentId]);
    expect(await ids('paid')).toEqual([]);

    const events = await waitFor('two refund webhooks', () => refundEvents(paymentId).length >= 2 && refundEvents(paymentId));
    await t.service.worker!.drained();
    expect(refundEvents(paymentId)).toHaveLength(2);
    for (const event of events) await assertSchema('RefundEvent', event);
    expect(events.map((event) => [event.event, event.data.refund_amount, event.data.payment_amount_refunded]).sort()).toEqual([
      ['refund.succeeded', 2500, 2500],
      ['refund.succeeded', 2500, 5000],
    ]);
    expect(events[0]!.data).toMatchObject({ payment_amount: 5000, payment_link_id: linkId, open_payment_link_id: null, tokenization_id: null });
  });

  it('refuses a refund of a payment with nothing left (409), and an amount above what is left (422)', async () => {
    const { paymentId } = await paidLink(1000);
    const tooMuch = await refund(paymentId, { amount: 1001 });
    expect(tooMuch.response.status).toBe(422);
    expect(tooMuch.error).toEqual({
      message: 'The given data was invalid.',
      errors: { amount: ['The amount must not be greater than 1000, what is left to refund of this payment.'] },
    });
    expect((await refund(paymentId, { amount: 400 })).response.status).toBe(200);
    const over = await refund(paymentId, { amount: 601 });
    expect(over.error).toMatchObject({ errors: { amount: ['The amount must not be greater than 600, what is left to refund of this payment.'] } });
    expect((await refund(paymentId, { amount: 600 })).response.status).toBe(200);
    const done = await refund(paymentId);
    expect(done.response.status).toBe(409);
    expect(done.error).toEqual({ message: 'This payment is already fully refunded.' });
  });

  it('refuses a refund of a failed attempt (409), and validates the body', async () => {
    const { data } = await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 900, title: 'Declined' } });
    const declined = await submitPage(t.url, data!.data.payment_url, { name: 'Ali', ...DECLINED_CARD });
    expect(declined.status).toBe(402);
    const failed = (await t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': data!.data._id } } })).data!.data.data[0]!;
    const refused = await refund(failed._id);
    expect(refused.response.status).toBe(409);
    expect(refused.error).toEqual({ message: 'Only a paid payment can be refunded; this payment is failed.' });

    const { paymentId } = await paidLink(700);
    for (const [amount, message] of [
      [0, 'The amount must be at least 1.'],
      [1.5, 'The amount must be an integer.'],
      ['12', 'The amount must be an integer.'],
    ] as const) {
      const answer = await raw(`${t.apiUrl}/payments/${paymentId}/refunds`, {
        method: 'POST',
        key: t.a.key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount }),
      });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ message: 'The given data was invalid.', errors: { amount: [message] } });
    }
    // Nothing was refunded by the refused requests.
    expect((await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data.amount_refunded).toBe(0);
  });

  it('records a refund the provider refuses as failed, gives the amount back, and announces refund.failed', async () => {
    const { paymentId } = await paidLink(2000, REFUND_FAILS_CARD);
    const refused = await refund(paymentId, { amount: 500 });
    expect(refused.response.status).toBe(200);
    expect(refused.data!.data).toMatchObject({ status: 'failed', failure_code: 'refund_declined', failure_message: 'The acquirer declined the refund.' });
    const payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(payment).toMatchObject({ status: 'paid', amount_refunded: 0 });
    const [event] = await waitFor('refund.failed', () => refundEvents(paymentId).length >= 1 && refundEvents(paymentId));
    expect(event!.event).toBe('refund.failed');
    expect(event!.data).toMatchObject({ refund_status: 'failed', failure_code: 'refund_declined', payment_amount_refunded: 0 });
    await assertSchema('RefundEvent', event);
  });

  it("is a 404 for another business's payment, for both operations", async () => {
    const { paymentId } = await paidLink(800);
    const other = await refund(paymentId, { amount: 100 }, t.b.client);
    expect(other.response.status).toBe(404);
    expect(other.error).toEqual({ message: 'Payment not found.' });
    const listed = await t.b.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } });
    expect(listed.response.status).toBe(404);
    expect((await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data.amount_refunded).toBe(0);
  });

  it('refunds once for a retried request with the same Idempotency-Key', async () => {
    const { paymentId } = await paidLink(3000);
    const headers = { 'Idempotency-Key': `refund-${paymentId}` };
    const first = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 1000 }, headers });
    const second = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 1000 }, headers });
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    // The first answer byte for byte, meta.timestamp included (test/unit/rendered-once.test.ts holds the clock still).
    expect(second.data).toStrictEqual(first.data);
    expect((await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data.amount_refunded).toBe(1000);
    const listed = await t.a.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } });
    expect(listed.data!.data).toHaveLength(1);
  });

  it('keeps total-collection as paid and adds what was refunded of it', async () => {
    const open = await create.openLink(t.a, { minimum_amount: 5 });
    const first = await submitPage(t.url, open.payment_url, { amount: '30.00', name: 'Ben', email: 'ben@example.com', ...GOOD_CARD });
    await submitPage(t.url, open.payment_url, { amount: '20.00', name: 'Chan', email: 'chan@example.com', ...GOOD_CARD });
    await refund(first.paymentId!, { amount: 1250 });
    const totals = await t.a.client.GET('/open-payment-links/{open_payment_link_id}/total-collection', {
      params: { path: { open_payment_link_id: open._id } },
    });
    expect(totals.data!.data).toMatchObject({ total_amount: 50, total_count: 2, total_refunded: 12.5 });
  });
});
