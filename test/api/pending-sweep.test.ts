// The pending sweep: a payment a stopped process left pending is failed as `abandoned` and announced
// once; a refund whose acquirer call threw is asked again and settled, its amount kept or given back;
// a charge on a saved card whose acquirer call threw is answered 202 and, never abandoned, asked
// again with the same request and settled with the answer, backing off while it goes unanswered;
// fresh attempts and attempts the acquirer is settling are left alone; sweeps at once act once.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import type { ChargeRequest, ChargeResult, RefundRequest, RefundResult } from '../../server/acquirers/acquirer.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { insertPendingPayment } from '../../server/store/payments.js';
import type { UseCaseContext } from '../../server/usecases/platform/context.js';
import { settleStalePending } from '../../server/usecases/settlement/pending-sweep.js';
import { CHARGE_DECLINES_CARD, GOOD_CARD, submitPage } from '../support/payer.js';
import { useWebhookService } from '../support/webhook-service.js';
import * as create from '../support/factories.js';

/**
 * The sandbox, with refunds that throw (an acquirer that does not answer) or refuse while told to,
 * and charges whose next `chargesUnanswered` calls throw.
 */
class FlakyAcquirer extends SandboxAcquirer {
  mode: 'throw' | 'refuse' | 'normal' = 'normal';
  asked: string[] = [];
  chargesUnanswered = 0;
  charges: ChargeRequest[] = [];
  override async refund(request: RefundRequest): Promise<RefundResult> {
    this.asked.push(request.reference);
    if (this.mode === 'throw') throw new Error('the acquirer did not answer');
    if (this.mode === 'refuse') return { outcome: 'failed', code: 'refund_declined', message: 'The acquirer refused the refund.', refundId: null };
    return super.refund(request);
  }
  override async chargeSavedCard(request: ChargeRequest): Promise<ChargeResult> {
    this.charges.push(request);
    if (this.chargesUnanswered > 0) {
      this.chargesUnanswered -= 1;
      throw new Error('the acquirer did not answer');
    }
    return super.chargeSavedCard(request);
  }
}

const provider = new FlakyAcquirer();
let ctx: UseCaseContext;
const MINUTE = 60_000;
const GRACE = 15 * MINUTE;

// The service's own sweep waits an hour between looks: only the calls below sweep.
const w = useWebhookService({ provider, pendingSweep: { everyMs: 3_600_000 } });
const { t } = w;
beforeAll(async () => {
  // The running service's own context: its acquirer is `provider`, as the requests' is.
  ctx = t.service.context;
}, 60_000);

const link = (amount = 1000) => create.paymentLink(t.a, { amount, title: 'Order', reference: 'ORD-7' });

/** A payment recorded as pending `minutesAgo` minutes ago, as a checkout stopped before the acquirer answered leaves it. */
async function leftPending(linkId: string, minutesAgo: number, providerReference: string | null = null): Promise<string> {
  const id = newId();
  await insertPendingPayment(t.service.db, {
    _id: id,
    business_id: t.a.business.id,
    payment_link_id: linkId,
    open_payment_link_id: null,
    attempt_id: newId(),
    amount: 1000,
    currency: 'MYR',
    payer_name: 'Payer',
    payer_email: 'payer@example.com',
    method: 'card',
    provider: 'sandbox',
    tokenization_id: null,
    reference: 'ORD-7',
    description: null,
  });
  await t
    .sql('payments')
    .where({ _id: id })
    .update({ created_at: new Date(Date.now() - minutesAgo * MINUTE).toISOString(), provider_reference: providerReference });
  return id;
}

/** The webhooks enqueued for business A with these topics whose `data[field]` is `id`, oldest first. */
const webhooksAbout = async (topics: string[], field: string, id: string) =>
  (await t.sql('outbox').where({ business_id: t.a.business.id, channel: 'webhook' }).whereIn('topic', topics).orderBy('id').select('payload'))
    .map((row: { payload: string }) => JSON.parse(row.payload) as { body: { event: string; data: Record<string, unknown> } })
    .filter((event) => event.body.data[field] === id);

const failedEvents = (paymentId: string) => webhooksAbout(['payment.failed'], 'payment_id', paymentId);

describe('payments left pending', () => {
  it('are failed as abandoned once the grace has passed, announced once however many sweeps run at once', async () => {
    const order = await link();
    const stale = await leftPending(order._id, 20);
    const fresh = await leftPending(order._id, 2);
    const awaitingAcquirer = await leftPending(order._id, 60, 'sbx_pending_reference');

    const results = await Promise.all([settleStalePending(ctx, GRACE), settleStalePending(ctx, GRACE), settleStalePending(ctx, GRACE)]);
    expect(results.reduce((sum, r) => sum + r.abandonedPayments, 0)).toBe(1);

    const read = async (id: string) => (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } })).data!.data;
    expect(await read(stale)).toMatchObject({
      status: 'failed',
      payment_status: 3,
      failure_code: 'abandoned',
      failure_message: 'The payment was not completed; no money was taken.',
    });
    expect(await read(fresh)).toMatchObject({ status: 'pending', payment_status: 2 });
    expect(await read(awaitingAcquirer)).toMatchObject({ status: 'pending' });
    const events = await failedEvents(stale);
    expect(events).toHaveLength(1);
    expect(events[0]!.body.data).toMatchObject({ payment_status: 3, failure_code: 'abandoned', payment_link_id: order._id, payment_link_reference: 'ORD-7' });
    expect(await failedEvents(fresh)).toHaveLength(0);

    // The link was never paid: a payer can still pay it.
    const paid = await submitPage(t.url, order.payment_url, { name: 'Payer', ...GOOD_CARD });
    expect(paid.status).toBe(303);
    // Later sweeps find nothing more to do for it.
    expect((await settleStalePending(ctx, GRACE)).abandonedPayments).toBe(0);
  });
});

describe('refunds whose acquirer call threw', () => {
  async function paidPayment(amount: number): Promise<string> {
    const order = await link(amount);
    return (await submitPage(t.url, order.payment_url, { name: 'Payer', ...GOOD_CARD })).paymentId!;
  }

  async function unansweredRefund(paymentId: string, amount: number): Promise<string> {
    provider.mode = 'throw';
    const answer = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount } });
    provider.mode = 'normal';
    expect(answer.response.status).toBe(500);
    const [refund] = await t.sql('refunds').where({ payment_id: paymentId });
    expect(refund).toMatchObject({ status: 'pending', provider_reference: null });
    // Its amount stays set aside: nothing can be refunded twice meanwhile.
    expect(Number((await t.sql('payments').where({ _id: paymentId }).first()).amount_refunded)).toBe(amount);
    return refund._id as string;
  }

  const refundEvents = (refundId: string) => webhooksAbout(['refund.succeeded', 'refund.failed'], 'refund_id', refundId);

  it('are asked again under the same reference once the grace has passed, and settled with the answer, once', async () => {
    const paymentId = await paidPayment(5000);
    const refundId = await unansweredRefund(paymentId, 2000);
    provider.asked = [];
    // Within the grace: left alone.
    expect((await settleStalePending(ctx, GRACE)).settledRefunds).toBe(0);
    expect(provider.asked).toEqual([]);

    const later = new Date(Date.now() + GRACE + MINUTE);
    const results = await Promise.all([settleStalePending(ctx, GRACE, later), settleStalePending(ctx, GRACE, later)]);
    expect(results.reduce((sum, r) => sum + r.settledRefunds, 0)).toBe(1);
    expect(provider.asked).toEqual([refundId]);
    const refunds = (await t.a.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(refunds).toMatchObject([{ _id: refundId, status: 'succeeded', amount: 2000 }]);
    const payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(payment).toMatchObject({ amount_refunded: 2000, status: 'partially_refunded' });
    expect((await refundEvents(refundId)).map((e) => e.body.event)).toEqual(['refund.succeeded']);
  });

  it('that the acquirer then refuses give their amount back, announced as refund.failed', async () => {
    const paymentId = await paidPayment(4000);
    const refundId = await unansweredRefund(paymentId, 4000);
    provider.mode = 'refuse';
    const swept = await settleStalePending(ctx, GRACE, new Date(Date.now() + GRACE + MINUTE));
    provider.mode = 'normal';
    expect(swept.settledRefunds).toBe(1);
    const payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(payment).toMatchObject({ amount_refunded: 0, status: 'paid' });
    expect((await refundEvents(refundId)).map((e) => e.body.event)).toEqual(['refund.failed']);
    // The whole amount can be refunded again.
    const again = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: {} });
    expect(again.data!.data).toMatchObject({ amount: 4000, status: 'succeeded' });
  });

  it('that the acquirer still does not answer stay pending, their amount set aside, for the next sweep', async () => {
    const paymentId = await paidPayment(3000);
    const refundId = await unansweredRefund(paymentId, 1000);
    provider.mode = 'throw';
    const swept = await settleStalePending(ctx, GRACE, new Date(Date.now() + GRACE + MINUTE));
    provider.mode = 'normal';
    expect(swept.settledRefunds).toBe(0);
    expect(await t.sql('refunds').where({ _id: refundId }).first()).toMatchObject({ status: 'pending' });
    expect(Number((await t.sql('payments').where({ _id: paymentId }).first()).amount_refunded)).toBe(1000);
    // Asked again, it waits a grace period more: a sweep within it leaves it; the next one after it,
    // with the acquirer back, settles it.
    expect((await settleStalePending(ctx, GRACE, new Date(Date.now() + GRACE + 2 * MINUTE))).settledRefunds).toBe(0);
    expect((await settleStalePending(ctx, GRACE, new Date(Date.now() + 2 * GRACE + 2 * MINUTE))).settledRefunds).toBe(1);
    expect(await t.sql('refunds').where({ _id: refundId }).first()).toMatchObject({ status: 'succeeded' });
  });
});

describe('charges whose acquirer call threw', () => {
  async function activeToken(card: Record<string, string>): Promise<string> {
    const created = await create.token(t.a, { description: 'Plan' });
    expect((await submitPage(t.url, created.activation_url, { name: 'Aisyah', ...card })).status).toBe(303);
    return created._id;
  }

  const charge = (tokenId: string, headers: Record<string, string> = {}) =>
    t.a.client.POST('/tokenizations/{token_id}/charges', {
      params: { path: { token_id: tokenId } },
      body: { amount: 2500, currency: 'MYR', reference: 'SUB-9' },
      headers,
    });

  /** A charge whose first acquirer call throws: 202, pending, nothing announced. */
  async function unansweredCharge(tokenId: string, headers: Record<string, string> = {}): Promise<string> {
    provider.chargesUnanswered = 1;
    provider.charges = [];
    const answer = await charge(tokenId, headers);
    expect(answer.response.status).toBe(202);
    const payment = answer.data!.data;
    expect(payment).toMatchObject({
      tokenization_id: tokenId,
      status: 'pending',
      payment_status: 2,
      provider_reference: null,
      failure_code: null,
      amount: 2500,
    });
    expect(provider.charges).toHaveLength(1);
    expect(await read(payment._id)).toEqual(payment);
    expect(await paymentEvents(payment._id)).toEqual([]);
    return payment._id;
  }

  const read = async (id: string) => (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } })).data!.data;

  const paymentEvents = async (paymentId: string) =>
    (await webhooksAbout(['payment.created', 'payment.failed'], 'payment_id', paymentId)).map((event) => ({
      event: event.body.event,
      payment_status: event.body.data.payment_status,
      failure_code: event.body.data.failure_code ?? null,
    }));

  const after = (ms: number) => new Date(Date.now() + ms);

  it('are answered 202 pending, then asked again with the same request and settled paid, announced once', async () => {
    const paymentId = await unansweredCharge(await activeToken(GOOD_CARD));
    // Within the grace: neither asked again nor abandoned.
    expect(await settleStalePending(ctx, GRACE)).toMatchObject({ abandonedPayments: 0, settledPayments: 0 });
    expect(provider.charges).toHaveLength(1);

    const later = after(GRACE + MINUTE);
    const results = await Promise.all([settleStalePending(ctx, GRACE, later), settleStalePending(ctx, GRACE, later)]);
    expect(results.reduce((sum, r) => sum + r.settledPayments, 0)).toBe(1);
    expect(results.reduce((sum, r) => sum + r.abandonedPayments, 0)).toBe(0);
    // Asked once more, with exactly the first request: the acquirer's idempotency answers the first outcome.
    expect(provider.charges).toHaveLength(2);
    expect(provider.charges[1]).toEqual(provider.charges[0]);
    expect(provider.charges[0]!.reference).toBe(paymentId);

    expect(await read(paymentId)).toMatchObject({
      status: 'paid',
      payment_status: 1,
      card_last4: '4242',
      provider_reference: expect.stringMatching(/^sbx_auth_/),
    });
    expect(await paymentEvents(paymentId)).toEqual([{ event: 'payment.created', payment_status: 1, failure_code: null }]);
    // Settled: later sweeps leave it.
    await settleStalePending(ctx, GRACE, after(4 * GRACE));
    expect(provider.charges).toHaveLength(2);
    expect(await paymentEvents(paymentId)).toHaveLength(1);
  });

  it('that the acquirer then answers with a decline are failed with its reason, announced once', async () => {
    const paymentId = await unansweredCharge(await activeToken(CHARGE_DECLINES_CARD));
    const swept = await settleStalePending(ctx, GRACE, after(GRACE + MINUTE));
    expect(swept).toMatchObject({ settledPayments: 1, abandonedPayments: 0 });
    expect(await read(paymentId)).toMatchObject({
      status: 'failed',
      payment_status: 3,
      failure_code: 'card_declined',
      failure_message: 'Your card was declined.',
      card_last4: '0341',
    });
    expect(await paymentEvents(paymentId)).toEqual([{ event: 'payment.failed', payment_status: 3, failure_code: 'card_declined' }]);
  });

  it('answered 202 under an Idempotency-Key replay that answer without asking again', async () => {
    const tokenId = await activeToken(GOOD_CARD);
    const headers = { 'Idempotency-Key': `unanswered-${tokenId}` };
    const paymentId = await unansweredCharge(tokenId, headers);
    const again = await charge(tokenId, headers);
    expect(again.response.status).toBe(202);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.data).toMatchObject({ _id: paymentId, status: 'pending' });
    expect(provider.charges).toHaveLength(1);
    expect((await settleStalePending(ctx, GRACE, after(GRACE + MINUTE))).settledPayments).toBe(1);
    expect(await read(paymentId)).toMatchObject({ status: 'paid' });
    expect(await paymentEvents(paymentId)).toEqual([{ event: 'payment.created', payment_status: 1, failure_code: null }]);
  });

  it('that the acquirer keeps not answering stay pending, asked at growing intervals, and are left for reconciliation past the window', async () => {
    const paymentId = await unansweredCharge(await activeToken(GOOD_CARD));
    provider.chargesUnanswered = Number.MAX_SAFE_INTEGER;
    try {
      const asks = async (at: number) => {
        const before = provider.charges.length;
        const swept = await settleStalePending(ctx, GRACE, after(at));
        expect(swept.abandonedPayments).toBe(0);
        expect(await read(paymentId)).toMatchObject({ status: 'pending', payment_status: 2 });
        return { asked: provider.charges.length - before, left: swept.chargesLeftUnanswered.includes(paymentId) };
      };
      expect(await asks(GRACE + MINUTE)).toEqual({ asked: 1, left: false });
      // The next look waits as long as the charge had waited: not one grace later, two.
      expect(await asks(2 * GRACE + MINUTE)).toEqual({ asked: 0, left: false });
      expect(await asks(2 * GRACE + 3 * MINUTE)).toEqual({ asked: 1, left: false });
      // A look whose next would fall past the window is the last, and says so.
      expect(await asks(12 * 60 * MINUTE)).toEqual({ asked: 1, left: true });
      expect(await asks(21 * 60 * MINUTE)).toEqual({ asked: 0, left: false });
      expect(await paymentEvents(paymentId)).toEqual([]);
    } finally {
      provider.chargesUnanswered = 0;
    }
  });
});
