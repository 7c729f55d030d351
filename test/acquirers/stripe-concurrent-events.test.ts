// Stripe delivers an event more than once, sometimes at the same moment, and reports one refund in
// several events: whatever arrives together, each payment and each refund made in Stripe's Dashboard
// is recorded once and announced once, and every delivery is answered 2xx.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { StandinEvent } from '@payment-collection/stripe-standin';
import { listOutbox } from '../../server/store/outbox.js';
import { raw } from '../support/service.js';
import { openReturn, payLinkOnStripe, useStripeService } from '../support/stripe.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const s = useStripeService();

const AT_ONCE = 6;

const paymentLink = (amount: number) => create.paymentLink(s.t.a, { email: 'mei@example.com', amount, title: 'Order 12' });

const payPath = (url: string) => new URL(url).pathname + new URL(url).search;
const paymentIdOf = (url: string) => new URL(url).searchParams.get('payment_id')!;
const payment = async (id: string) => (await s.t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } })).data!.data;
const announced = (paymentId: string, event: string) =>
  s.events().filter((e) => e.event === event && (e.data as { payment_id?: string }).payment_id === paymentId);

/** The stand-in's events of a type whose object mentions `about` (a payment id, a PaymentIntent). */
function stripeEvents(type: string, about: string): StandinEvent[] {
  return s.standin
    .events(s.secretKey)
    .map((record) => record.event)
    .filter((event) => event.type === type && JSON.stringify(event.data.object).includes(about));
}

/** POSTs the event to the service as Stripe does, signed with the business's secret; the answers' statuses and results. */
async function post(event: StandinEvent) {
  const payload = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: s.webhookSecret });
  const answer = await raw(s.webhookUrl, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
  return { status: answer.status, result: (answer.body as { result?: string }).result };
}

/** Lets any webhook a duplicate might have enqueued reach the receiver before counting. */
async function settled(): Promise<void> {
  await s.standin.idle();
  await s.t.service.worker!.drained();
}

/** A payment link paid by card on Stripe, the payer back on our thank-you page; its id and PaymentIntent. */
async function paidPayment(amount: number) {
  const link = await paymentLink(amount);
  const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Mei' }, { card: '4242 4242 4242 4242' });
  await openReturn(returnUrl!);
  const id = paymentIdOf(returnUrl!);
  await settled();
  return { id, intent: (await payment(id)).provider_reference! };
}

/** A refund made in Stripe's Dashboard (not through our API). */
async function dashboardRefund(intent: string, amount: number): Promise<Stripe.Refund> {
  const stripe = new Stripe(s.secretKey, s.standin.sdkOptions);
  return stripe.refunds.create({ payment_intent: intent, amount });
}

/** Runs `work` with the stand-in keeping its events for the test to deliver. */
async function withEventsHeld(work: () => Promise<void>): Promise<void> {
  s.standin.holdWebhooks(true);
  try {
    await work();
  } finally {
    s.standin.holdWebhooks(false);
  }
}

/** Delivers the events AT_ONCE times in all, all at the same moment, taking them in turn; each answered 200. */
async function deliverAtOnce(...events: StandinEvent[]) {
  const answers = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => post(events[i % events.length]!)));
  expect(answers.map((a) => a.status)).toEqual(Array(AT_ONCE).fill(200));
  return answers;
}

/** The Dashboard refund is one row of the payment's, its amount set aside once, announced once. */
async function expectRecordedOnce(paymentId: string, refund: Stripe.Refund): Promise<void> {
  expect(await refundRows(paymentId)).toEqual([{ amount: refund.amount, status: 'succeeded', provider_reference: refund.id }]);
  expect(await payment(paymentId)).toMatchObject({ amount_refunded: refund.amount });
  await waitFor('refund.succeeded', () => announced(paymentId, 'refund.succeeded')[0]);
  await settled();
  expect(announced(paymentId, 'refund.succeeded')).toHaveLength(1);
}

async function refundRows(paymentId: string) {
  const rows = await s.t.sql('refunds').where({ payment_id: paymentId }).select('amount', 'status', 'provider_reference');
  // PostgreSQL's bigint comes back as a string.
  return rows.map((row: { amount: number | string }) => ({ ...row, amount: Number(row.amount) }));
}

describe('one Stripe event delivered several times at once', () => {
  it('a completed checkout: paid once, payment.created once, every delivery 200', async () => {
    await withEventsHeld(async () => {
      const link = await paymentLink(4_200);
      const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Mei' }, { card: '4242 4242 4242 4242' });
      const id = paymentIdOf(returnUrl!);
      const [completed] = stripeEvents('checkout.session.completed', id);
      const answers = await deliverAtOnce(completed!);
      expect(answers.filter((a) => a.result === 'processed')).toHaveLength(1);
      expect(await payment(id)).toMatchObject({ status: 'paid', amount: 4_200 });
      await waitFor('payment.created', () => announced(id, 'payment.created')[0]);
      await settled();
      expect(announced(id, 'payment.created')).toHaveLength(1);
      // The payer's receipt is queued with the webhook, once.
      const receipts = (await listOutbox(s.t.service.db)).filter((entry) => entry.channel === 'email' && JSON.stringify(entry.payload).includes(id));
      expect(receipts.map((entry) => entry.topic)).toEqual(['payment.receipt']);
      expect(await s.t.sql('provider_events').where({ event_id: completed!.id })).toHaveLength(1);
    });
  });

  it('a charge.refunded for a refund made in the Dashboard: one refund row, refund.succeeded once', async () => {
    const { id, intent } = await paidPayment(6_000);
    await withEventsHeld(async () => {
      const refund = await dashboardRefund(intent, 1_500);
      const [refunded] = stripeEvents('charge.refunded', intent);
      await deliverAtOnce(refunded!);
      await expectRecordedOnce(id, refund);
    });
  });

  it('two different events about the same Dashboard refund, each delivered several times at once: recorded and announced once', async () => {
    const { id, intent } = await paidPayment(6_000);
    await withEventsHeld(async () => {
      const refund = await dashboardRefund(intent, 2_500);
      const events = [...stripeEvents('charge.refunded', intent), ...stripeEvents('refund.created', refund.id)];
      expect(events.map((e) => e.type).sort()).toEqual(['charge.refunded', 'refund.created']);
      await deliverAtOnce(...events);
      await expectRecordedOnce(id, refund);
    });
  });
});
