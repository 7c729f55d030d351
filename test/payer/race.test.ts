// No double charge: payers racing for one payment link end with exactly one successful payment;
// the others are not charged (their authorizations are voided) and are told the link is paid.
import { describe, expect, it } from 'vitest';
import { checkCard } from '../../server/acquirers/cards.js';
import { payByCard } from '../../server/usecases/payer/card-form.js';
import { singleAcquirer } from '../../server/usecases/platform/acquirer-directory.js';
import type { AuthorizeRequest, CardFormAcquirer } from '../../server/acquirers/acquirer.js';
import { SandboxAcquirer } from '../../server/acquirers/sandbox.js';
import { newId } from '../../server/domain/ids.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { useService } from '../support/service.js';
import * as create from '../support/factories.js';

/** The sandbox, slowed down at random so that concurrent checkouts really interleave. */
class JitteryProvider extends SandboxAcquirer {
  captured: string[] = [];
  voided: string[] = [];
  // eslint-disable-next-line no-restricted-syntax -- the acquirer answering late, at random, is the scenario; the test waits on the payers, not on this
  private jitter = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
  override async authorize(request: AuthorizeRequest) {
    await this.jitter();
    return super.authorize(request);
  }
  override async capture(id: string) {
    await this.jitter();
    this.captured.push(id);
  }
  override async void(id: string) {
    this.voided.push(id);
  }
}

const t = useService();

const paymentLink = () => create.paymentLink(t.a, { amount: 5000, title: 'Race' });

describe('racing payers', () => {
  it('over HTTP: 12 payers submit at once, exactly one is charged', async () => {
    const link = await paymentLink();
    const path = new URL(link.payment_url).pathname + new URL(link.payment_url).search;
    const payers = Array.from({ length: 12 }, () => new Payer(t.url));
    const forms = await Promise.all(payers.map((payer) => payer.open(path)));
    const results = await Promise.all(payers.map((payer, i) => payer.submit(forms[i]!, { name: `Payer ${i}`, ...GOOD_CARD })));

    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 303)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    // Whether the page found it paid or the claim lost it, every other payer is told it is paid.
    for (const loser of results.filter((r) => r.status === 409)) expect(loser.html).toContain('<h1>Already paid</h1>');
    const paid = await t.sql('payments').where({ payment_link_id: link._id, status_id: 1 });
    expect(paid).toHaveLength(1);
    const read = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
    expect(read.data?.data.paid).toBe(true);
  });

  it('through the card payment with a slow acquirer: one capture, every other authorization voided, 20 rounds', async () => {
    const card = checkCard({ number: GOOD_CARD.card_number, expiry: GOOD_CARD.expiry, cvc: GOOD_CARD.cvc });
    if (!card.ok) throw new Error('test card rejected');
    for (let round = 0; round < 20; round += 1) {
      const link = await paymentLink();
      const provider = new JitteryProvider();
      const target = {
        kind: 'payment_link' as const,
        id: link._id,
        businessId: t.a.business.id,
        currency: 'MYR',
        title: 'Race',
        reference: null,
        reference_2: null,
      };
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          payByCard(
            {
              db: t.service.db,
              publicUrl: t.url,
              acquirers: singleAcquirer(provider as CardFormAcquirer),
              settlement: t.service.context.settlement,
              outbox: { nudge: () => t.service.worker?.nudge() },
              webhooks: undefined as never,
              secretsKey: t.service.secretsKey,
            },
            { target, attemptId: newId() + i, amount: 5000, payerName: `P${i}`, payerEmail: null, card: card.card },
          ),
        ),
      );
      expect(outcomes.filter((o) => o.result === 'paid')).toHaveLength(1);
      expect(outcomes.filter((o) => o.result === 'unavailable')).toHaveLength(7);
      expect(provider.captured).toHaveLength(1);
      expect(provider.voided).toHaveLength(7);
      const rows = await t.sql('payments').where({ payment_link_id: link._id }).select('status_id', 'failure_code');
      expect(rows.filter((r: { status_id: number }) => r.status_id === 1)).toHaveLength(1);
      expect(rows.filter((r: { status_id: number; failure_code: string }) => r.status_id === 3 && r.failure_code === 'link_unavailable')).toHaveLength(7);
    }
  });

  it('the database itself refuses a second successful payment for one payment link', async () => {
    const link = await paymentLink();
    const row = (i: number) => ({
      _id: newId(),
      business_id: t.a.business.id,
      payment_link_id: link._id,
      attempt_id: `direct-${link._id}-${i}`,
      amount: 5000,
      currency: 'MYR',
      status_id: 1,
      method: 'card',
      provider: 'sandbox',
      created_at: '2026-01-01T00:00:00.000000Z',
      updated_at: '2026-01-01T00:00:00.000000Z',
    });
    await t.sql('payments').insert(row(1));
    await expect(t.sql('payments').insert(row(2))).rejects.toThrow(/UNIQUE|unique/);
  });
});
