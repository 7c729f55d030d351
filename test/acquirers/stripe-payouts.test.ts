// A business on Stripe, its money end to end against the stand-in: a Checkout payment takes Stripe's
// fee from its balance transaction, Stripe's automatic payout arrives by its notification and is
// checked to add up, a sync run again writes nothing new, a refund goes out with the next payout, a
// payout Stripe marks failed after it was paid gives its money back for the one after, and a payout
// with an entry the service does not know is mismatched at the second sync.
import { describe, expect, it } from 'vitest';
import { syncAcquirerPayouts } from '../../server/usecases/settlement/acquirer-payouts.js';
import { openReturn, payLinkOnStripe, useStripeService } from '../support/stripe.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const s = useStripeService();

const payPath = (url: string) => new URL(url).pathname + new URL(url).search;
const paymentIdOf = (url: string) => new URL(url).searchParams.get('payment_id')!;
const getPayment = async (id: string) => (await s.t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } })).data!.data;
const ourPayout = async (reference: string) =>
  waitFor(`our record of ${reference}`, async () =>
    (await s.t.a.client.GET('/payouts', { params: { query: { per_page: 100 } } })).data!.data.data.find((p) => p.acquirer_reference === reference),
  );
const entryCount = async () => Number((await s.t.sql('balance_transactions').where({ business_id: s.t.a.business.id }).count({ n: '*' }).first())!.n);

function dayAfter(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

async function payByCard(amount: number): Promise<string> {
  const link = await create.paymentLink(s.t.a, { email: 'aisyah@example.com', amount, title: 'Order', reference: 'ORD-S' });
  const { returnUrl } = await payLinkOnStripe(s.t.url, payPath(link.payment_url), { name: 'Aisyah Rahman' }, { card: '4242 4242 4242 4242' });
  await openReturn(returnUrl!);
  return paymentIdOf(returnUrl!);
}

describe("Stripe's fees and payouts in the ledger", () => {
  it("takes the fee from Stripe's balance transaction, reconciles Stripe's payout, and a second sync writes nothing", async () => {
    const first = await payByCard(10_000);
    const second = await payByCard(5_000);
    // Stripe Malaysia's card rate in the stand-in: 3% + RM 1.00.
    expect(await getPayment(first)).toMatchObject({ status: 'paid', fee: 400, net: 9_600 });
    expect(await getPayment(second)).toMatchObject({ fee: 250, net: 4_750 });
    const entry = await s.t.a.client.GET('/balance-transactions/{balance_transaction_id}', {
      params: { path: { balance_transaction_id: (await getPayment(first)).balance_transaction_id! } },
    });
    expect(entry.data!.data.acquirer_reference).toMatch(/^txn_/);

    await s.standin.idle();
    const [theirs] = await s.standin.runPayouts(s.secretKey, dayAfter(3));
    expect(theirs!.amount).toBe(14_350);
    const payout = await ourPayout(theirs!.id);
    expect(payout).toMatchObject({ amount: 14_350, provider: 'stripe', status: 'paid', transaction_count: 2, reconciliation: { status: 'expected' } });
    // Announced once each, whichever of Stripe's notifications came first.
    await s.t.service.worker!.drained();
    const announced = s.events().flatMap((event) => ((event.data as { payout_id?: string }).payout_id === payout._id ? [event.event] : []));
    expect(announced.sort()).toEqual(['payout.created', 'payout.paid']);
    const items = await s.t.a.client.GET('/balance-transactions', { params: { query: { 'filter[payout_id]': payout._id } } });
    expect(items.data!.data.data.map((e) => e.source_id).sort()).toEqual([first, second, payout._id].sort());

    const before = await entryCount();
    expect(await syncAcquirerPayouts(s.t.service.context, s.t.a.business.id, 'stripe')).toBeGreaterThanOrEqual(1);
    expect(await syncAcquirerPayouts(s.t.service.context, s.t.a.business.id, 'stripe')).toBeGreaterThanOrEqual(1);
    expect(await entryCount()).toBe(before);
    const again = (await s.t.a.client.GET('/payouts/{payout_id}', { params: { path: { payout_id: payout._id } } })).data!.data;
    expect(again).toMatchObject({ amount: 14_350, reconciliation: { status: 'expected' }, transaction_count: 2 });
  });

  it('a payout Stripe fails after paying it gives its money back, and the next payout takes it with a refund', async () => {
    const paymentId = await payByCard(20_000);
    await s.standin.idle();
    const [theirs] = await s.standin.runPayouts(s.secretKey, dayAfter(10));
    const payout = await ourPayout(theirs!.id);
    expect(payout.amount).toBe(19_300);

    await s.standin.failPayout(theirs!.id);
    const failed = await waitFor('the payout failed', async () => {
      const read = (await s.t.a.client.GET('/payouts/{payout_id}', { params: { path: { payout_id: payout._id } } })).data!.data;
      return read.status === 'failed' && read;
    });
    expect(failed).toMatchObject({ failure_code: 'could_not_process', reconciliation: { status: 'explained' } });
    const back = await s.t.a.client.GET('/balance-transactions', { params: { query: { 'filter[source_id]': payout._id, 'filter[type]': 'payout_failure' } } });
    expect(back.data!.data.data.map((e) => e.amount)).toEqual([19_300]);

    const refund = await s.t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 1_000 } });
    expect(refund.data!.data.status).toBe('succeeded');
    await s.standin.idle();
    const [next] = await s.standin.runPayouts(s.secretKey, dayAfter(11));
    expect(next!.amount).toBe(18_300);
    const nextOurs = await ourPayout(next!.id);
    expect(nextOurs).toMatchObject({ amount: 18_300, transaction_count: 2, reconciliation: { status: 'expected' } });
  });

  it('a payout whose entries the service does not all know is mismatched at the second sync, and announced once', async () => {
    const known = await payByCard(3_000);
    const unknown = await payByCard(4_000);
    // As if this payment's settlement had never reached the ledger (its charge entry lost).
    await s.t.sql('balance_transactions').where({ source_id: unknown, type: 'charge' }).delete();
    await s.standin.idle();
    const [theirs] = await s.standin.runPayouts(s.secretKey, dayAfter(20));
    const payout = await ourPayout(theirs!.id);
    // Stripe's several notifications of the payout are not syncs: the periodic ones count.
    expect(payout.reconciliation).toMatchObject({ status: 'expected', reason: expect.stringMatching(/1 of its 2 entries .* not known .* yet/) });
    await syncAcquirerPayouts(s.t.service.context, s.t.a.business.id, 'stripe');
    const once = (await s.t.a.client.GET('/payouts/{payout_id}', { params: { path: { payout_id: payout._id } } })).data!.data;
    expect(once.reconciliation.status).toBe('expected');
    await syncAcquirerPayouts(s.t.service.context, s.t.a.business.id, 'stripe');
    const flagged = (await s.t.a.client.GET('/payouts/{payout_id}', { params: { path: { payout_id: payout._id } } })).data!.data;
    expect(flagged.reconciliation).toMatchObject({ status: 'mismatched', reason: expect.stringMatching(/1 of its 2 entries .* not known .* after 2 syncs/) });
    await syncAcquirerPayouts(s.t.service.context, s.t.a.business.id, 'stripe');
    await s.t.service.worker!.drained();
    const failed = s
      .events()
      .filter((event) => event.event === 'payout.reconciliation_failed' && (event.data as { payout_id: string }).payout_id === payout._id);
    expect(failed).toHaveLength(1);
    const entries = await s.t.a.client.GET('/balance-transactions', { params: { query: { 'filter[payout_id]': payout._id } } });
    expect(entries.data!.data.data.map((e) => e.source_id)).toContain(known);
  });
});
