// A charge or refund under an Idempotency-Key runs in atomic phases: the pending record commits with
// a provisional answer for the key before the acquirer is asked, and the settlement with the final
// one. So, while the acquirer is being asked, the pending record is already there for anyone to read,
// a retry replays the provisional answer without asking the acquirer again, and once it answered the
// final answer is replayed; an acquirer call that dies leaves the pending record for the sweep.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChargeRequest, ChargeResult, RefundRequest, RefundResult } from '../../server/acquirers/acquirer.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import type { UseCaseContext } from '../../server/usecases/platform/context.js';
import { settleStalePending } from '../../server/usecases/settlement/pending-sweep.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { useWebhookService } from '../support/webhook-service.js';
import * as create from '../support/factories.js';

interface Hold<Request> {
  /** Settles with the request once the acquirer has been asked. */
  started: Promise<Request>;
  release(): void;
}

/** The sandbox, with the next charge or refund held until the test lets it go, and refunds that throw while told to. */
class HeldAcquirer extends SandboxAcquirer {
  charges: ChargeRequest[] = [];
  refunds: RefundRequest[] = [];
  refundsThrow = false;
  private chargeHold: { begin(request: ChargeRequest): void; released: Promise<void> } | undefined;
  private refundHold: { begin(request: RefundRequest): void; released: Promise<void> } | undefined;

  holdNextCharge(): Hold<ChargeRequest> {
    return this.hold((hold) => (this.chargeHold = hold));
  }

  holdNextRefund(): Hold<RefundRequest> {
    return this.hold((hold) => (this.refundHold = hold));
  }

  private hold<Request>(set: (hold: { begin(request: Request): void; released: Promise<void> }) => void): Hold<Request> {
    let begin!: (request: Request) => void;
    let release!: () => void;
    const started = new Promise<Request>((resolve) => (begin = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    set({ begin, released });
    return { started, release };
  }

  override async chargeSavedCard(request: ChargeRequest): Promise<ChargeResult> {
    this.charges.push(request);
    const hold = this.chargeHold;
    this.chargeHold = undefined;
    if (hold) {
      hold.begin(request);
      await hold.released;
    }
    return super.chargeSavedCard(request);
  }

  override async refund(request: RefundRequest): Promise<RefundResult> {
    this.refunds.push(request);
    const hold = this.refundHold;
    this.refundHold = undefined;
    if (hold) {
      hold.begin(request);
      await hold.released;
    }
    // As the process dying mid-call looks to the request: the call never answers.
    if (this.refundsThrow) throw new Error('the process died while the acquirer was asked');
    return super.refund(request);
  }
}

const provider = new HeldAcquirer();
let ctx: UseCaseContext;
const GRACE = 15 * 60_000;

// Only the calls below sweep.
const w = useWebhookService({ provider, pendingSweep: { everyMs: 3_600_000 } });
const { t } = w;
beforeAll(async () => {
  // The running service's own context: its acquirer is `provider`, as the requests' is.
  ctx = t.service.context;
}, 60_000);

async function activeToken(): Promise<string> {
  const created = await create.token(t.a, { title: 'Plan', description: 'Plan' });
  expect((await submitPage(t.url, created.activation_url, { name: 'Aisyah', ...GOOD_CARD })).status).toBe(303);
  return created._id;
}

async function paidPayment(amount: number): Promise<string> {
  const link = await create.paymentLink(t.a, { amount, title: 'Order' });
  return (await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).paymentId!;
}

const charge = (tokenId: string, key: string) =>
  t.a.client.POST('/tokenizations/{token_id}/charges', {
    params: { path: { token_id: tokenId } },
    body: { amount: 2500, currency: 'MYR' },
    headers: { 'Idempotency-Key': key },
  });

const refund = (paymentId: string, key: string) =>
  t.a.client.POST('/payments/{payment_id}/refunds', {
    params: { path: { payment_id: paymentId } },
    body: { amount: 1500 },
    headers: { 'Idempotency-Key': key },
  });

/** The refunds of a payment as stored (amounts as numbers: PostgreSQL reads bigints as strings). */
const storedRefunds = async (paymentId: string) =>
  (await t.sql('refunds').where({ payment_id: paymentId }).select('_id', 'status', 'amount')).map((row: { _id: string; status: string; amount: unknown }) => ({
    ...row,
    amount: Number(row.amount),
  }));

/** Topics of the webhooks enqueued for business A about `id` (in `data[field]`), oldest first. */
const eventsAbout = async (field: string, id: string) =>
  (await t.sql('outbox').where({ business_id: t.a.business.id, channel: 'webhook' }).orderBy('id').select('payload'))
    .map((row: { payload: string }) => JSON.parse(row.payload) as { body: { event: string; data: Record<string, unknown> } })
    .filter((event) => event.body.data[field] === id)
    .map((event) => event.body.event);

const replayed = (answer: { response: Response }) => answer.response.headers.get('idempotent-replayed');

describe('a keyed charge', () => {
  it('commits its pending payment before the acquirer is asked; a retry meanwhile replays 202 pending, and the final answer after', async () => {
    const tokenId = await activeToken();
    provider.charges = [];
    const hold = provider.holdNextCharge();
    const first = charge(tokenId, `held-${tokenId}`);
    const asked = await hold.started;
    try {
      // Read on a connection of the test's own: committed, not merely written in an open transaction.
      const rows = await t.sql('payments').where({ tokenization_id: tokenId });
      expect(rows).toMatchObject([{ _id: asked.reference, status_id: 2 }]);

      const retry = await charge(tokenId, `held-${tokenId}`);
      expect(retry.response.status).toBe(202);
      expect(replayed(retry)).toBe('true');
      expect(retry.data!.data).toMatchObject({ _id: asked.reference, status: 'pending', payment_status: 2 });
      expect(provider.charges).toHaveLength(1);
    } finally {
      hold.release();
    }

    const answered = await first;
    expect(answered.response.status).toBe(200);
    expect(answered.data!.data).toMatchObject({ _id: asked.reference, status: 'paid' });
    const after = await charge(tokenId, `held-${tokenId}`);
    expect(after.response.status).toBe(200);
    expect(replayed(after)).toBe('true');
    expect(after.data).toEqual(answered.data);
    expect(provider.charges).toHaveLength(1);
    expect(await t.sql('payments').where({ tokenization_id: tokenId })).toHaveLength(1);
    expect(await eventsAbout('payment_id', asked.reference)).toEqual(['payment.created']);
  });

  it('keeps its 404 or 409 answered before anything is recorded, as any keyed request does', async () => {
    const created = await create.token(t.a, { title: 'Plan', description: 'Plan' });
    const first = await charge(created._id, `inactive-${created._id}`);
    expect(first.response.status).toBe(409);
    const retry = await charge(created._id, `inactive-${created._id}`);
    expect(retry.response.status).toBe(409);
    expect(replayed(retry)).toBe('true');
    expect(retry.error).toEqual(first.error);
  });
});

describe('a keyed refund', () => {
  it('commits its pending refund, its amount set aside, before the acquirer is asked; a retry meanwhile replays it pending', async () => {
    const paymentId = await paidPayment(5000);
    provider.refunds = [];
    const hold = provider.holdNextRefund();
    const first = refund(paymentId, `held-${paymentId}`);
    const asked = await hold.started;
    try {
      expect(await storedRefunds(paymentId)).toEqual([{ _id: asked.reference, status: 'pending', amount: 1500 }]);
      expect(Number((await t.sql('payments').where({ _id: paymentId }).first()).amount_refunded)).toBe(1500);

      const retry = await refund(paymentId, `held-${paymentId}`);
      expect(retry.response.status).toBe(200);
      expect(replayed(retry)).toBe('true');
      expect(retry.data!.data).toMatchObject({ _id: asked.reference, status: 'pending', amount: 1500 });
      expect(provider.refunds).toHaveLength(1);
    } finally {
      hold.release();
    }

    const answered = await first;
    expect(answered.data!.data).toMatchObject({ _id: asked.reference, status: 'succeeded' });
    const after = await refund(paymentId, `held-${paymentId}`);
    expect(replayed(after)).toBe('true');
    expect(after.data).toEqual(answered.data);
    expect(provider.refunds).toHaveLength(1);
    expect(await t.sql('refunds').where({ payment_id: paymentId })).toHaveLength(1);
    expect(Number((await t.sql('payments').where({ _id: paymentId }).first()).amount_refunded)).toBe(1500);
  });

  it('whose acquirer call dies stays pending for the sweep; a retry replays it pending and sets nothing aside again', async () => {
    const paymentId = await paidPayment(4000);
    provider.refunds = [];
    provider.refundsThrow = true;
    let first;
    try {
      first = await refund(paymentId, `died-${paymentId}`);
    } finally {
      provider.refundsThrow = false;
    }
    expect(first.response.status).toBe(500);
    const [pending] = await storedRefunds(paymentId);
    expect(pending).toMatchObject({ status: 'pending', amount: 1500 });

    const retry = await refund(paymentId, `died-${paymentId}`);
    expect(retry.response.status).toBe(200);
    expect(replayed(retry)).toBe('true');
    expect(retry.data!.data).toMatchObject({ _id: pending!._id, status: 'pending' });
    expect(provider.refunds).toHaveLength(1);
    expect(await t.sql('refunds').where({ payment_id: paymentId })).toHaveLength(1);
    expect(Number((await t.sql('payments').where({ _id: paymentId }).first()).amount_refunded)).toBe(1500);

    // The sweep asks again under the same reference and settles it, once.
    expect((await settleStalePending(ctx, GRACE, new Date(Date.now() + GRACE + 60_000))).settledRefunds).toBe(1);
    expect(provider.refunds.map((r) => r.reference)).toEqual([pending!._id, pending!._id]);
    expect(await storedRefunds(paymentId)).toEqual([{ _id: pending!._id, status: 'succeeded', amount: 1500 }]);
    expect(Number((await t.sql('payments').where({ _id: paymentId }).first()).amount_refunded)).toBe(1500);
    expect(await eventsAbout('refund_id', pending!._id)).toEqual(['refund.succeeded']);
  });
});
