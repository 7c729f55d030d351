// The Stripe adapter's settlement feed against the stand-in: a payment's fee, net and day of
// availability from its balance transaction (none while the bank has not confirmed), a refund's
// entries, the payouts since a time with what went into each, a payout the bank returned, and
// `payout.*` notifications read as about the payout. The adapter alone: no service, no database.
import { randomBytes } from 'node:crypto';
import { startStripeStandin, type StripeStandin } from '@payment-collection/stripe-standin';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeAcquirer } from '../../server/acquirers/stripe.js';
import { payOnStripe, type HostedChoice } from '../support/stripe.js';

const DAY_MS = 24 * 60 * 60 * 1000;

let standin: StripeStandin;
let secretKey: string;
let acquirer: StripeAcquirer;
const webhookSecret = 'whsec_settlement_feed_test';

beforeAll(async () => {
  standin = await startStripeStandin();
  secretKey = `sk_test_${randomBytes(16).toString('hex')}`;
  acquirer = new StripeAcquirer({ secretKey, webhookSecret }, { api: standin.sdkOptions, returnUrl: 'http://127.0.0.1:9/back' });
});
afterAll(async () => {
  await standin?.close();
  expect(standin?.violations).toEqual([]);
});

/** The day `days` after today (UTC), YYYY-MM-DD. */
function day(days: number): string {
  return new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
}

/** A MYR 25.00 payment on Stripe's page; the PaymentIntent's id, which the service keeps as the payment's reference. */
async function pay(choice: HostedChoice): Promise<string> {
  const reference = `pay_${randomBytes(6).toString('hex')}`;
  const session = await acquirer.startPayment({
    reference,
    amount: 2500,
    currency: 'MYR',
    title: 'Annual dues',
    description: null,
    payerEmail: 'payer@example.com',
    metadata: { payment_id: reference },
    returnUrl: 'http://127.0.0.1:9/return/{SESSION_ID}',
    cancelUrl: 'http://127.0.0.1:9/cancel',
    expiresAt: new Date(Date.now() + 60 * 60 * 1000),
  });
  expect((await payOnStripe(session.redirectUrl, choice)).status).toBe(303);
  const state = await acquirer.paymentState(session.sessionId);
  if (state.state !== 'paid' && state.state !== 'processing') throw new Error(`the payment is ${state.state}`);
  return state.paymentReference;
}

describe('the Stripe settlement feed', () => {
  it('reads a payment’s fee, net and availability, none before the bank confirms, and a refund’s entry', async () => {
    const card = await pay({ card: '4242424242424242' });
    expect(await acquirer.paymentBalance(card)).toEqual({
      entryId: expect.stringMatching(/^txn_/),
      type: 'payment',
      acquirerType: 'charge',
      amount: 2500,
      fee: 175,
      net: 2325,
      currency: 'MYR',
      status: 'pending',
      availableOn: day(2),
      createdOn: day(0),
      sourceId: expect.stringMatching(/^ch_/),
      paymentReference: card,
    });

    const fpx = await pay({ fpx: 'later' });
    expect(await acquirer.paymentBalance(fpx)).toBeNull();
    await standin.settle(fpx, 'succeeded');
    expect(await acquirer.paymentBalance(fpx)).toMatchObject({ type: 'payment', acquirerType: 'payment', fee: 63, net: 2437, paymentReference: fpx });

    const refund = await acquirer.refund({ reference: 'refund_1', paymentReference: card, amount: 1000, currency: 'MYR', reason: null });
    if (refund.outcome !== 'succeeded') throw new Error(`the refund is ${refund.outcome}`);
    expect(await acquirer.refundBalance(refund.refundId)).toEqual([
      expect.objectContaining({ type: 'refund', amount: -1000, fee: 0, net: -1000, status: 'available', sourceId: refund.refundId, paymentReference: card }),
    ]);
  });

  it('lists the payouts made since a time, what went into each adding up to it, and one the bank returned', async () => {
    const since = new Date();
    const payments = [await pay({ card: '4242424242424242' }), await pay({ fpx: 'succeed' })];
    const [made] = await standin.runPayouts(secretKey, day(2));
    const payouts = await acquirer.payoutsCreatedSince(since);
    expect(payouts).toHaveLength(1);
    const [payout] = payouts;
    expect(payout).toEqual({
      payoutId: made!.id,
      amount: made!.amount,
      currency: 'MYR',
      status: 'paid',
      arrivalDate: day(3),
      createdAt: expect.stringMatching(new RegExp(`^${day(2)}T23:59:59`)),
      automatic: true,
      bankReference: expect.stringMatching(/^[0-9A-Z]{16}$/),
      reconciliation: 'completed',
      failureCode: null,
      failureMessage: null,
      failureEntryId: null,
    });
    const entries = await acquirer.payoutEntries(payout!.payoutId);
    expect(entries.reduce((sum, entry) => sum + entry.net, 0)).toBe(payout!.amount);
    // The first test's payments and refund went out in it too.
    expect(entries.map((entry) => entry.paymentReference)).toEqual(expect.arrayContaining(payments));
    expect(new Set(entries.map((entry) => entry.type))).toEqual(new Set(['payment', 'refund']));

    await standin.failPayout(payout!.payoutId, 'account_closed');
    const failed = await acquirer.payout(payout!.payoutId);
    expect(failed).toMatchObject({ status: 'failed', failureCode: 'account_closed', failureEntryId: expect.stringMatching(/^txn_/) });
    const [next] = await standin.runPayouts(secretKey, day(3));
    expect(await acquirer.payoutEntries(next!.id)).toEqual([
      expect.objectContaining({
        entryId: failed!.failureEntryId,
        type: 'payout_failure',
        net: payout!.amount,
        sourceId: payout!.payoutId,
        paymentReference: null,
      }),
    ]);
    expect((await acquirer.payoutsCreatedSince(since)).map((found) => found.payoutId)).toEqual([payout!.payoutId, next!.id]);
    expect(await acquirer.payout('po_nothing')).toBeNull();
  });

  it('reads payout.* notifications as about the payout', () => {
    const record = standin.events(secretKey).find(({ event }) => event.type === 'payout.paid')!;
    const rawBody = Buffer.from(JSON.stringify(record.event));
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: rawBody.toString(), secret: webhookSecret });
    expect(acquirer.readNotification(rawBody, signature)).toEqual({
      eventId: record.event.id,
      type: 'payout.paid',
      about: 'payout',
      payoutId: (record.event.data.object as Stripe.Payout).id,
    });
  });
});
