// Concurrent refunds of one payment never give back more than was paid: 20 refunds of 3.00 sent at
// once against a 50.00 payment, through an acquirer slowed down at random so they interleave, end
// with 16 refunded and 4 refused, on whichever database the suite runs on.
import { describe, expect, it } from 'vitest';
import type { RefundRequest } from '../../server/acquirers/acquirer.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { GOOD_CARD, REFUND_FAILS_CARD } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

class JitteryRefunds extends SandboxAcquirer {
  refunded = 0;
  override async refund(request: RefundRequest) {
    // eslint-disable-next-line no-restricted-syntax -- the acquirer answering late, at random, is the scenario; the test waits on the refunds, not on this
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    const answer = await super.refund(request);
    if (answer.outcome === 'succeeded') this.refunded += request.amount;
    return answer;
  }
}

const provider = new JitteryRefunds();
const t = useService({ provider });

async function paid(card = GOOD_CARD): Promise<string> {
  return (await create.paidLink(t, t.a, { amount: 5000, title: 'Race' }, { name: 'Aisyah', ...card })).paymentId;
}

const refund = (paymentId: string, i: number) =>
  t.a.client.POST('/payments/{payment_id}/refunds', {
    params: { path: { payment_id: paymentId } },
    body: { amount: 300 },
    // Half the requests run under an Idempotency-Key (in its transaction), half without.
    headers: i % 2 === 0 ? { 'Idempotency-Key': `race-${paymentId}-${i}` } : {},
  });

describe('concurrent refunds', () => {
  it('20 x 3.00 at once on 50.00: 16 refunded, 4 refused with what is left, 5 rounds', async () => {
    for (let round = 0; round < 5; round += 1) {
      const paymentId = await paid();
      const before = provider.refunded;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => refund(paymentId, i)));
      const statuses = answers.map((answer) => answer.response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(16);
      expect(statuses.filter((status) => status === 422)).toHaveLength(4);
      for (const answer of answers.filter((a) => a.response.status === 422)) {
        expect(answer.error).toEqual({
          message: 'The given data was invalid.',
          errors: { amount: ['The amount must not be greater than 200, what is left to refund of this payment.'] },
        });
      }
      expect(provider.refunded - before).toBe(4800);
      const payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
      expect(payment).toMatchObject({ amount_refunded: 4800, status: 'partially_refunded' });
      const refunds = (await t.a.client.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } })).data!.data;
      expect(refunds.filter((r) => r.status === 'succeeded')).toHaveLength(16);
      expect(refunds).toHaveLength(16);
    }
  }, 60_000);

  it('refunds the acquirer refuses give their amount back, and the total never passes the amount paid', async () => {
    const paymentId = await paid(REFUND_FAILS_CARD);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => refund(paymentId, i)));
    // Every refund was refused by the acquirer, or found nothing left while others held their amounts.
    for (const answer of answers) {
      if (answer.response.status === 200) expect(answer.data!.data.status).toBe('failed');
      else expect(answer.response.status).toBe(422);
    }
    const payment = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: paymentId } } })).data!.data;
    expect(payment).toMatchObject({ amount_refunded: 0, status: 'paid' });
    const rows = await t.sql('refunds').where({ payment_id: paymentId });
    expect(rows.every((row) => row.status === 'failed')).toBe(true);
  }, 60_000);
});
