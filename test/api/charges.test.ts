// Charging a saved card: a merchant-initiated charge on an active token gives a payment record (the
// same resource as GET /api/payments); a decline is a 402 with the failed record and payment.failed.
import { describe, expect, it } from 'vitest';
import { verifyWebhook, type PaymentCreatedEvent, type PaymentFailedEvent } from '../../client/webhooks.js';
import { assertSchema } from '../support/contract.js';
import { CHARGE_DECLINES_CARD, CHARGE_EXPIRES_CARD, GOOD_CARD, submitPage } from '../support/payer.js';
import { raw } from '../support/service.js';
import { useWebhookService, WEBHOOK_SECRET } from '../support/webhook-service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = WEBHOOK_SECRET;

const w = useWebhookService();
const { t, receiver } = w;

async function token(card?: Record<string, string>): Promise<string> {
  const created = await create.token(t.a);
  if (card) expect((await submitPage(t.url, created.activation_url, { name: 'Aisyah', ...card })).status).toBe(303);
  return created._id;
}

const charge = (
  tokenId: string,
  body: { amount: number | string; currency: string; description?: string | null; reference?: string | null },
  client = t.a.client,
  headers = {},
) => client.POST('/tokenizations/{token_id}/charges', { params: { path: { token_id: tokenId } }, body, headers });

const eventsFor = (paymentId: string) =>
  receiver.requests
    .map((request) => verifyWebhook(request.raw, request.headers as Record<string, string>, SECRET))
    .filter(
      (event): event is PaymentCreatedEvent | PaymentFailedEvent =>
        event.event.startsWith('payment.') && (event as PaymentCreatedEvent).data.payment_id === paymentId,
    );

describe('POST /api/tokenizations/{token_id}/charges', () => {
  it('charges the saved card: a paid payment, findable by token and reference, announced by payment.created', async () => {
    const tokenId = await token(GOOD_CARD);
    const paid = await charge(tokenId, { amount: 4990, currency: 'MYR', description: 'Monthly plan, June', reference: 'SUB-06' });
    expect(paid.response.status).toBe(200);
    const payment = paid.data!.data;
    expect(payment).toMatchObject({
      tokenization_id: tokenId,
      payment_link_id: null,
      open_payment_link_id: null,
      amount: 4990,
      currency: 'MYR',
      status: 'paid',
      payment_status: 1,
      payer_email: 'payer@example.com',
      reference: 'SUB-06',
      description: 'Monthly plan, June',
      card_brand: 'visa',
      card_last4: '4242',
    });
    const found = await t.a.client.GET('/payments', { params: { query: { 'filter[tokenization_id]': tokenId, 'filter[reference]': 'SUB-06' } } });
    expect(found.data!.data.data.map((p) => p._id)).toEqual([payment._id]);

    const [event] = await waitFor('payment.created', () => eventsFor(payment._id).length >= 1 && eventsFor(payment._id));
    await assertSchema('PaymentCreatedEvent', event);
    expect(event!.data).toMatchObject({
      payment_id: payment._id,
      payment_link_id: null,
      payment_link_reference: 'SUB-06',
      payment_amount: 4990,
      charge_amount: 4990,
      payment_reference_model: 'tokenization',
      payment_reference_id: tokenId,
    });

    // A charge is a payment like any other: it can be refunded.
    const refunded = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: payment._id } } });
    expect(refunded.data!.data).toMatchObject({ amount: 4990, status: 'succeeded' });
  });

  it('answers a decline with 402 and the failed payment, and announces payment.failed', async () => {
    for (const [card, code, message] of [
      [CHARGE_DECLINES_CARD, 'card_declined', 'Your card was declined.'],
      [CHARGE_EXPIRES_CARD, 'expired_card', 'Your card has expired.'],
    ] as const) {
      const tokenId = await token(card);
      const declined = await charge(tokenId, { amount: '1500', currency: 'MYR' });
      expect(declined.response.status).toBe(402);
      const body = declined.error as unknown as {
        success: false;
        message: string;
        data: { _id: string; status: string; failure_code: string; description: string };
      };
      expect(body).toMatchObject({ success: false, message, data: { status: 'failed', failure_code: code, description: 'Monthly plan' } });
      const [event] = await waitFor('payment.failed', () => eventsFor(body.data._id).length >= 1 && eventsFor(body.data._id));
      await assertSchema('PaymentFailedEvent', event);
      expect(event!.data).toMatchObject({
        payment_status: 3,
        failure_code: code,
        payment_reference_model: 'tokenization',
        payment_reference_id: tokenId,
        payment_link_id: null,
      });
      const stored = await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: body.data._id } } });
      expect(stored.data!.data).toMatchObject({ status: 'failed', failure_code: code, failure_message: message });
    }
  });

  it('refuses a token without a saved card (409), an unknown or foreign token (404), and bad input (422)', async () => {
    const pendingToken = await token();
    const notActive = await charge(pendingToken, { amount: 1000, currency: 'MYR' });
    expect(notActive.response.status).toBe(409);
    expect(notActive.error).toEqual({ message: 'This token has no saved card yet; its payer must open the activation_url and save one first.' });

    const active = await token(GOOD_CARD);
    for (const [client, id] of [
      [t.b.client, active],
      [t.a.client, 'ffffffffffffffffffffffff'],
    ] as const) {
      const missing = await charge(id, { amount: 1000, currency: 'MYR' }, client);
      expect(missing.response.status).toBe(404);
      expect(missing.error).toEqual({ message: 'Token not found.' });
    }

    const invalid = await raw(`${t.apiUrl}/tokenizations/${active}/charges`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 499, currency: 'XDR' }),
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ message: 'The given data was invalid.', errors: { amount: ['The amount must be at least 500.'] } });
    expect(Object.keys((invalid.body as { errors: object }).errors).sort()).toEqual(['amount', 'currency']);
    const none = await t.a.client.GET('/payments', { params: { query: { 'filter[tokenization_id]': active } } });
    expect(none.data!.data.total).toBe(0);
  });

  it('charges once for a retried request with the same Idempotency-Key', async () => {
    const tokenId = await token(GOOD_CARD);
    const headers = { 'Idempotency-Key': `charge-${tokenId}` };
    const first = await charge(tokenId, { amount: 2000, currency: 'MYR' }, t.a.client, headers);
    const again = await charge(tokenId, { amount: 2000, currency: 'MYR' }, t.a.client, headers);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.data._id).toBe(first.data!.data._id);
    const all = await t.a.client.GET('/payments', { params: { query: { 'filter[tokenization_id]': tokenId } } });
    expect(all.data!.data.total).toBe(1);
  });
});
