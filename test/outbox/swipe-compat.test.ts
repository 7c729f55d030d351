// A receiver written for Swipe's payment webhooks (test/support/swipe-receiver.ts, from Swipe's public
// description and its own plugins' hash check, nothing of ours) accepts what the service sends:
// payment.created and payment.failed, every Swipe field in Swipe's order and formats, and a hash it
// computes itself. The hash it computes is pinned by a value worked out outside Node (openssl).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventHash } from '../../shared/webhook-signature.js';
import { findPayment } from '../../server/store/payments.js';
import { DECLINED_CARD, GOOD_CARD, submitPage } from '../support/payer.js';
import { useWebhookService, WEBHOOK_SECRET } from '../support/webhook-service.js';
import { receiveSwipePayment, swipeHash, SWIPE_PLUGIN_REQUIRED } from '../support/swipe-receiver.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = WEBHOOK_SECRET;

const w = useWebhookService();
const { t, receiver } = w;

const requestsFor = (ids: string[]) =>
  receiver.requests.filter((r) => ids.includes((r.body as { data?: { payment_id?: string } }).data?.payment_id ?? '') && r.raw.includes('"payment.'));

describe('a Swipe receiver', () => {
  it('accepts payment.created for a payment link, an open link and a charge, and reads the same payment', async () => {
    const link = (
      await t.a.client.POST('/payment-links', {
        body: { email: 'payer@example.com', currency: 'MYR', amount: 1234, title: 'Invoice', reference: '1001', reference_2: 'woocommerce' },
      })
    ).data!.data;
    const open = (
      await t.a.client.POST('/open-payment-links', {
        body: { currency: 'MYR', minimum_amount: 5, title: 'Donations', reference: 'D-7', reference_2: 'givewp' },
      })
    ).data!.data;
    const token = (await t.a.client.POST('/tokenizations/create-token', { body: { email: 'payer@example.com', title: 'Plan', description: 'Card' } })).data!
      .data;
    const linkPayments = [
      (await submitPage(t.url, link.payment_url, { name: 'Aisyah', ...GOOD_CARD })).paymentId!,
      (await submitPage(t.url, open.payment_url, { amount: '7.50', name: 'Ben', email: 'ben@example.com', ...GOOD_CARD })).paymentId!,
    ];
    await submitPage(t.url, token.activation_url, { name: 'Chan', ...GOOD_CARD });
    const charge = (
      await t.a.client.POST('/tokenizations/{token_id}/charges', { params: { path: { token_id: token._id } }, body: { amount: 990, currency: 'MYR' } })
    ).data!.data._id;
    const ids = [...linkPayments, charge];

    const requests = await waitFor('three payment.created', () => requestsFor(ids).length >= 3 && requestsFor(ids));
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      const read = receiveSwipePayment(request.raw, SECRET);
      expect(read, JSON.stringify(read)).toMatchObject({ ok: true, payment: { event: 'payment.created', status: 1 } });
      if (!read.ok) continue;
      const stored = (await findPayment(t.service.db, read.payment.paymentId))!;
      expect(read.payment.amount).toBe(stored.amount);
      expect(read.payment.chargeAmount).toBe(stored.amount);
      expect(read.payment.currency).toBe('MYR');
      // Swipe's time has whole seconds: the same second as the stored time.
      expect(read.payment.paidAt.getTime()).toBe(Math.floor(Date.parse(stored.updated_at) / 1000) * 1000);
      // A link made for one of Swipe's plugins (both references set) gives every field the plugins require a value.
      const data = (request.body as { data: Record<string, unknown> }).data;
      if (linkPayments.includes(read.payment.paymentId)) for (const field of SWIPE_PLUGIN_REQUIRED) expect(data[field], field).not.toBeNull();
    }
    expect(requests.map((r) => (r.body as { data: { payment_id: string } }).data.payment_id).sort()).toEqual([...ids].sort());
  });

  it('accepts payment.failed, with payment_status 3, nothing charged and the reason as the message', async () => {
    const link = (await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount: 2500, title: 'Invoice 2' } })).data!
      .data;
    const open = await create.openLink(t.a, { minimum_amount: 5, title: 'Fund' });
    expect((await submitPage(t.url, link.payment_url, { name: 'Dina', ...DECLINED_CARD })).status).toBe(402);
    expect((await submitPage(t.url, open.payment_url, { amount: '12.00', name: 'Eng', email: 'eng@example.com', ...DECLINED_CARD })).status).toBe(402);

    const failed = () =>
      receiver.requests.filter((r) => {
        const body = r.body as { event: string; data: { payment_link_id: string | null } };
        return body.event === 'payment.failed' && [link._id, open._id].includes(body.data.payment_link_id ?? '');
      });
    const requests = await waitFor('two payment.failed', () => failed().length >= 2 && failed());
    for (const request of requests) {
      const read = receiveSwipePayment(request.raw, SECRET);
      expect(read, JSON.stringify(read)).toMatchObject({ ok: true, payment: { event: 'payment.failed', status: 3, chargeAmount: 0 } });
      if (!read.ok) continue;
      const stored = (await findPayment(t.service.db, read.payment.paymentId))!;
      expect(stored.status_id).toBe(3);
      expect(read.payment.amount).toBe(stored.amount);
      expect(read.payment.message).toBe(stored.failure_message);
    }
  });

  it('refuses a body changed on the way, or checked with another key: the hash check can fail', async () => {
    const request = await waitFor('a payment event', () => receiver.requests.find((r) => r.raw.includes('"payment.created"')));
    expect(receiveSwipePayment(request.raw, SECRET).ok).toBe(true);
    const body = request.body as { data: Record<string, unknown> };
    const raised = JSON.stringify({ ...body, data: { ...body.data, payment_amount: (body.data.payment_amount as number) + 100 } });
    expect(receiveSwipePayment(raised, SECRET)).toEqual({ ok: false, problems: ['data.hash does not match'] });
    expect(receiveSwipePayment(request.raw, 'whsec_another')).toEqual({ ok: false, problems: ['data.hash does not match'] });
  });

  it('would refuse what the service used to send (amount as text, ISO time)', () => {
    const old = {
      trigger_at: '2022-05-19T08:36:39.102000Z',
      event: 'payment.created',
      data: { payment_id: 'x', payment_amount: '10.00', payment_time: '2022-05-19T08:36:39.097000Z' },
    };
    const read = receiveSwipePayment(JSON.stringify(old), SECRET);
    expect(read.ok).toBe(false);
  });
});

describe("the receiver's hash", () => {
  it('is the value openssl gives for the signature key followed by the values as PHP joins them', () => {
    // printf '%s' "$KEY$JOINED" | openssl dgst -sha256 -hmac "$KEY", where JOINED is the values below
    // with null as nothing and true as 1: a1b21234p102-12-2021 12:08:50 pm12341l1INV-1Payment successful...1
    const data = {
      attempt_id: 'a1b2',
      charge_amount: 1234,
      payment_id: 'p1',
      payment_time: '02-12-2021 12:08:50 pm',
      payment_amount: 1234,
      payment_status: 1,
      payment_link_id: 'l1',
      payment_link_reference: 'INV-1',
      payment_link_reference_2: null,
      payment_message: 'Payment successful',
      payment_reference_model: 'payment_link',
      payment_reference_id: 'l1',
      payment_currency: 'MYR',
      payment_method: 'card',
      payment_provider: 'sandbox',
      a_field_of_ours: true,
    };
    expect(swipeHash('sk_swipe_test_key', data)).toBe('bd13016f5dbe0149ea4f998fe2b3727818f3d4c81769b0c9814cdff157fd48be');
    expect(swipeHash('sk_swipe_test_key', { hash: 'ignored', attempt_id: 'a1b2' })).toBe('0fce3594794242df881e0a11cdf46baecdb06d9f4dd0f44be11cc3961063ecfe');
  });

  it("is the service's data.hash for any data, fields of our own included", () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean());
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1 }).filter((k) => !/^\d+$/.test(k)),
          value,
        ),
        fc.string({ minLength: 1 }),
        (data, key) => {
          expect(eventHash(key, data)).toBe(swipeHash(key, data));
        },
      ),
    );
  });
});
