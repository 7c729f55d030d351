// Business A on Stripe, against the local stand-in (tools/stripe-standin): the service's Stripe
// SDK talks to the stand-in, the stand-in forwards its signed events to the service's
// /stripe/webhooks/{business}, and the merchant's own webhooks arrive at a receiver on loopback. A
// payer here is what a browser does on both sides: our pay page, then Stripe's hosted page.
import { randomBytes } from 'node:crypto';
import { startStripeStandin, type StripeStandin } from '@payment-collection/stripe-standin';
import { setAcquirer } from '../../server/store/acquirer-settings.js';
import { Payer, type PageResponse } from './payer.js';
import { lazy, useStarted } from './lifecycle.js';
import { resolvedOptions, type LazyOptions, type TestServiceOptions } from './service.js';
import { startWebhookTestService, type WebhookTestService } from './webhook-service.js';

export interface StripeTestService extends WebhookTestService {
  standin: StripeStandin;
  /** Business A's Stripe account on the stand-in. */
  secretKey: string;
  webhookSecret: string;
  /** Where business A's Stripe events go: the address a merchant registers at Stripe. */
  webhookUrl: string;
}

export async function startStripeTestService(options: TestServiceOptions = {}): Promise<StripeTestService> {
  const standin = await startStripeStandin();
  const w = await startWebhookTestService({ ...options, stripeApiUrl: standin.url });
  const secretKey = `sk_test_${randomBytes(16).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
  await setAcquirer(w.t.service.db, w.t.a.business.id, 'stripe', { secretKey, webhookSecret }, w.t.service.secretsKey);
  const webhookUrl = `${w.t.url}/stripe/webhooks/${w.t.a.business.id}`;
  standin.forward(secretKey, { url: webhookUrl, secret: webhookSecret });
  return {
    ...w,
    standin,
    secretKey,
    webhookSecret,
    webhookUrl,
    /** Also fails the suite when the SDK sent anything Stripe's description refuses. */
    async close() {
      await w.close();
      await standin.close();
      if (standin.violations.length > 0) throw new Error(`requests Stripe's description refuses: ${JSON.stringify(standin.violations, null, 2)}`);
    },
  };
}

/** The Stripe test service of this file (or describe block), started before its tests and closed after them. */
export function useStripeService(options: LazyOptions<TestServiceOptions> = {}): StripeTestService {
  const s = useStarted(async () => startStripeTestService(await resolvedOptions(options)));
  // Each part a handle of its own, so a file may write `const { t, standin } = useStripeService()`.
  return {
    t: lazy(() => s.t),
    receiver: lazy(() => s.receiver),
    standin: lazy(() => s.standin, 'the stand-in'),
    events: () => s.events(),
    close: () => s.close(),
    get secretKey() {
      return s.secretKey;
    },
    get webhookSecret() {
      return s.webhookSecret;
    },
    get webhookUrl() {
      return s.webhookUrl;
    },
  };
}

/** What a payer does on Stripe's page: pay by card (with its details), by a bank, or by GrabPay. */
export type HostedChoice = { card: string; name?: string } | { fpx: 'succeed' | 'later' | 'fail'; bank?: string } | { grabpay: 'succeed' | 'fail' };

function fieldsOf(choice: HostedChoice): Record<string, string> {
  if ('card' in choice) return { pay: 'card', cardNumber: choice.card, cardExpiry: '12 / 39', cardCvc: '123', billingName: choice.name ?? 'Aisyah Rahman' };
  if ('fpx' in choice) return { pay: `fpx:${choice.fpx}`, bank: choice.bank ?? 'maybank2u' };
  return { pay: `grabpay:${choice.grabpay}` };
}

/** Posts the hosted page's form at `url` (a Checkout Session's); the answer: a 303 back to us, or the page again. */
export async function payOnStripe(url: string, choice: HostedChoice, email = 'payer@example.com'): Promise<PageResponse> {
  const page = new URL(url);
  const payer = new Payer(page.origin);
  const opened = await payer.get(page.pathname);
  const fields = fieldsOf(choice);
  // The page asks for an e-mail only when the session does not already know it.
  if (opened.html.includes('name="email"')) fields.email = email;
  return payer.submit({ action: page.pathname, csrf: '', attemptId: '' }, fields);
}

/** Our pay page, then Stripe's: answers where the stand-in sent the payer back to (our return URL) and the session's URL. */
export async function payLinkOnStripe(
  origin: string,
  payPath: string,
  ourFields: Record<string, string>,
  choice: HostedChoice,
): Promise<{ checkoutUrl: string; back: PageResponse; returnUrl: string | null }> {
  const payer = new Payer(origin);
  const started = await payer.submit(await payer.open(payPath), ourFields);
  if (started.status !== 303 || !started.location) throw new Error(`our pay page answered ${started.status}: ${started.html.slice(0, 500)}`);
  const back = await payOnStripe(started.location, choice, ourFields.email);
  return { checkoutUrl: started.location, back, returnUrl: back.status === 303 ? back.location : null };
}

/** Opens our return URL as the payer's browser would after Stripe's page. */
export async function openReturn(returnUrl: string): Promise<PageResponse> {
  const url = new URL(returnUrl);
  return new Payer(url.origin).get(url.pathname + url.search);
}
