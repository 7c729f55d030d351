// A business on Stripe, end to end against the stand-in: payments of both link kinds by card, FPX and
// GrabPay through Stripe's hosted page, FPX that confirms later (pending, then paid or failed),
// refunds through Stripe's Refunds API (and one that fails, and one made in Stripe's Dashboard),
// Stripe's webhooks verified and acted on once, and every request the SDK sent valid against
// Stripe's published description.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { verifyRedirect } from '../../client/redirects.js';
import type { PaymentCreatedEvent, PaymentFailedEvent, RefundEvent } from '../../client/webhooks.js';
import { NOTIFICATION_REFUSED } from '../../server/acquirer-notifications/endpoint.js';
import { raw } from '../support/service.js';
import { openReturn, payLinkOnStripe, useStripeService } from '../support/stripe.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const s = useStripeService();

const paymentLink = (amount = 5000, extra: Record<string, unknown> = {}) =>
  create.paymentLink(s.t.a, { email: 'aisyah@example.com', amount, title: 'Order 88', reference: 'ORD-88', ...extra });

const payPath = (url: string) => new URL(url).pathname + new URL(url).search;
const payment = async (id: string) => (await s.t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } })).data!.data;
const eventsOf = (paymentId: string) => s.events().filter((e) => (e.data as { payment_id?: string }).payment_id === paymentId);
const paymentIdOf = (url: string) => new URL(url).searchParams.get('payment_id')!;

describe('a payment link paid on Stripe', () => {
  it('by card: our page, then Stripe Checkout, then back to the thank-you page; paid once, announced once', async () => {
    const link = await paymentLink();
    const page = await s.t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
    expect(page.data!.data.paid).toBe(false);

    const opened = await raw(link.payment_url);
    expect(opened.status).toBe(200);
    // No card field on our page: the card is typed on Stripe's.
    expect(opened.text).not.toContain('name="card_number"');
    expect(opened.text).toContain('Continue to payment');
    expect(opened.headers.get('content-security-policy')).toContain(new URL(s.standin.url).origin);

    const { checkoutUrl, returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Aisyah Rahman' }, { card: '4242 4242 4242 4242' });
    expect(new URL(checkoutUrl).origin).toBe(new URL(s.standin.url).origin);
    const back = await openReturn(returnUrl!);
    expect(back.status).toBe(303);
    expect(back.location).toContain('/payment/thank-you');
    const id = paymentIdOf(returnUrl!);
    const thanks = await openReturn(back.location!);
    expect(thanks.html).toContain('Payment received: RM 50.00 by VISA ending in 4242');

    const paid = await payment(id);
    expect(paid).toMatchObject({ status: 'paid', payment_status: 1, provider: 'stripe', method: 'card', card_brand: 'visa', card_last4: '4242', amount: 5000 });
    expect(paid.provider_reference).toMatch(/^pi_/);
    const read = await s.t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
    expect(read.data!.data).toMatchObject({ paid: true, status: 'Paid' });

    // Stripe's events reach the service; whichever of them and the return came first, one payment.created.
    await s.standin.idle();
    const created = await waitFor('payment.created', () => eventsOf(id).find((e): e is PaymentCreatedEvent => e.event === 'payment.created'));
    expect(created.data).toMatchObject({ payment_provider: 'stripe', payment_method: 'card', payment_status: 1, payment_amount: 5000 });
    await s.t.service.worker!.drained();
    expect(eventsOf(id).map((e) => e.event)).toEqual(['payment.created']);
  });

  it('by FPX that the bank confirms later: pending (payment_status 2) until Stripe says it succeeded', async () => {
    const link = await paymentLink(12_345);
    const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Lim Wei' }, { fpx: 'later', bank: 'cimb' });
    const id = paymentIdOf(returnUrl!);
    const back = await openReturn(returnUrl!);
    expect(back.status).toBe(200);
    expect(back.html).toContain('being confirmed by your bank');
    expect(back.headers.get('refresh')).toBe('5');
    expect(await payment(id)).toMatchObject({ status: 'pending', payment_status: 2, method: 'fpx' });
    await s.standin.idle();
    expect(eventsOf(id)).toEqual([]);

    const intent = (await payment(id)).provider_reference!;
    await s.standin.settle(intent, 'succeeded');
    await waitFor('the payment settled by Stripe', async () => (await payment(id)).status === 'paid');
    const created = await waitFor('payment.created', () => eventsOf(id).find((e) => e.event === 'payment.created'));
    expect(created.data).toMatchObject({ payment_method: 'fpx', payment_status: 1 });
    // The payer who comes back (or refreshes) now sees it paid.
    expect((await openReturn(returnUrl!)).location).toContain('/payment/thank-you');
  });

  it('to a merchant redirect_url: pending then paid, each redirect signed with the business key', async () => {
    const key = (await s.t.a.client.GET('/redirect-signing-key')).data!.data.key;
    const link = await paymentLink(3_000, { redirect_url: 'https://merchant.example.com/orders/88' });
    const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Lim Wei' }, { fpx: 'later' });
    const id = paymentIdOf(returnUrl!);
    const pending = await openReturn(returnUrl!);
    expect(pending.status).toBe(303);
    expect(verifyRedirect(pending.location!, key)).toEqual({ kind: 'payment', payment_id: id, payment_link_id: link._id, payment_status: 2 });
    await s.standin.idle();
    await s.standin.settle((await payment(id)).provider_reference!, 'succeeded');
    await waitFor('the payment settled by Stripe', async () => (await payment(id)).status === 'paid');
    const paid = await openReturn(returnUrl!);
    expect(verifyRedirect(paid.location!, key)).toMatchObject({ payment_id: id, payment_status: 1 });
  });

  it('by FPX that fails at the bank: failed, announced once by payment.failed, and the link can be paid again', async () => {
    const link = await paymentLink(2_000);
    const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Tan' }, { fpx: 'later' });
    const id = paymentIdOf(returnUrl!);
    // Stripe's checkout.session.completed (payment unpaid, the bank still to answer) records the PaymentIntent.
    await s.standin.idle();
    await s.standin.settle((await payment(id)).provider_reference!, 'failed');
    const failed = await waitFor('payment.failed', () => eventsOf(id).find((e): e is PaymentFailedEvent => e.event === 'payment.failed'));
    expect(failed.data).toMatchObject({ payment_status: 3, payment_method: 'fpx', payment_provider: 'stripe' });
    expect(await payment(id)).toMatchObject({ status: 'failed', payment_status: 3 });
    const back = await openReturn(returnUrl!);
    expect(back.status).toBe(402);
    expect(back.html).toContain('Try again');

    const again = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Tan' }, { grabpay: 'succeed' });
    await openReturn(again.returnUrl!);
    expect(await payment(paymentIdOf(again.returnUrl!))).toMatchObject({ status: 'paid', method: 'grabpay' });
    await s.standin.idle();
    expect(eventsOf(id).map((e) => e.event)).toEqual(['payment.failed']);
  });

  it('a declined card keeps the payer on Stripe’s page; nothing is recorded as failed while the session is open', async () => {
    const link = await paymentLink(1_500);
    const { back, checkoutUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Tan' }, { card: '4000 0000 0000 0002' });
    expect(back.location).toBeNull();
    expect(back.html).toMatch(/declined/i);
    await s.standin.idle();
    const listed = await s.t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': link._id } } });
    expect(listed.data!.data.data.map((p) => p.status)).toEqual(['pending']);
    expect(checkoutUrl).toContain('/c/pay/');
  });
});

describe('an open link paid on Stripe', () => {
  it('takes the payer’s amount, name and e-mail on our page, and counts the collection once paid', async () => {
    const open = await create.openLink(s.t.a, { minimum_amount: '10.00' });
    const path = payPath(open.payment_url);
    const refused = await payLinkOnStripe(s.t.url, path, { amount: '5.00', name: 'Nur', email: 'nur@example.com' }, { card: '4242424242424242' }).catch(
      (error: Error) => error.message,
    );
    expect(refused).toContain('answered 422');
    const { returnUrl } = await payLinkOnStripe(s.t.url, path, { amount: '25.50', name: 'Nur', email: 'nur@example.com' }, { card: '5555555555554444' });
    await openReturn(returnUrl!);
    const totals = await s.t.a.client.GET('/open-payment-links/{open_payment_link_id}/total-collection', {
      params: { path: { open_payment_link_id: open._id } },
    });
    expect(totals.data!.data).toMatchObject({ total_amount: 25.5, total_count: 1 });
    expect(await payment(paymentIdOf(returnUrl!))).toMatchObject({ payer_email: 'nur@example.com', payer_name: 'Nur', card_brand: 'mastercard' });
  });
});

describe('refunds of a Stripe payment', () => {
  async function paidPayment(card = '4242 4242 4242 4242') {
    const link = await paymentLink(8_000);
    const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Aisyah' }, { card });
    await openReturn(returnUrl!);
    return paymentIdOf(returnUrl!);
  }

  it('half, then the rest, through Stripe’s Refunds API; each announced once', async () => {
    const id = await paidPayment();
    const half = await s.t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: id } }, body: { amount: 4000, reason: 'Half' } });
    expect(half.data!.data).toMatchObject({ status: 'succeeded', amount: 4000 });
    expect(half.data!.data.provider_reference).toMatch(/^re_/);
    const rest = await s.t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: id } } });
    expect(rest.data!.data).toMatchObject({ status: 'succeeded', amount: 4000 });
    expect(await payment(id)).toMatchObject({ status: 'refunded', amount_refunded: 8000 });
    // Stripe's charge.refunded events come back too: they find both refunds already settled.
    await s.standin.idle();
    await s.t.service.worker!.drained();
    expect(eventsOf(id).filter((e) => e.event === 'refund.succeeded')).toHaveLength(2);
    const stripe = new Stripe(s.secretKey, s.standin.sdkOptions);
    const atStripe = await stripe.refunds.list({ payment_intent: (await payment(id)).provider_reference! });
    expect(atStripe.data.map((r) => r.amount).sort()).toEqual([4000, 4000]);
  });

  it('a refund Stripe reports done and fails afterwards gives its amount back: refund.succeeded, then refund.failed, each once', async () => {
    const id = await paidPayment('4000 0000 0000 5126');
    const refund = await s.t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: id } } });
    // Stripe's test card: the refund "appears successful at first", then fails (charge.refund.updated).
    expect(refund.data!.data).toMatchObject({ status: 'succeeded' });
    const failed = await waitFor('refund.failed', () => eventsOf(id).find((e): e is RefundEvent => e.event === 'refund.failed'));
    expect(failed.data).toMatchObject({ payment_amount_refunded: 0 });
    expect(await payment(id)).toMatchObject({ status: 'paid', amount_refunded: 0 });
    const refunds = await s.t.a.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: id } } });
    expect(refunds.data!.data.map((r) => [r.status, r.failure_code])).toEqual([['failed', 'expired_or_canceled_card']]);
    await s.standin.idle();
    await s.t.service.worker!.drained();
    expect(
      eventsOf(id)
        .filter((e) => e.event.startsWith('refund.'))
        .map((e) => e.event),
    ).toEqual(['refund.succeeded', 'refund.failed']);
    // What is given back can be refunded again.
    expect((await s.t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: id } }, body: { amount: 100 } })).response.status).toBe(
      200,
    );
  });

  it('a refund made in Stripe’s Dashboard is recorded and announced', async () => {
    const id = await paidPayment();
    const stripe = new Stripe(s.secretKey, s.standin.sdkOptions);
    await stripe.refunds.create({ payment_intent: (await payment(id)).provider_reference!, amount: 1_000 });
    await waitFor('the refund recorded', async () => (await payment(id)).amount_refunded === 1_000);
    const refunds = await s.t.a.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: id } } });
    expect(refunds.data!.data.map((r) => [r.amount, r.status])).toEqual([[1_000, 'succeeded']]);
    await waitFor('refund.succeeded', () => eventsOf(id).find((e) => e.event === 'refund.succeeded'));
  });
});

describe('Stripe’s webhooks at /stripe/webhooks/{business}', () => {
  it('refuses a body whose signature does not verify, and one for a business without Stripe', async () => {
    const body = JSON.stringify({ id: 'evt_forged', object: 'event', type: 'checkout.session.completed', data: { object: {} } });
    const forged = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_someone_else' });
    const refused = await raw(s.webhookUrl, { method: 'POST', body, headers: { 'content-type': 'application/json', 'stripe-signature': forged } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(NOTIFICATION_REFUSED);
    const unsigned = await raw(s.webhookUrl, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(unsigned.status).toBe(400);
    const other = await raw(`${s.t.url}/stripe/webhooks/${s.t.b.business.id}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret: s.webhookSecret }) },
    });
    expect(other.status).toBe(400);
  });

  it('acts on an event once however often Stripe delivers it', async () => {
    const link = await paymentLink(3_000);
    s.standin.holdWebhooks(true);
    try {
      const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Ravi' }, { card: '4242 4242 4242 4242' });
      const id = paymentIdOf(returnUrl!);
      const completed = s.standin.events(s.secretKey).find((e) => e.event.type === 'checkout.session.completed' && JSON.stringify(e.event).includes(id))!;
      expect(await s.standin.deliver(completed.event.id)).toBe(200);
      expect(await s.standin.deliver(completed.event.id)).toBe(200);
      expect(await payment(id)).toMatchObject({ status: 'paid' });
      await waitFor('payment.created', () => eventsOf(id).find((e) => e.event === 'payment.created'));
      await s.t.service.worker!.drained();
      expect(eventsOf(id).map((e) => e.event)).toEqual(['payment.created']);
      const noted = await s.t.sql('provider_events').where({ event_id: completed.event.id });
      expect(noted).toHaveLength(1);
    } finally {
      s.standin.holdWebhooks(false);
    }
  });
});
