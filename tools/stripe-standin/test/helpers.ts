// Shared by the stand-in's tests: the stand-in with an SDK client per account, Checkout Sessions as
// the service will make them, and a payer posting the hosted page's form as a browser would.
import Stripe from 'stripe';
import { startStripeStandin, type StripeStandin } from '../src/index.js';

export const TEST_KEY = 'sk_test_standin_a';
export const OTHER_KEY = 'sk_test_standin_b';
/** An API version before 2026-09-30.endive, where payment_method_types can still be written. */
export const CLOVER = '2025-09-30.clover';

/** The SDK as the service will use it, pointed at the stand-in; retries off so a test sees each answer once. */
export function sdk(standin: StripeStandin, key = TEST_KEY, apiVersion?: string): Stripe {
  return new Stripe(key, { ...standin.sdkOptions, maxNetworkRetries: 0, ...(apiVersion ? { apiVersion: apiVersion as Stripe.LatestApiVersion } : {}) });
}

export { startStripeStandin, type StripeStandin };

export const SUCCESS_URL = 'http://127.0.0.1:9/orders/7/done?session={CHECKOUT_SESSION_ID}';
export const CANCEL_URL = 'http://127.0.0.1:9/orders/7';

export function paymentSession(stripe: Stripe, extra: Partial<Stripe.Checkout.SessionCreateParams> = {}): Promise<Stripe.Checkout.Session> {
  return stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price_data: { currency: 'myr', unit_amount: 2500, product_data: { name: 'Annual dues', description: 'Membership 2027' } }, quantity: 1 }],
    customer_email: 'payer@example.com',
    client_reference_id: 'link_42',
    metadata: { link: '42' },
    payment_intent_data: { description: 'Annual dues', metadata: { link: '42' } },
    success_url: SUCCESS_URL,
    cancel_url: CANCEL_URL,
    ...extra,
  });
}

export async function setupSession(stripe: Stripe, customer: string): Promise<Stripe.Checkout.Session> {
  return stripe.checkout.sessions.create({
    mode: 'setup',
    currency: 'myr',
    customer,
    setup_intent_data: { metadata: { token: 't_1' } },
    metadata: { token: 't_1' },
    success_url: SUCCESS_URL,
    cancel_url: CANCEL_URL,
  });
}

export const CARD = { cardExpiry: '12 / 34', cardCvc: '123', billingName: 'Aminah Yusof' };

export interface PageAnswer {
  status: number;
  location: string | null;
  html: string;
}

/** Posts the hosted page's form as a browser does (no JavaScript): the fields, and the button pressed. */
export async function postPage(session: Stripe.Checkout.Session | string, fields: Record<string, string>): Promise<PageAnswer> {
  const url = typeof session === 'string' ? session : session.url!;
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

export async function payByCard(session: Stripe.Checkout.Session, number: string, extra: Record<string, string> = {}): Promise<PageAnswer> {
  return postPage(session, { pay: 'card', cardNumber: number, ...CARD, ...extra });
}

/** The types of an account's events, oldest first. */
export function eventTypes(standin: StripeStandin, key = TEST_KEY): string[] {
  return standin.events(key).map((record) => record.event.type);
}

/** The events made since `from` (an index into the account's events). */
export function eventTypesSince(standin: StripeStandin, from: number, key = TEST_KEY): string[] {
  return eventTypes(standin, key).slice(from);
}

/** A customer with a card saved through a setup-mode Checkout Session, as the service's tokenization will do it. */
export async function saveCard(
  stripe: Stripe,
  number: string,
): Promise<{ customer: Stripe.Customer; session: Stripe.Checkout.Session; paymentMethod: string }> {
  const customer = await stripe.customers.create({ email: 'saver@example.com', name: 'Aminah Yusof', metadata: { token: 't_1' } });
  const session = await setupSession(stripe, customer.id);
  const answer = await payByCard(session, number);
  if (answer.status !== 303) throw new Error(`saving ${number} was refused: ${answer.status}`);
  const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['setup_intent'] });
  const paymentMethod = (done.setup_intent as Stripe.SetupIntent).payment_method as string;
  return { customer, session: done, paymentMethod };
}

/** The violations recorded so far, taken away so the next test starts with none. */
export function takeViolations(standin: StripeStandin): StripeStandin['violations'] {
  return standin.violations.splice(0);
}
