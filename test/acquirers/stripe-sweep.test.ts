// When Stripe's notification never comes (an endpoint misconfigured, an outage) and the payer never
// comes back, the pending sweep reads the payment back from Stripe: a checkout the payer abandoned is
// failed as `expired` once Stripe has closed it, and an FPX payment the bank confirmed is paid. Each is
// announced once, however many sweeps run.
import { beforeAll, describe, expect, it } from 'vitest';
import { settleStalePending } from '../../server/usecases/settlement/pending-sweep.js';
import { Payer } from '../support/payer.js';
import { payOnStripe, useStripeService } from '../support/stripe.js';
import { waitFor } from '../support/wait.js';
import Stripe from 'stripe';

// The service's own sweep waits an hour between looks: only the calls below sweep.
const s = useStripeService({ pendingSweep: { everyMs: 3_600_000 } });
beforeAll(async () => {
  s.standin.holdWebhooks(true);
}, 60_000);

const payment = async (id: string) => (await s.t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } })).data!.data;
const eventsOf = (id: string) => s.events().filter((e) => (e.data as { payment_id?: string }).payment_id === id);
const sweep = () => settleStalePending(s.t.service.context, 0, new Date(Date.now() + 1_000));

async function startCheckout() {
  const link = (await s.t.a.client.POST('/payment-links', { body: { email: 'gone@example.com', currency: 'MYR', amount: 1_000, title: 'Abandoned' } })).data!
    .data;
  const payer = new Payer(s.t.url);
  const started = await payer.submit(await payer.open(new URL(link.payment_url).pathname + new URL(link.payment_url).search), { name: 'Gone' });
  const listed = (await s.t.a.client.GET('/payments', { params: { query: { 'filter[payment_link_id]': link._id } } })).data!.data.data;
  return { link, checkoutUrl: started.location!, id: listed[0]!._id };
}

describe('the pending sweep with Stripe', () => {
  it('leaves a checkout that is still open alone, and fails it as expired once Stripe has closed it', async () => {
    const { id, checkoutUrl } = await startCheckout();
    expect((await sweep()).settledPayments).toBe(0);
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    // Stripe closes the session (its expires_at passed); its checkout.session.expired is held.
    const stripe = new Stripe(s.secretKey, s.standin.sdkOptions);
    await stripe.checkout.sessions.expire(new URL(checkoutUrl).pathname.split('/').pop()!);
    const swept = await Promise.all([sweep(), sweep(), sweep()]);
    expect(swept.reduce((sum, one) => sum + one.settledPayments, 0)).toBe(1);
    expect(await payment(id)).toMatchObject({ status: 'failed', failure_code: 'expired', payment_status: 3 });
    await waitFor('payment.failed', () => eventsOf(id).find((e) => e.event === 'payment.failed'));
    await s.t.service.worker!.drained();
    expect(eventsOf(id).map((e) => e.event)).toEqual(['payment.failed']);
  });

  it('pays an FPX payment the bank confirmed when neither the payer nor the notification came back', async () => {
    const { id, checkoutUrl } = await startCheckout();
    const back = await payOnStripe(checkoutUrl, { fpx: 'later' });
    expect(back.status).toBe(303);
    // The payer closed the tab at Stripe's redirect: nothing told us of the payment yet.
    expect(await payment(id)).toMatchObject({ status: 'pending' });
    await sweep();
    const processing = await payment(id);
    expect(processing).toMatchObject({ status: 'pending', method: 'fpx' });
    expect(processing.provider_reference).toMatch(/^pi_/);
    await s.standin.settle(processing.provider_reference!, 'succeeded');
    await Promise.all([sweep(), sweep()]);
    expect(await payment(id)).toMatchObject({ status: 'paid', payment_status: 1 });
    await waitFor('payment.created', () => eventsOf(id).find((e) => e.event === 'payment.created'));
    await s.t.service.worker!.drained();
    expect(eventsOf(id).map((e) => e.event)).toEqual(['payment.created']);
  });
});
