// A payment link has one payer's payment, even on Stripe where payers pay on Stripe's page and the
// service hears of it afterwards: several payers open checkouts for one link, all pay at Stripe, and
// Stripe's notifications and the payers' returns arrive at once. Exactly one payment is the link's;
// every other is refunded in full at once (recorded, announced by refund.succeeded), never a second
// payment.created.
import { describe, expect, it } from 'vitest';
import { Payer } from '../support/payer.js';
import { openReturn, payOnStripe, useStripeService } from '../support/stripe.js';
import { waitFor } from '../support/wait.js';

const PAYERS = 4;
const ROUNDS = 3;

const s = useStripeService();

describe('one payment link, several checkouts paid at Stripe at once', () => {
  it(`ends with one payment and ${PAYERS - 1} full refunds, ${ROUNDS} rounds`, { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const link = (await s.t.a.client.POST('/payment-links', { body: { email: 'once@example.com', currency: 'MYR', amount: 4_200, title: `Once ${round}` } }))
        .data!.data;
      const path = new URL(link.payment_url).pathname + new URL(link.payment_url).search;
      // Every payer is sent to Stripe before any has paid: several sessions are open for the link.
      const checkouts = await Promise.all(
        Array.from({ length: PAYERS }, async (_, i) => {
          const payer = new Payer(s.t.url);
          const started = await payer.submit(await payer.open(path), { name: `Payer ${i}` });
          expect(started.status).toBe(303);
          return started.location!;
        }),
      );
      // All pay at Stripe while its notifications are held; then notifications and returns race.
      s.standin.holdWebhooks(true);
      const backs = await Promise.all(checkouts.map((url) => payOnStripe(url, { card: '4242 4242 4242 4242' })));
      s.standin.holdWebhooks(false);
      expect(backs.map((b) => b.status)).toEqual(Array<number>(PAYERS).fill(303));
      const held = s.standin.events(s.secretKey).filter((e) => e.deliveries.length === 0);
      await Promise.all([...held.map((e) => s.standin.deliver(e.event.id)), ...backs.map((b) => openReturn(b.location!))]);

      const payments = (await s.t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': link._id } } })).data!.data.data;
      expect(payments).toHaveLength(PAYERS);
      const kept = payments.filter((p) => p.status === 'paid');
      const refunded = payments.filter((p) => p.status === 'refunded');
      expect(kept).toHaveLength(1);
      expect(refunded).toHaveLength(PAYERS - 1);
      for (const p of refunded) expect(p).toMatchObject({ amount_refunded: 4_200, failure_code: 'link_unavailable', payment_status: 1 });

      const ids = new Set(payments.map((p) => p._id));
      const announced = await waitFor('every refund announced', () => {
        const mine = s.events().filter((e) => ids.has((e.data as { payment_id: string }).payment_id));
        return mine.filter((e) => e.event === 'refund.succeeded').length === PAYERS - 1 && mine;
      });
      await s.standin.idle();
      await s.t.service.worker!.drained();
      const mine = s.events().filter((e) => ids.has((e.data as { payment_id: string }).payment_id));
      expect(mine.filter((e) => e.event === 'payment.created').map((e) => (e.data as { payment_id: string }).payment_id)).toEqual([kept[0]!._id]);
      expect(mine.filter((e) => e.event === 'refund.succeeded')).toHaveLength(announced.filter((e) => e.event === 'refund.succeeded').length);
      const read = await s.t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: link._id } } });
      expect(read.data!.data).toMatchObject({ paid: true, status: 'Paid' });

      // At Stripe: one refund per extra payment, for its whole amount, marked as a duplicate.
      const refundsAtStripe = s.standin.requests.filter(
        (r) => r.method === 'POST' && r.path === '/v1/refunds' && JSON.stringify(r.params).includes('duplicate'),
      );
      expect(refundsAtStripe.length).toBeGreaterThanOrEqual((round + 1) * (PAYERS - 1));
    }
  });
});
