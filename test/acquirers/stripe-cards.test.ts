// Saved cards on Stripe: the payer saves the card on Stripe's page (a setup-mode Checkout Session),
// the token becomes active with what Stripe says of the card, and the merchant charges it off-session
// through a PaymentIntent; a card that declines when charged is a 402 and payment.failed. A card keeps
// the acquirer that saved it (a Stripe card is charged on Stripe on a business back on the sandbox),
// except that a sandbox test card is not charged once the business collects real money through Stripe.
// Removing the card detaches its PaymentMethod at Stripe before the token forgets it.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { PaymentFailedEvent } from '../../client/webhooks.js';
import { setAcquirer } from '../../server/store/acquirer-settings.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { raw } from '../support/service.js';
import { openReturn, payOnStripe, useStripeService } from '../support/stripe.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const s = useStripeService();

const token = () => create.token(s.t.a, { email: 'lim@example.com', description: 'Plan' });

/** Our activation page, then Stripe's: where the payer lands at the end. */
async function saveOnStripe(activationUrl: string, card: string) {
  const url = new URL(activationUrl);
  const payer = new Payer(url.origin);
  const started = await payer.submit(await payer.open(url.pathname), {});
  expect(started.status).toBe(303);
  const back = await payOnStripe(started.location!, { card });
  return { back, started };
}

const charge = (tokenId: string, amount = 2990) =>
  s.t.a.client.POST('/tokenizations/{token_id}/charges', { params: { path: { token_id: tokenId } }, body: { amount, currency: 'MYR', reference: 'SUB-1' } });

describe('a card saved on Stripe', () => {
  it('is saved on Stripe’s page; the token becomes active with Stripe’s brand, last four and expiry; charging it pays', async () => {
    const created = await token();
    const page = await raw(created.activation_url);
    expect(page.text).not.toContain('name="card_number"');
    const { back } = await saveOnStripe(created.activation_url, '4242 4242 4242 4242');
    expect(back.status).toBe(303);
    const returned = await openReturn(back.location!);
    expect(returned.status).toBe(200);
    expect(returned.html).toContain('VISA ending in 4242');
    const read = (await s.t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: created._id } } })).data!.data;
    expect(read).toMatchObject({ status: 'active', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2039 } });

    const paid = await charge(created._id);
    expect(paid.response.status).toBe(200);
    expect(paid.data!.data).toMatchObject({ status: 'paid', provider: 'stripe', tokenization_id: created._id, card_last4: '4242', reference: 'SUB-1' });
    expect(paid.data!.data.provider_reference).toMatch(/^pi_/);
    await waitFor('payment.created of the charge', () =>
      s.events().find((e) => e.event === 'payment.created' && (e.data as { payment_id: string }).payment_id === paid.data!.data._id),
    );
  });

  it('a card that saves but declines when charged: 402 with the failed payment, and payment.failed', async () => {
    const created = await token();
    const { back } = await saveOnStripe(created.activation_url, '4000 0000 0000 0341');
    await openReturn(back.location!);
    const declined = await charge(created._id, 1500);
    expect(declined.response.status).toBe(402);
    const body = declined.error as unknown as { data: { _id: string; status: string; failure_code: string } };
    expect(body.data).toMatchObject({ status: 'failed', failure_code: 'card_declined' });
    const failed = await waitFor('payment.failed', () =>
      s.events().find((e): e is PaymentFailedEvent => e.event === 'payment.failed' && e.data.payment_id === body.data._id),
    );
    expect(failed.data).toMatchObject({ payment_provider: 'stripe', payment_reference_model: 'tokenization', failure_code: 'card_declined' });
  });

  it('a charge Stripe refuses to make (the account key revoked) fails: 402, payment.failed, and nothing left pending', async () => {
    const created = await token();
    const { back } = await saveOnStripe(created.activation_url, '4242 4242 4242 4242');
    await openReturn(back.location!);
    await setAcquirer(s.t.service.db, s.t.a.business.id, 'stripe', { secretKey: 'rk_live_revoked0000000000000000' }, s.t.service.secretsKey);
    try {
      const refused = await charge(created._id, 1200);
      expect(refused.response.status).toBe(402);
      const body = refused.error as unknown as { data: { _id: string; status: string; failure_code: string } };
      expect(body.data).toMatchObject({ status: 'failed', failure_code: 'processing_error' });
      await waitFor('payment.failed', () =>
        s.events().find((e): e is PaymentFailedEvent => e.event === 'payment.failed' && e.data.payment_id === body.data._id),
      );
    } finally {
      await setAcquirer(s.t.service.db, s.t.a.business.id, 'stripe', { secretKey: s.secretKey }, s.t.service.secretsKey);
    }
  });

  it('a card Stripe declines at saving leaves the token pending, and the payer may try another', async () => {
    const created = await token();
    const { back } = await saveOnStripe(created.activation_url, '4000 0000 0000 0002');
    // Declined on Stripe's page: the payer is still there, the token still pending.
    expect(back.location).toBeNull();
    expect(back.html).toMatch(/declined/i);
    expect((await s.t.a.client.GET('/tokenizations/{token_id}', { params: { path: { token_id: created._id } } })).data!.data.status).toBe('pending');
    expect((await charge(created._id)).response.status).toBe(409);
  });

  it('a token saved on the sandbox before the business moved to Stripe is refused with a 422: no payment, no webhook', async () => {
    await setAcquirer(s.t.service.db, s.t.a.business.id, 'sandbox', {}, s.t.service.secretsKey);
    try {
      const created = await token();
      const url = new URL(created.activation_url);
      const payer = new Payer(url.origin);
      const saved = await payer.submit(await payer.open(url.pathname), { name: 'Lim', ...GOOD_CARD });
      expect(saved.status).toBe(303);
      await setAcquirer(s.t.service.db, s.t.a.business.id, 'stripe', {}, s.t.service.secretsKey);
      for (const headers of [{}, { 'Idempotency-Key': `sandbox-card-${created._id}` }]) {
        const refused = await s.t.a.client.POST('/tokenizations/{token_id}/charges', {
          params: { path: { token_id: created._id } },
          body: { amount: 2990, currency: 'MYR', reference: 'SUB-1' },
          headers,
        });
        expect(refused.response.status).toBe(422);
        expect(refused.error).toEqual({
          message: 'The given data was invalid.',
          errors: {
            token_id: [
              'The token id holds a card saved on the sandbox, which takes no money, and the business now takes payments through Stripe: create a new token for the payer to save a card.',
            ],
          },
        });
      }
      expect(await s.t.sql('payments').where({ tokenization_id: created._id })).toEqual([]);
      // A paid or failed charge enqueues its webhook and receipt in the transaction that settles it.
      expect(await s.t.sql('outbox').where('topic', 'like', 'payment.%').andWhere('payload', 'like', `%${created._id}%`)).toEqual([]);
      // Back on the sandbox, the business may charge its test cards again.
      await setAcquirer(s.t.service.db, s.t.a.business.id, 'sandbox', {}, s.t.service.secretsKey);
      expect((await charge(created._id)).data!.data).toMatchObject({ status: 'paid', provider: 'sandbox' });
    } finally {
      await setAcquirer(s.t.service.db, s.t.a.business.id, 'stripe', {}, s.t.service.secretsKey);
    }
  });

  it('a card saved on Stripe is still charged on Stripe after the business moves back to the sandbox', async () => {
    const created = await token();
    const { back } = await saveOnStripe(created.activation_url, '4242 4242 4242 4242');
    await openReturn(back.location!);
    await setAcquirer(s.t.service.db, s.t.a.business.id, 'sandbox', {}, s.t.service.secretsKey);
    try {
      const paid = await charge(created._id);
      expect(paid.response.status).toBe(200);
      expect(paid.data!.data).toMatchObject({ status: 'paid', provider: 'stripe', tokenization_id: created._id });
      expect(paid.data!.data.provider_reference).toMatch(/^pi_/);
    } finally {
      await setAcquirer(s.t.service.db, s.t.a.business.id, 'stripe', {}, s.t.service.secretsKey);
    }
  });

  it('removing the card detaches its PaymentMethod at Stripe (payment_method.detached), then the token forgets it; a detach Stripe already made counts as done', async () => {
    const created = await token();
    const { back } = await saveOnStripe(created.activation_url, '4242 4242 4242 4242');
    await openReturn(back.location!);
    const paymentMethod = await savedPaymentMethod(created._id);
    expect(paymentMethod).toMatch(/^pm_/);

    const removed = await s.t.a.client.DELETE('/tokenizations/{token_id}/card', { params: { path: { token_id: created._id } } });
    expect(removed.response.status).toBe(200);
    expect(removed.data!.data).toMatchObject({ status: 'pending', card: null });
    const detaches = s.standin.requests.filter((request) => request.method === 'POST' && request.path === `/v1/payment_methods/${paymentMethod}/detach`);
    expect(detaches).toHaveLength(1);
    const stripe = new Stripe(s.secretKey, { ...s.standin.sdkOptions, maxNetworkRetries: 0 });
    expect((await stripe.paymentMethods.retrieve(paymentMethod!)).customer).toBeNull();
    expect(s.standin.events(s.secretKey).map((record) => record.event.type)).toContain('payment_method.detached');
    expect((await charge(created._id)).response.status).toBe(409);

    // A second card, detached at Stripe already (the first answer lost, or the Dashboard): removing it still succeeds.
    const { back: again } = await saveOnStripe(created.activation_url, '5555 5555 5555 4444');
    await openReturn(again.location!);
    const second = await savedPaymentMethod(created._id);
    expect(second).not.toBe(paymentMethod);
    await stripe.paymentMethods.detach(second);
    const removedAgain = await s.t.a.client.DELETE('/tokenizations/{token_id}/card', { params: { path: { token_id: created._id } } });
    expect(removedAgain.response.status).toBe(200);
    expect(removedAgain.data!.data).toMatchObject({ status: 'pending', card: null });
    expect(s.standin.violations).toEqual([]);
  });
});

/** The PaymentMethod a token's saved card is at Stripe (its reference reads `cus_.../pm_...`). */
async function savedPaymentMethod(tokenId: string): Promise<string> {
  const [row] = await s.t.sql('tokens').where({ _id: tokenId }).select('card_reference');
  return String(row.card_reference).split('/')[1]!;
}
