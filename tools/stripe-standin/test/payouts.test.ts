// The balance and payouts through the SDK: each succeeded charge's balance transaction with Stripe's
// fee for its method, refunds and failed refunds, automatic payouts as of a day whose balance
// transactions add up to them, a payout paid then returned by the bank (its funds in the next one),
// a debit payout, a held one, lists walked by the SDK's auto-pagination, and events signed as the
// others.
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './support/receiver.js';
import { eventTypes, payByCard, paymentSession, postPage, saveCard, sdk, startStripeStandin, takeViolations, type StripeStandin } from './helpers.js';

const DAY = 24 * 60 * 60;

let standin: StripeStandin;
let accounts = 0;

beforeAll(async () => {
  standin = await startStripeStandin();
});
afterAll(async () => {
  await standin?.close();
});
afterEach(() => {
  expect(takeViolations(standin)).toEqual([]);
});

/** An account of its own for each test: a payout moves its account's balance clock. */
function account(): { key: string; stripe: Stripe } {
  accounts += 1;
  const key = `sk_test_payouts_${accounts}`;
  return { key, stripe: sdk(standin, key) };
}

/** The day `days` after today (UTC), written YYYY-MM-DD. */
function day(days: number): string {
  return new Date(Date.now() + days * DAY * 1000).toISOString().slice(0, 10);
}

function unix(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}

/** Pays a MYR 25.00 Checkout Session on the hosted page (card or FPX); the PaymentIntent with its charge's balance transaction. */
async function pay(stripe: Stripe, fields: Record<string, string>): Promise<Stripe.PaymentIntent> {
  const session = await paymentSession(stripe);
  const answer = 'cardNumber' in fields ? await payByCard(session, fields.cardNumber!) : await postPage(session, fields);
  expect(answer.status).toBe(303);
  const done = await stripe.checkout.sessions.retrieve(session.id);
  return stripe.paymentIntents.retrieve(done.payment_intent as string, { expand: ['latest_charge.balance_transaction'] });
}

function balanceTransactionOf(intent: Stripe.PaymentIntent): Stripe.BalanceTransaction {
  return (intent.latest_charge as Stripe.Charge).balance_transaction as Stripe.BalanceTransaction;
}

/** Charges a saved card off-session, as the service charges a token: one request a payment. */
async function chargeSaved(stripe: Stripe, saved: Awaited<ReturnType<typeof saveCard>>, amount: number): Promise<Stripe.PaymentIntent> {
  return stripe.paymentIntents.create({
    amount,
    currency: 'myr',
    customer: saved.customer.id,
    payment_method: saved.paymentMethod,
    off_session: true,
    confirm: true,
    return_url: 'http://127.0.0.1:9/back',
  });
}

async function payoutEntries(stripe: Stripe, payout: string): Promise<Stripe.BalanceTransaction[]> {
  return stripe.balanceTransactions.list({ payout, limit: 2 }).autoPagingToArray({ limit: 1000 });
}

describe('balance transactions of payments', () => {
  it('books a card payment less 3% + RM1.00, pending for two days, and names it on the charge', async () => {
    const { stripe } = account();
    const intent = await pay(stripe, { cardNumber: '4242424242424242' });
    const charge = intent.latest_charge as Stripe.Charge;
    const transaction = balanceTransactionOf(intent);
    expect(transaction).toMatchObject({
      object: 'balance_transaction',
      type: 'charge',
      reporting_category: 'charge',
      amount: 2500,
      fee: 175,
      net: 2325,
      currency: 'myr',
      status: 'pending',
      source: charge.id,
      fee_details: [{ amount: 175, currency: 'myr', type: 'stripe_fee', application: null, description: 'Stripe processing fees' }],
    });
    expect(transaction.id).toMatch(/^txn_/);
    expect(transaction.available_on).toBe(transaction.created - (transaction.created % DAY) + 2 * DAY);
    expect(await stripe.balanceTransactions.retrieve(transaction.id)).toEqual(transaction);
    expect(await stripe.balance.retrieve()).toMatchObject({ available: [{ amount: 0, currency: 'myr' }], pending: [{ amount: 2325, currency: 'myr' }] });
  });

  it('books an FPX payment less 2.5%, and one the bank confirms later only once it does', async () => {
    const { stripe } = account();
    const intent = await pay(stripe, { pay: 'fpx:succeed', bank: 'maybank2u' });
    expect(balanceTransactionOf(intent)).toMatchObject({ amount: 2500, fee: 63, net: 2437, type: 'payment', reporting_category: 'charge' });

    const session = await paymentSession(stripe);
    await postPage(session, { pay: 'fpx:later', bank: 'maybank2u' });
    const later = (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;
    const processing = await stripe.paymentIntents.retrieve(later, { expand: ['latest_charge'] });
    expect((processing.latest_charge as Stripe.Charge).balance_transaction).toBeNull();
    await standin.settle(later, 'succeeded');
    const settled = await stripe.paymentIntents.retrieve(later, { expand: ['latest_charge.balance_transaction'] });
    expect(balanceTransactionOf(settled)).toMatchObject({ net: 2437, status: 'pending' });
  });

  it('takes the fees and days it is given', async () => {
    const other = await startStripeStandin({ settlement: { fees: { card: { percent: 2, fixed: 50 } }, availableAfterDays: 7 } });
    try {
      const intent = await pay(sdk(other), { cardNumber: '4242424242424242' });
      const transaction = balanceTransactionOf(intent);
      expect(transaction).toMatchObject({ fee: 100, net: 2400 });
      expect(transaction.available_on).toBe(transaction.created - (transaction.created % DAY) + 7 * DAY);
      expect(other.violations).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('books a refund as a negative transaction without a fee, and a refund that fails later as money back', async () => {
    const { stripe } = account();
    const intent = await pay(stripe, { cardNumber: '4000000000005126' });
    const refund = await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 });
    await standin.idle();
    const failed = await stripe.refunds.retrieve(refund.id, { expand: ['balance_transaction', 'failure_balance_transaction'] });
    expect(failed.status).toBe('failed');
    expect(failed.balance_transaction).toMatchObject({ type: 'refund', reporting_category: 'refund', amount: -1000, fee: 0, net: -1000, source: refund.id });
    expect(failed.failure_balance_transaction).toMatchObject({
      type: 'refund_failure',
      amount: 1000,
      fee: 0,
      net: 1000,
      status: 'available',
      source: refund.id,
    });
    const bySource = await stripe.balanceTransactions.list({ source: refund.id });
    expect(bySource.data.map((transaction) => transaction.type).sort()).toEqual(['refund', 'refund_failure']);
  });
});

describe('automatic payouts', () => {
  it('pays out what is available as of a day; its balance transactions add up to it', async () => {
    const { key, stripe } = account();
    const receiver = await startReceiver();
    const secret = 'whsec_payouts_test';
    standin.forward(key, { url: receiver.url, secret });
    try {
      const card = await pay(stripe, { cardNumber: '4242424242424242' });
      await pay(stripe, { pay: 'fpx:succeed', bank: 'maybank2u' });
      // Not yet available the day after: nothing to pay out.
      expect(await standin.runPayouts(key, day(1))).toEqual([]);
      await stripe.refunds.create({ payment_intent: card.id, amount: 500 });

      const from = eventTypes(standin, key).length;
      const [payout, ...others] = await standin.runPayouts(key, day(2));
      expect(others).toEqual([]);
      expect(payout).toMatchObject({ amount: 2325 + 2437 - 500, currency: 'myr', automatic: true, status: 'paid', reconciliation_status: 'completed' });
      expect(payout!.arrival_date).toBe(unix(day(3)));
      expect(payout!.trace_id).toEqual({ status: 'supported', value: expect.stringMatching(/^[0-9A-Z]{16}$/) });

      const read = await stripe.payouts.retrieve(payout!.id, { expand: ['balance_transaction'] });
      expect(read.balance_transaction).toMatchObject({ type: 'payout', amount: -payout!.amount, net: -payout!.amount, source: payout!.id });
      const entries = await payoutEntries(stripe, payout!.id);
      expect(entries.map((entry) => entry.type).sort()).toEqual(['charge', 'payment', 'payout', 'refund']);
      const paidOut = entries.filter((entry) => entry.type !== 'payout');
      expect(paidOut.reduce((sum, entry) => sum + entry.net, 0)).toBe(payout!.amount);
      expect(entries.reduce((sum, entry) => sum + entry.net, 0)).toBe(0);
      expect(paidOut.every((entry) => entry.status === 'available')).toBe(true);
      expect(await stripe.balance.retrieve()).toMatchObject({ available: [{ amount: 0 }], pending: [{ amount: 0 }] });

      await standin.idle();
      const sent = receiver.requests.map((request) => stripe.webhooks.constructEvent(request.raw, request.headers['stripe-signature'] as string, secret));
      expect(sent.map((event) => event.type).slice(from)).toEqual([
        'balance.available',
        'payout.created',
        'payout.updated',
        'payout.paid',
        'payout.reconciliation_completed',
      ]);
      expect(sent.at(-1)!.data.object).toMatchObject({ id: payout!.id, status: 'paid', reconciliation_status: 'completed' });
      // A second run the same day finds nothing new.
      expect(await standin.runPayouts(key, day(2))).toEqual([]);
    } finally {
      standin.forward(key, null);
      await receiver.close();
    }
  });

  it('fails a payout after it was paid: its funds come back and go out with the next payout', async () => {
    const { key, stripe } = account();
    await pay(stripe, { cardNumber: '4242424242424242' });
    const [first] = await standin.runPayouts(key, day(2));
    expect(first!.status).toBe('paid');

    const from = eventTypes(standin, key).length;
    const failed = await standin.failPayout(first!.id, 'account_closed');
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'account_closed', failure_message: 'The bank account has been closed.' });
    expect(eventTypes(standin, key).slice(from)).toEqual(['payout.failed', 'balance.available']);
    const returned = await stripe.balanceTransactions.retrieve(failed.failure_balance_transaction as string);
    expect(returned).toMatchObject({ type: 'payout_failure', reporting_category: 'payout_reversal', amount: 2325, source: first!.id, status: 'available' });
    expect(await stripe.balance.retrieve()).toMatchObject({ available: [{ amount: 2325 }] });

    const [next] = await standin.runPayouts(key, day(3));
    expect(next!.amount).toBe(2325);
    const entries = await payoutEntries(stripe, next!.id);
    expect(entries.map((entry) => entry.id)).toContain(returned.id);
    expect(entries.filter((entry) => entry.type !== 'payout').reduce((sum, entry) => sum + entry.net, 0)).toBe(next!.amount);
    expect(await stripe.payouts.list({ status: 'failed' })).toMatchObject({ data: [{ id: first!.id }] });
  });

  it('debits the bank when refunds exceed what came in', async () => {
    const { key, stripe } = account();
    const intent = await pay(stripe, { cardNumber: '4242424242424242' });
    await standin.runPayouts(key, day(2));
    await stripe.refunds.create({ payment_intent: intent.id });
    const [debit] = await standin.runPayouts(key, day(3));
    expect(debit).toMatchObject({ amount: -2500, status: 'paid' });
    const entries = await payoutEntries(stripe, debit!.id);
    expect(entries.map(({ type, net }) => ({ type, net })).sort((a, b) => a.net - b.net)).toEqual([
      { type: 'refund', net: -2500 },
      { type: 'payout', net: 2500 },
    ]);
  });

  it('holds a payout in transit until it is paid', async () => {
    const { key, stripe } = account();
    await pay(stripe, { cardNumber: '4242424242424242' });
    const [held] = await standin.runPayouts(key, day(2), { hold: true });
    expect(held).toMatchObject({ status: 'in_transit', reconciliation_status: 'in_progress', trace_id: { status: 'pending', value: null } });
    expect((await stripe.payouts.list({ status: 'in_transit' })).data.map((payout) => payout.id)).toEqual([held!.id]);
    const paid = await standin.payPayout(held!.id);
    expect(paid).toMatchObject({ status: 'paid', reconciliation_status: 'completed' });
    await expect(standin.payPayout(held!.id)).rejects.toThrow(/only a payout on its way/);
  });

  it('runs a payout and fails one through the control routes, as JSON', async () => {
    const { key, stripe } = account();
    await pay(stripe, { cardNumber: '4242424242424242' });
    const post = async (path: string) => {
      const response = await fetch(standin.url + path, { method: 'POST', headers: { accept: 'application/json' } });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const run = await post(`/_standin/accounts/${standin.accountId(key)}/payouts?as_of=${day(2)}`);
    expect(run.status).toBe(200);
    const [payout] = run.body.payouts as Stripe.Payout[];
    expect(payout).toMatchObject({ status: 'paid', amount: 2325 });
    expect(await post(`/_standin/payouts/${payout!.id}/fail?failure_code=no_account`)).toMatchObject({
      status: 200,
      body: { payout: { status: 'failed', failure_code: 'no_account' } },
    });
    expect((await post(`/_standin/accounts/${standin.accountId(key)}/payouts?as_of=2026-02-30`)).status).toBe(400);
    expect((await post(`/_standin/payouts/${payout!.id}/fail`)).body).toEqual({ error: `${payout!.id} is failed: it cannot fail now` });
  });
});

describe('the control page', () => {
  it('shows each payout with what can be done to it, and runs one from its form', async () => {
    const { key, stripe } = account();
    await pay(stripe, { cardNumber: '4242424242424242' });
    const form = (path: string, fields: Record<string, string>) =>
      fetch(standin.url + path, { method: 'POST', body: new URLSearchParams(fields), headers: { accept: 'text/html' }, redirect: 'manual' });
    const run = await form(`/_standin/accounts/${standin.accountId(key)}/payouts`, { as_of: day(2), hold: 'true' });
    expect([run.status, run.headers.get('location')]).toEqual([303, '/_standin/']);
    const [held] = (await stripe.payouts.list()).data;
    const page = await (await fetch(`${standin.url}/_standin/`)).text();
    expect(page).toContain(`<td><code>${held!.id}</code></td><td>in_transit</td><td>MYR 23.25</td><td>${day(3)}</td>`);
    expect(page).toContain(`action="/_standin/payouts/${held!.id}/pay"`);
    expect(page).toContain(`action="/_standin/payouts/${held!.id}/fail"`);
    expect((await form(`/_standin/payouts/${held!.id}/pay`, {})).status).toBe(303);
    const after = await (await fetch(`${standin.url}/_standin/`)).text();
    expect(after).not.toContain(`action="/_standin/payouts/${held!.id}/pay"`);
    expect(after).toContain(`<td><code>${held!.id}</code></td><td>paid</td>`);
  });
});

describe('lists', () => {
  it('walks every page with the SDK’s auto-pagination, both ways, and filters by type, time and arrival', async () => {
    const { key, stripe } = account();
    const saved = await saveCard(stripe, '4242424242424242');
    const charges: string[] = [];
    for (const amount of [1000, 2000, 3000, 4000, 5000]) charges.push(((await chargeSaved(stripe, saved, amount)).latest_charge as string) ?? '');
    const all = await stripe.balanceTransactions.list({ limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((transaction) => transaction.source)).toEqual([...charges].reverse());
    const before = await stripe.balanceTransactions.list({ ending_before: all[3]!.id, limit: 2 });
    expect(before.data.map((transaction) => transaction.id)).toEqual([all[1]!.id, all[2]!.id]);
    expect(before.has_more).toBe(true);
    const backwards: string[] = [];
    for await (const transaction of stripe.balanceTransactions.list({ ending_before: all[4]!.id, limit: 1 })) backwards.push(transaction.id);
    expect(backwards).toEqual([all[3]!.id, all[2]!.id, all[1]!.id, all[0]!.id]);
    expect((await stripe.balanceTransactions.list({ type: 'refund' })).data).toEqual([]);
    const created = all[0]!.created;
    expect((await stripe.balanceTransactions.list({ created: { gt: created } })).data).toEqual([]);
    expect((await stripe.balanceTransactions.list({ created: { lte: created }, limit: 100 })).data).toHaveLength(5);

    // A payment made after a payout is dated from that payout's day, so each is available three days later.
    for (const asOf of [2, 5, 8]) {
      await chargeSaved(stripe, saved, 2000);
      await standin.runPayouts(key, day(asOf));
    }
    const payouts = await stripe.payouts.list({ limit: 1 }).autoPagingToArray({ limit: 100 });
    expect(payouts.map((payout) => payout.arrival_date)).toEqual([day(9), day(6), day(3)].map(unix));
    expect(payouts.map((payout) => payout.amount)).toEqual([1840, 1840, 14_050 + 1840]);
    const later = await stripe.payouts.list({ arrival_date: { gte: unix(day(6)) } }).autoPagingToArray({ limit: 100 });
    expect(later.map((payout) => payout.id)).toEqual(payouts.slice(0, 2).map((payout) => payout.id));
    await expect(stripe.payouts.list({ starting_after: 'po_nothing' })).rejects.toThrow("No such payout: 'po_nothing'");
  });
});
