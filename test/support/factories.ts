// Factories for what most tests need before they test anything: a payment link, an open payment
// link, a token, a webhook endpoint, a payment. Each creates through the API as a merchant would
// (responses still checked against the spec by the client) and fails loudly when the API refuses,
// so a test that does not care about the body writes `await create.paymentLink(t.a)` (imported as
// `* as create`). A test that asserts on the create itself (its status, errors, echo) writes its
// request out.
import type { components, OpenPaymentLink, PaymentLink, Token } from '../../client/index.js';
import { GOOD_CARD, submitPage } from './payer.js';
import type { Tenant } from './service.js';

type Fields = Record<string, unknown>;
type WebhookEndpoint = components['schemas']['WebhookEndpointWithSecret'];

export const PAYMENT_LINK = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' };
export const OPEN_LINK = { currency: 'MYR', minimum_amount: '5.00', title: 'Donations' };
export const TOKEN = { email: 'payer@example.com', title: 'Monthly plan', description: 'Card for the plan' };
/** What a payer types on a payment link's page, with a card that pays. */
export const PAYER = { name: 'Aisyah Rahman', ...GOOD_CARD };

function created<T>(what: string, answer: { data?: { data: T }; error?: unknown; response: Response }): T {
  if (!answer.data) throw new Error(`creating ${what} answered ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  return answer.data.data;
}

export async function paymentLink(tenant: Tenant, body: Fields = {}): Promise<PaymentLink> {
  return created('a payment link', await tenant.client.POST('/payment-links', { body: { ...PAYMENT_LINK, ...body } as never }));
}

export async function openLink(tenant: Tenant, body: Fields = {}): Promise<OpenPaymentLink> {
  return created('an open payment link', await tenant.client.POST('/open-payment-links', { body: { ...OPEN_LINK, ...body } as never }));
}

export async function token(tenant: Tenant, body: Fields = {}): Promise<Token> {
  return created('a token', await tenant.client.POST('/tokenizations/create-token', { body: { ...TOKEN, ...body } as never }));
}

export async function webhookEndpoint(tenant: Tenant, body: Fields & { url: string }): Promise<WebhookEndpoint> {
  return created('a webhook endpoint', await tenant.client.POST('/webhook-endpoints', { body: body as never }));
}

/**
 * Pays a link (its payment_url, or an open link's with an `amount` among the fields) on the sandbox's
 * hosted page as a payer would, and answers the payment's id; fails unless the page sent the payer on.
 */
export async function payment(service: { url: string }, link: { payment_url: string }, fields: Record<string, string> = {}): Promise<string> {
  const answer = await submitPage(service.url, link.payment_url, { ...PAYER, ...fields });
  if (!answer.paymentId) throw new Error(`paying ${link.payment_url} answered ${answer.status}: ${answer.html.slice(0, 300)}`);
  return answer.paymentId;
}

/** A payment link of the tenant's, paid: the link and the payment's id. */
export async function paidLink(
  service: { url: string },
  tenant: Tenant,
  body: Fields = {},
  fields: Record<string, string> = {},
): Promise<{ link: PaymentLink; paymentId: string }> {
  const link = await paymentLink(tenant, body);
  return { link, paymentId: await payment(service, link, fields) };
}
