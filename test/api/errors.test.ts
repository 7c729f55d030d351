// Error responses across the whole API: authentication (401 before anything else), bodies that are
// not JSON, not valid JSON or too large, unknown paths and wrong methods, and JSON bodies that are not
// objects. Every error is JSON `{message}` (or the 422 shape) and never leaks a stack trace.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsClient } from '../../client/index.js';
import { loadContract } from '../../server/http/contract.js';
import { issueKey, revokeKey } from '../../server/store/api-keys.js';
import { setWebhook } from '../../server/store/businesses.js';
import { assertConforms, assertErrorBody, operationFor } from '../support/contract.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { raw, useService } from '../support/service.js';

/** Ids of business A's records, used wherever a path needs one. */
const ids = {
  token: '',
  activeToken: '',
  openLink: '',
  paymentLink: '',
  payment: '',
  event: '',
  endpoint: '',
  apiKey: '',
  entry: '',
  payout: '',
  statement: '',
};
let revokedKey = '';

const MiB = 1024 * 1024;

const tokenBody = { email: 'payer@example.com', title: 'Card on file', description: 'Monthly plan' };
const openLinkBody = { currency: 'MYR', minimum_amount: '10.00', title: 'Donations' };
const paymentLinkBody = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1' };
const chargeBody = { amount: 1000, currency: 'MYR' };

const refundBody = { amount: 1 };
const endpointBody = { url: 'http://127.0.0.1:9/hooks/more', enabled_events: ['payment.created'] };
const endpointUpdateBody = { description: 'Bookkeeping' };
const apiKeyBody = { name: 'Reporting', permissions: ['payments:read' as const] };
/** A day long after the suite's payments are available, on a weekday. */
const payoutBody = { as_of: '2030-01-02' };
const statementBody = { format: 'generic' as const, csv: 'Date,Amount\n02/01/2030,1.00\n', columns: { date: 'Date', amount: 'Amount' } };

type Headers = Record<string, string | null>;
type Result = { response: Response; error?: unknown };

interface Op {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Concrete path under /api, with A's ids. */
  path(): string;
  /** A valid body for operations that take one. */
  body?: Record<string, unknown>;
  /** Fields the operation's body requires. */
  required?: string[];
  call(client: PaymentsClient, headers?: Headers, body?: unknown): Promise<Result>;
}

/** A 1x1 PNG. */
const logoBody = { image: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' };

const ops: Op[] = [
  {
    operationId: 'createToken',
    method: 'POST',
    path: () => '/tokenizations/create-token',
    body: tokenBody,
    required: ['email', 'title', 'description'],
    call: (c, headers, body = tokenBody) => c.POST('/tokenizations/create-token', { body: body as never, headers }),
  },
  {
    operationId: 'listTokenizations',
    method: 'GET',
    path: () => '/tokenizations',
    call: (c, headers) => c.GET('/tokenizations', { headers }),
  },
  {
    operationId: 'getToken',
    method: 'GET',
    path: () => `/tokenizations/${ids.token}`,
    call: (c, headers) => c.GET('/tokenizations/{token_id}', { params: { path: { token_id: ids.token } }, headers }),
  },
  {
    operationId: 'createOpenPaymentLink',
    method: 'POST',
    path: () => '/open-payment-links',
    body: openLinkBody,
    required: ['currency', 'minimum_amount', 'title'],
    call: (c, headers, body = openLinkBody) => c.POST('/open-payment-links', { body: body as never, headers }),
  },
  {
    operationId: 'listOpenPaymentLinks',
    method: 'GET',
    path: () => '/open-payment-links',
    call: (c, headers) => c.GET('/open-payment-links', { headers }),
  },
  {
    operationId: 'getOpenPaymentLink',
    method: 'GET',
    path: () => `/open-payment-links/${ids.openLink}`,
    call: (c, headers) => c.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: ids.openLink } }, headers }),
  },
  {
    operationId: 'updateOpenPaymentLink',
    method: 'PUT',
    path: () => `/open-payment-links/${ids.openLink}`,
    body: { ...openLinkBody, title: 'Changed' },
    required: ['currency', 'minimum_amount', 'title'],
    call: (c, headers, body = { ...openLinkBody, title: 'Changed' }) =>
      c.PUT('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: ids.openLink } }, body: body as never, headers }),
  },
  {
    operationId: 'deleteOpenPaymentLink',
    method: 'DELETE',
    path: () => `/open-payment-links/${ids.openLink}`,
    call: (c, headers) => c.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: ids.openLink } }, headers }),
  },
  {
    operationId: 'getOpenPaymentLinkTotalCollection',
    method: 'GET',
    path: () => `/open-payment-links/${ids.openLink}/total-collection`,
    call: (c, headers) =>
      c.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params: { path: { open_payment_link_id: ids.openLink } }, headers }),
  },
  {
    operationId: 'getOpenPaymentLinkTopCollection',
    method: 'GET',
    path: () => `/open-payment-links/${ids.openLink}/top-collection`,
    call: (c, headers) =>
      c.GET('/open-payment-links/{open_payment_link_id}/top-collection', { params: { path: { open_payment_link_id: ids.openLink } }, headers }),
  },
  {
    operationId: 'getOpenPaymentLinkQrCode',
    method: 'GET',
    path: () => `/open-payment-links/${ids.openLink}/qr`,
    // An image when it succeeds: read as text (an error is JSON whatever parseAs says).
    call: (c, headers) =>
      c.GET('/open-payment-links/{open_payment_link_id}/qr', { params: { path: { open_payment_link_id: ids.openLink } }, headers, parseAs: 'text' }),
  },
  {
    operationId: 'listPayments',
    method: 'GET',
    path: () => '/payments',
    call: (c, headers) => c.GET('/payments', { headers }),
  },
  {
    operationId: 'getPayment',
    method: 'GET',
    path: () => `/payments/${ids.payment}`,
    call: (c, headers) => c.GET('/payments/{payment_id}', { params: { path: { payment_id: ids.payment } }, headers }),
  },
  {
    operationId: 'createRefund',
    method: 'POST',
    path: () => `/payments/${ids.payment}/refunds`,
    body: refundBody,
    required: [],
    call: (c, headers, body = refundBody) =>
      c.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: ids.payment } }, body: body as never, headers }),
  },
  {
    operationId: 'listRefunds',
    method: 'GET',
    path: () => `/payments/${ids.payment}/refunds`,
    call: (c, headers) => c.GET('/payments/{payment_id}/refunds', { params: { path: { payment_id: ids.payment } }, headers }),
  },
  {
    operationId: 'createCharge',
    method: 'POST',
    path: () => `/tokenizations/${ids.activeToken}/charges`,
    body: chargeBody,
    required: ['amount', 'currency'],
    call: (c, headers, body = chargeBody) =>
      c.POST('/tokenizations/{token_id}/charges', { params: { path: { token_id: ids.activeToken } }, body: body as never, headers }),
  },
  {
    // A token without a card, so the card the charges above use stays.
    operationId: 'removeTokenCard',
    method: 'DELETE',
    path: () => `/tokenizations/${ids.token}/card`,
    call: (c, headers) => c.DELETE('/tokenizations/{token_id}/card', { params: { path: { token_id: ids.token } }, headers }),
  },
  {
    operationId: 'createApiKey',
    method: 'POST',
    path: () => '/api-keys',
    body: apiKeyBody,
    required: ['name'],
    call: (c, headers, body = apiKeyBody) => c.POST('/api-keys', { body: body as never, headers }),
  },
  {
    operationId: 'listApiKeys',
    method: 'GET',
    path: () => '/api-keys',
    call: (c, headers) => c.GET('/api-keys', { headers }),
  },
  {
    operationId: 'revokeApiKey',
    method: 'DELETE',
    path: () => `/api-keys/${ids.apiKey}`,
    call: (c, headers) => c.DELETE('/api-keys/{api_key_id}', { params: { path: { api_key_id: ids.apiKey } }, headers }),
  },
  {
    operationId: 'listAuditEvents',
    method: 'GET',
    path: () => '/audit-events',
    call: (c, headers) => c.GET('/audit-events', { headers }),
  },
  {
    operationId: 'getRedirectSigningKey',
    method: 'GET',
    path: () => '/redirect-signing-key',
    call: (c, headers) => c.GET('/redirect-signing-key', { headers }),
  },
  {
    operationId: 'rotateRedirectSigningKey',
    method: 'POST',
    path: () => '/redirect-signing-key/rotate',
    call: (c, headers) => c.POST('/redirect-signing-key/rotate', { headers }),
  },
  {
    operationId: 'getCollectionsReport',
    method: 'GET',
    path: () => '/reports/collections',
    call: (c, headers) => c.GET('/reports/collections', { headers }),
  },
  {
    operationId: 'getBusiness',
    method: 'GET',
    path: () => '/business',
    call: (c, headers) => c.GET('/business', { headers }),
  },
  {
    operationId: 'updateBusiness',
    method: 'PATCH',
    path: () => '/business',
    body: { display_name: 'Changed' },
    required: [],
    call: (c, headers, body = {}) => c.PATCH('/business', { body: body as never, headers }),
  },
  {
    operationId: 'putBusinessLogo',
    method: 'PUT',
    path: () => '/business/logo',
    body: logoBody,
    required: ['image'],
    call: (c, headers, body = logoBody) => c.PUT('/business/logo', { body: body as never, headers }),
  },
  {
    operationId: 'getAcquirer',
    method: 'GET',
    path: () => '/business/acquirer',
    call: (c, headers) => c.GET('/business/acquirer', { headers }),
  },
  {
    operationId: 'setAcquirer',
    method: 'PUT',
    path: () => '/business/acquirer',
    body: { acquirer: 'sandbox' },
    required: ['acquirer'],
    call: (c, headers, body = { acquirer: 'sandbox' }) => c.PUT('/business/acquirer', { body: body as never, headers }),
  },
  {
    operationId: 'deleteBusinessLogo',
    method: 'DELETE',
    path: () => '/business/logo',
    call: (c, headers) => c.DELETE('/business/logo', { headers }),
  },
  ...(['pause', 'resume'] as const).flatMap((verb): Op[] => [
    {
      operationId: `${verb}PaymentLink`,
      method: 'POST',
      path: () => `/payment-links/${ids.paymentLink}/${verb}`,
      call: (c, headers) =>
        c.POST(`/payment-links/{payment_link_id}/${verb}`, { params: { path: { payment_link_id: ids.paymentLink } }, headers }) as Promise<Result>,
    },
    {
      operationId: `${verb}OpenPaymentLink`,
      method: 'POST',
      path: () => `/open-payment-links/${ids.openLink}/${verb}`,
      call: (c, headers) =>
        c.POST(`/open-payment-links/{open_payment_link_id}/${verb}`, { params: { path: { open_payment_link_id: ids.openLink } }, headers }) as Promise<Result>,
    },
  ]),
  {
    operationId: 'listEvents',
    method: 'GET',
    path: () => '/events',
    call: (c, headers) => c.GET('/events', { headers }),
  },
  {
    operationId: 'getEvent',
    method: 'GET',
    path: () => `/events/${ids.event}`,
    call: (c, headers) => c.GET('/events/{event_id}', { params: { path: { event_id: ids.event } }, headers }),
  },
  {
    operationId: 'resendEvent',
    method: 'POST',
    path: () => `/events/${ids.event}/resend`,
    body: { webhook_endpoint_id: 'we_000000000000000000000000' },
    required: [],
    call: (c, headers, body) => c.POST('/events/{event_id}/resend', { params: { path: { event_id: ids.event } }, body: body as never, headers }),
  },
  {
    operationId: 'createWebhookEndpoint',
    method: 'POST',
    path: () => '/webhook-endpoints',
    body: endpointBody,
    required: ['url'],
    call: (c, headers, body = endpointBody) => c.POST('/webhook-endpoints', { body: body as never, headers }),
  },
  {
    operationId: 'listWebhookEndpoints',
    method: 'GET',
    path: () => '/webhook-endpoints',
    call: (c, headers) => c.GET('/webhook-endpoints', { headers }),
  },
  {
    operationId: 'getWebhookEndpoint',
    method: 'GET',
    path: () => `/webhook-endpoints/${ids.endpoint}`,
    call: (c, headers) => c.GET('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: ids.endpoint } }, headers }),
  },
  {
    operationId: 'listWebhookEndpointDeliveries',
    method: 'GET',
    path: () => `/webhook-endpoints/${ids.endpoint}/deliveries`,
    call: (c, headers) => c.GET('/webhook-endpoints/{webhook_endpoint_id}/deliveries', { params: { path: { webhook_endpoint_id: ids.endpoint } }, headers }),
  },
  {
    operationId: 'updateWebhookEndpoint',
    method: 'PUT',
    path: () => `/webhook-endpoints/${ids.endpoint}`,
    body: endpointUpdateBody,
    required: [],
    call: (c, headers, body = endpointUpdateBody) =>
      c.PUT('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: ids.endpoint } }, body: body as never, headers }),
  },
  {
    operationId: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: () => `/webhook-endpoints/${ids.endpoint}`,
    call: (c, headers) => c.DELETE('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: ids.endpoint } }, headers }),
  },
  ...(['rotate-secret', 'test'] as const).map((verb): Op => ({
    operationId: verb === 'test' ? 'testWebhookEndpoint' : 'rotateWebhookEndpointSecret',
    method: 'POST',
    path: () => `/webhook-endpoints/${ids.endpoint}/${verb}`,
    call: (c, headers) =>
      c.POST(`/webhook-endpoints/{webhook_endpoint_id}/${verb}`, { params: { path: { webhook_endpoint_id: ids.endpoint } }, headers }) as Promise<Result>,
  })),
  {
    operationId: 'createPaymentLink',
    method: 'POST',
    path: () => '/payment-links',
    body: paymentLinkBody,
    required: ['currency', 'email', 'amount', 'title'],
    call: (c, headers, body = paymentLinkBody) => c.POST('/payment-links', { body: body as never, headers }),
  },
  {
    operationId: 'listPaymentLinks',
    method: 'GET',
    path: () => '/payment-links',
    call: (c, headers) => c.GET('/payment-links', { headers }),
  },
  {
    operationId: 'getPaymentLink',
    method: 'GET',
    path: () => `/payment-links/${ids.paymentLink}`,
    call: (c, headers) => c.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: ids.paymentLink } }, headers }),
  },
  {
    operationId: 'getPaymentLinkQrCode',
    method: 'GET',
    path: () => `/payment-links/${ids.paymentLink}/qr`,
    call: (c, headers) => c.GET('/payment-links/{payment_link_id}/qr', { params: { path: { payment_link_id: ids.paymentLink } }, headers, parseAs: 'text' }),
  },
  {
    operationId: 'updatePaymentLink',
    method: 'PUT',
    path: () => `/payment-links/${ids.paymentLink}`,
    body: { ...paymentLinkBody, amount: 2000 },
    required: ['currency', 'email', 'amount', 'title'],
    call: (c, headers, body = { ...paymentLinkBody, amount: 2000 }) =>
      c.PUT('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: ids.paymentLink } }, body: body as never, headers }),
  },
  {
    operationId: 'deletePaymentLink',
    method: 'DELETE',
    path: () => `/payment-links/${ids.paymentLink}`,
    call: (c, headers) => c.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: ids.paymentLink } }, headers }),
  },
  {
    operationId: 'getBalance',
    method: 'GET',
    path: () => '/balance',
    call: (c, headers) => c.GET('/balance', { headers }),
  },
  {
    operationId: 'listBalanceTransactions',
    method: 'GET',
    path: () => '/balance-transactions',
    call: (c, headers) => c.GET('/balance-transactions', { headers }),
  },
  {
    operationId: 'getBalanceTransaction',
    method: 'GET',
    path: () => `/balance-transactions/${ids.entry}`,
    call: (c, headers) => c.GET('/balance-transactions/{balance_transaction_id}', { params: { path: { balance_transaction_id: ids.entry } }, headers }),
  },
  {
    operationId: 'getBalanceReport',
    method: 'GET',
    path: () => '/reports/balance',
    call: (c, headers) => c.GET('/reports/balance', { headers }),
  },
  {
    operationId: 'listPayouts',
    method: 'GET',
    path: () => '/payouts',
    call: (c, headers) => c.GET('/payouts', { headers }),
  },
  {
    operationId: 'getPayout',
    method: 'GET',
    path: () => `/payouts/${ids.payout}`,
    call: (c, headers) => c.GET('/payouts/{payout_id}', { params: { path: { payout_id: ids.payout } }, headers }),
  },
  {
    operationId: 'runTestPayouts',
    method: 'POST',
    path: () => '/test-helpers/payouts',
    body: payoutBody,
    required: ['as_of'],
    call: (c, headers, body = payoutBody) => c.POST('/test-helpers/payouts', { body: body as never, headers }),
  },
  {
    operationId: 'failTestPayout',
    method: 'POST',
    path: () => `/test-helpers/payouts/${ids.payout}/fail`,
    call: (c, headers) => c.POST('/test-helpers/payouts/{payout_id}/fail', { params: { path: { payout_id: ids.payout } }, headers }),
  },
  {
    operationId: 'createBankStatement',
    method: 'POST',
    path: () => '/bank-statements',
    body: statementBody,
    required: ['csv'],
    call: (c, headers, body = statementBody) => c.POST('/bank-statements', { body: body as never, headers }),
  },
  {
    operationId: 'getBankStatement',
    method: 'GET',
    path: () => `/bank-statements/${ids.statement}`,
    call: (c, headers) => c.GET('/bank-statements/{bank_statement_id}', { params: { path: { bank_statement_id: ids.statement } }, headers }),
  },
];
const bodyOps = ops.filter((op) => op.body);

/** No stack frames, source paths or internal error names in a response body. */
function expectNoLeak(text: string): void {
  expect(text).not.toMatch(/\bat\s+\S+\s+\(|^[ \t]*at\s/m);
  expect(text).not.toMatch(/\/(work|home|usr|tmp|app|src)\/|[A-Za-z]:\\|file:\/\//);
  expect(text).not.toMatch(/\.(ts|js|mjs|cjs):\d+/);
  expect(text).not.toMatch(/node_modules|SQLITE_|knex|TypeError|ReferenceError|SyntaxError/i);
}

/** The JSON error body of a raw response: application/json, `{message}` (plus errors for 422), no leak. */
function expectJsonError(response: { contentType: string | null; body: unknown; text: string }, message?: string): void {
  expect(response.contentType).toMatch(/^application\/json\b/);
  expect(typeof response.body).toBe('object');
  expect(typeof (response.body as { message?: unknown }).message).toBe('string');
  if (message !== undefined) expect(response.body).toEqual({ message });
  expectNoLeak(response.text);
}

/** Checks a raw response that belongs to an operation against openapi.yaml. */
async function conforms(method: string, path: string, response: { status: number; contentType: string | null; headers: globalThis.Headers; body: unknown }) {
  await assertConforms({
    method,
    path,
    status: response.status,
    contentType: response.contentType,
    headers: Object.fromEntries(response.headers.entries()),
    body: response.body,
  });
}

/** Snapshot of everything stored for the tenants, to prove rejected requests changed nothing. */
async function storedRows() {
  const db = t.sql;
  return {
    tokens: await db('tokens').select().orderBy('_id'),
    openLinks: await db('open_payment_links').select().orderBy('_id'),
    paymentLinks: await db('payment_links').select().orderBy('_id'),
    payments: await db('payments').select().orderBy('_id'),
    refunds: await db('refunds').select().orderBy('_id'),
  };
}

/** A JSON text of exactly `size` bytes: a valid payment link body padded with an unknown field. */
function paddedBody(size: number): string {
  const base = JSON.stringify({ ...paymentLinkBody, padding: '' });
  const text = JSON.stringify({ ...paymentLinkBody, padding: 'x'.repeat(size - Buffer.byteLength(base)) });
  expect(Buffer.byteLength(text)).toBe(size);
  return text;
}

const t = useService();
beforeAll(async () => {
  const token = await t.a.client.POST('/tokenizations/create-token', { body: tokenBody });
  const openLink = await t.a.client.POST('/open-payment-links', { body: openLinkBody });
  const paymentLink = await t.a.client.POST('/payment-links', { body: paymentLinkBody });
  ids.token = token.data!.data._id;
  ids.openLink = openLink.data!.data._id;
  ids.paymentLink = paymentLink.data!.data._id;
  // A webhook on a loopback port nobody listens on, so the payment below makes an event.
  await setWebhook(t.service.db, t.a.business.id, { url: 'http://127.0.0.1:9/hooks', secret: 'whsec_errors_suite_key_0123456789abcdef' }, t.service.secretsKey);
  // A payment, on a link of its own (a paid link cannot be deleted, and the tests below delete theirs).
  const paidLink = (await t.a.client.POST('/payment-links', { body: paymentLinkBody })).data!.data;
  const payer = new Payer(t.url);
  const payUrl = new URL(paidLink.payment_url);
  const paid = await payer.submit(await payer.open(payUrl.pathname + payUrl.search), { name: 'Payer', ...GOOD_CARD });
  ids.payment = new URL(paid.location!, t.url).searchParams.get('payment_id')!;
  ids.event = (await t.sql('outbox').where({ business_id: t.a.business.id, channel: 'webhook' }).first('event_id')).event_id as string;
  ids.endpoint = (await t.sql('webhook_endpoints').where({ business_id: t.a.business.id }).first('_id'))._id as string;
  const active = (await t.a.client.POST('/tokenizations/create-token', { body: tokenBody })).data!.data;
  const activation = await payer.open(new URL(active.activation_url).pathname);
  expect((await payer.submit(activation, { name: 'Payer', ...GOOD_CARD })).status).toBe(303);
  ids.activeToken = active._id;
  ids.apiKey = (await t.a.client.POST('/api-keys', { body: apiKeyBody })).data!.data._id;
  ids.entry = (await t.a.client.GET('/payments/{payment_id}', { params: { path: { payment_id: ids.payment } } })).data!.data.balance_transaction_id!;
  ids.payout = (await t.a.client.POST('/test-helpers/payouts', { body: payoutBody })).data!.data[0]!._id;
  ids.statement = (await t.a.client.POST('/bank-statements', { body: statementBody })).data!.data._id;

  // A key that worked, then was revoked.
  revokedKey = (await issueKey(t.service.db, t.a.business.id)).key;
  expect((await t.clientFor(revokedKey).GET('/payment-links')).response.status).toBe(200);
  expect(await revokeKey(t.service.db, revokedKey)).toBe(1);
});

describe('the operation table', () => {
  it('covers every operation in openapi.yaml, each at the method and path used here', async () => {
    // The operations an API key may call; the sign-in, session and team operations take the session cookie
    // alone (security: sessionCookie, or none for signing in): test/api/auth.test.ts and team.test.ts answer for them.
    const contract = await loadContract();
    const byKey = (operationId: string) => {
      const security = (contract.api.getOperation(operationId) as { security?: Record<string, unknown>[] } | undefined)?.security;
      return !security || security.some((scheme) => 'bearerAuth' in scheme);
    };
    const declared = contract.operations
      .map((o) => o.operationId)
      .filter(byKey)
      .sort();
    expect(ops.map((op) => op.operationId).sort()).toEqual(declared);
    for (const op of ops) {
      expect((await operationFor(op.method, `/api${op.path()}`))?.operationId, `${op.method} ${op.path()}`).toBe(op.operationId);
    }
  });
});

describe('401 Unauthenticated on every operation', () => {
  const wellFormedUnknown = () => `sk_${randomBytes(32).toString('base64url')}`;
  const variants: [string, () => Headers][] = [
    ['no Authorization header', () => ({ Authorization: null })],
    ['the Basic scheme, even with a valid key', () => ({ Authorization: `Basic ${Buffer.from(`${t.a.key}:`).toString('base64')}` })],
    ['the Basic scheme carrying the raw key', () => ({ Authorization: `Basic ${t.a.key}` })],
    ['an empty bearer', () => ({ Authorization: 'Bearer ' })],
    ['a malformed key', () => ({ Authorization: 'Bearer not-a-real-key' })],
    ['a valid key with a character appended', () => ({ Authorization: `Bearer ${t.a.key}x` })],
    ['a valid key followed by another word', () => ({ Authorization: `Bearer ${t.a.key} extra` })],
    ['an unknown well-formed key', () => ({ Authorization: `Bearer ${wellFormedUnknown()}` })],
    ['a revoked key', () => ({ Authorization: `Bearer ${revokedKey}` })],
  ];

  let before: Awaited<ReturnType<typeof storedRows>>;
  beforeAll(async () => {
    before = await storedRows();
  });

  describe.each(variants)('%s', (_name, headers) => {
    it.each(ops.map((op) => [op.operationId, op] as const))('%s -> 401 {"message":"Unauthenticated."}', async (_id, op) => {
      const { response, error } = await op.call(t.a.client, headers());
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(error).toEqual({ message: 'Unauthenticated.' });
    });
  });

  it('none of the rejected requests above created, changed or deleted anything', async () => {
    expect(await storedRows()).toEqual(before);
  });

  it('the valid key still works for every operation (the 401s are about the credentials)', async () => {
    // Deletes last, so every other operation still finds its record.
    for (const op of [...ops.filter((o) => o.method !== 'DELETE'), ...ops.filter((o) => o.method === 'DELETE')]) {
      const { response } = await op.call(t.a.client);
      expect(response.status, op.operationId).toBe(200);
    }
    // Fresh records for the tests below.
    ids.openLink = (await t.a.client.POST('/open-payment-links', { body: openLinkBody })).data!.data._id;
    ids.paymentLink = (await t.a.client.POST('/payment-links', { body: paymentLinkBody })).data!.data._id;
    before = await storedRows();
  });

  it('a 401 is the same for every kind of bad credential (nothing tells a revoked key from an unknown one)', async () => {
    const bodies = new Set<string>();
    for (const [, headers] of variants) {
      const response = await raw(`${t.apiUrl}/payment-links`, {
        headers: Object.fromEntries(Object.entries(headers()).filter(([, v]) => v !== null)) as Record<string, string>,
      });
      expect(response.status).toBe(401);
      expectJsonError(response, 'Unauthenticated.');
      bodies.add(response.text);
    }
    expect(bodies.size).toBe(1);
  });

  it('the rejected requests changed nothing', async () => {
    for (const op of bodyOps) await op.call(t.a.client, { Authorization: null });
    for (const op of ops.filter((o) => o.method === 'DELETE')) await op.call(t.clientFor(revokedKey));
    expect(await storedRows()).toEqual(before);
  });
});

describe('401 comes before validation and before body errors', () => {
  const anonymous = [
    ['no key', undefined],
    ['an unknown key', `sk_${'A'.repeat(43)}`],
  ] as const;

  describe.each(anonymous)('with %s', (_name, key) => {
    it.each(bodyOps.map((op) => [op.operationId, op] as const))('%s: an invalid body -> 401', async (_id, op) => {
      const response = await raw(`${t.apiUrl}${op.path()}`, {
        method: op.method,
        key,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'x'.repeat(51), amount: 'lots', currency: 'myr' }),
      });
      expect(response.status).toBe(401);
      expectJsonError(response, 'Unauthenticated.');
      await conforms(op.method, `/api${op.path()}`, response);
    });

    it.each(bodyOps.map((op) => [op.operationId, op] as const))('%s: malformed JSON -> 401', async (_id, op) => {
      const response = await raw(`${t.apiUrl}${op.path()}`, {
        method: op.method,
        key,
        headers: { 'Content-Type': 'application/json' },
        body: '{"email": "payer@example.com",',
      });
      expect(response.status).toBe(401);
      expectJsonError(response, 'Unauthenticated.');
    });

    it.each(bodyOps.map((op) => [op.operationId, op] as const))('%s: a text/plain body -> 401', async (_id, op) => {
      const response = await raw(`${t.apiUrl}${op.path()}`, {
        method: op.method,
        key,
        headers: { 'Content-Type': 'text/plain' },
        body: JSON.stringify(op.body),
      });
      expect(response.status).toBe(401);
      expectJsonError(response, 'Unauthenticated.');
    });

    it.each(bodyOps.map((op) => [op.operationId, op] as const))('%s: a body over 1 MiB -> 401', async (_id, op) => {
      const response = await raw(`${t.apiUrl}${op.path()}`, {
        method: op.method,
        key,
        headers: { 'Content-Type': 'application/json' },
        body: paddedBody(MiB + 1),
      });
      expect(response.status).toBe(401);
      expectJsonError(response, 'Unauthenticated.');
    });
  });
});

describe('400 for a body that is not valid JSON', () => {
  const malformed = ['{"email": "payer@example.com",', "{'title': 'single quotes'}", '{"title": "x"} trailing', '{"amount": 01}', 'not json at all', '{'];

  describe.each(bodyOps.map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
    it.each(malformed)('%j -> 400', async (body) => {
      const response = await raw(`${t.apiUrl}${op.path()}`, { method: op.method, key: t.a.key, headers: { 'Content-Type': 'application/json' }, body });
      expect(response.status).toBe(400);
      expectJsonError(response, 'The request body is not valid JSON.');
      await conforms(op.method, `/api${op.path()}`, response);
    });
  });
});

describe('400 for a body with a __proto__ member, at any depth', () => {
  const poisoned = ['{"__proto__": {"paid": true}}', '{"title": "x", "meta": {"__proto__": {"admin": true}}}', '[{"__proto__": 1}]'];

  describe.each(bodyOps.map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
    it.each(poisoned)('%j -> 400, naming the member', async (body) => {
      const response = await raw(`${t.apiUrl}${op.path()}`, { method: op.method, key: t.a.key, headers: { 'Content-Type': 'application/json' }, body });
      expect(response.status).toBe(400);
      expectJsonError(response, 'The request body must not contain a "__proto__" member.');
      await conforms(op.method, `/api${op.path()}`, response);
      expect(({} as Record<string, unknown>).paid).toBeUndefined();
    });
  });
});

describe('415 for a body that is not JSON', () => {
  const form = new URLSearchParams({
    email: 'payer@example.com',
    currency: 'MYR',
    amount: '1000',
    title: 'Invoice',
    minimum_amount: '10.00',
    description: 'd',
  }).toString();
  const cases: [string, string, (op: Op) => string][] = [
    ['text/plain', 'text/plain', (op) => JSON.stringify(op.body)],
    ['text/plain; charset=utf-8', 'text/plain; charset=utf-8', (op) => JSON.stringify(op.body)],
    ['a form body', 'application/x-www-form-urlencoded', () => form],
    ['a multipart form body', 'multipart/form-data; boundary=xyz', () => '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nInvoice\r\n--xyz--\r\n'],
  ];

  describe.each(bodyOps.map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
    it.each(cases)('%s -> 415', async (_name, contentType, body) => {
      const response = await raw(`${t.apiUrl}${op.path()}`, { method: op.method, key: t.a.key, headers: { 'Content-Type': contentType }, body: body(op) });
      expect(response.status).toBe(415);
      expectJsonError(response);
      await conforms(op.method, `/api${op.path()}`, response);
    });
  });

  it('application/json with a charset parameter is accepted (not 415)', async () => {
    const response = await raw(`${t.apiUrl}/payment-links`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: JSON.stringify(paymentLinkBody),
    });
    expect(response.status).toBe(200);
    await conforms('POST', '/api/payment-links', response);
  });

  it('a rejected body creates nothing', async () => {
    const before = await storedRows();
    await raw(`${t.apiUrl}/payment-links`, { method: 'POST', key: t.a.key, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
    await raw(`${t.apiUrl}/payment-links`, { method: 'POST', key: t.a.key, headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(paymentLinkBody) });
    expect(await storedRows()).toEqual(before);
  });
});

describe('413 for a body over 1 MiB', () => {
  it.each(bodyOps.map((op) => [op.operationId, op] as const))('%s: 1 MiB + 1 byte -> 413', async (_id, op) => {
    const response = await raw(`${t.apiUrl}${op.path()}`, {
      method: op.method,
      key: t.a.key,
      headers: { 'Content-Type': 'application/json' },
      body: paddedBody(MiB + 1),
    });
    expect(response.status).toBe(413);
    expectJsonError(response);
    await conforms(op.method, `/api${op.path()}`, response);
  });

  it('a much larger body (5 MiB) -> 413 and creates nothing', async () => {
    const before = await t.sql('payment_links').count({ n: '*' }).first();
    const response = await raw(`${t.apiUrl}/payment-links`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'Content-Type': 'application/json' },
      body: paddedBody(5 * MiB),
    });
    expect(response.status).toBe(413);
    expectJsonError(response);
    expect(await t.sql('payment_links').count({ n: '*' }).first()).toEqual(before);
  });

  it.each([
    ['1 MiB - 1 byte', MiB - 1],
    ['exactly 1 MiB', MiB],
  ])('a body of %s is not 413: the payment link is created (the unknown padding field is ignored)', async (_name, size) => {
    const response = await raw(`${t.apiUrl}/payment-links`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'Content-Type': 'application/json' },
      body: paddedBody(size),
    });
    expect(response.status).not.toBe(413);
    expect(response.status).toBe(200);
    await conforms('POST', '/api/payment-links', response);
    const data = (response.body as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({ email: paymentLinkBody.email, amount: 1000, title: paymentLinkBody.title });
    expect(data).not.toHaveProperty('padding');
  });
});

describe('404 for an unknown path, JSON and never HTML', () => {
  const paths = [
    '/api/does-not-exist',
    '/api',
    '/api/',
    '/api/payment-links/abc/def',
    '/api/tokenization',
    '/api/tokenizations/create-token/extra',
    '/api/open-payment-links/abc/bottom-collection',
    '/api/v2/payment-links',
    '/does-not-exist',
    '/payment-links',
    '/index.html',
    '/wp-login.php',
  ];

  it.each(paths)('GET %s -> 404 {message}', async (path) => {
    for (const headers of [{ Accept: 'application/json' }, { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }]) {
      const response = await raw(`${t.url}${path}`, { key: t.a.key, headers });
      expect(response.status).toBe(404);
      await assertErrorBody(response.status, response.contentType, response.body);
      expect(response.text).not.toMatch(/<html|<!doctype|<body/i);
      expectJsonError(response);
    }
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s on an unknown path -> 404 {message}', async (method) => {
    for (const path of ['/api/does-not-exist', '/does-not-exist']) {
      const response = await raw(`${t.url}${path}`, { method, key: t.a.key, headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(404);
      await assertErrorBody(response.status, response.contentType, response.body);
      expectJsonError(response);
    }
  });

  it('an unknown path under /api without a key is still JSON (404 or 401), never HTML', async () => {
    const response = await raw(`${t.apiUrl}/does-not-exist`, { headers: { Accept: 'text/html' } });
    expect([401, 404]).toContain(response.status);
    await assertErrorBody(response.status, response.contentType, response.body);
    expectJsonError(response);
  });

  it.each(['/api/payment-links/%E0%A4%A', '/api/payment-links/%ZZ', '/%E0%A4%A', '/api/open-payment-links/%00/total-collection'])(
    'a malformed or odd percent-encoding (%s) is a JSON 4xx, not a 500 with internals',
    async (path) => {
      const response = await raw(`${t.url}${path}`, { key: t.a.key });
      await assertErrorBody(response.status, response.contentType, response.body);
      expectJsonError(response);
      // Not an id of any record: a client error (404 like any unknown id, or 400), not a server error.
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    },
  );
});

describe('405 with Allow for a known path and a wrong method', () => {
  const pathsAndAllowed: [string, () => string, string[]][] = [
    // GET /tokenizations/create-token is getToken with token_id "create-token" (a 404), so GET is defined there too.
    ['/tokenizations/create-token', () => '/tokenizations/create-token', ['GET', 'POST']],
    ['/tokenizations/{token_id}', () => `/tokenizations/${ids.token}`, ['GET']],
    ['/open-payment-links', () => '/open-payment-links', ['GET', 'POST']],
    ['/open-payment-links/{id}', () => `/open-payment-links/${ids.openLink}`, ['GET', 'PUT', 'DELETE']],
    ['/open-payment-links/{id}/total-collection', () => `/open-payment-links/${ids.openLink}/total-collection`, ['GET']],
    ['/open-payment-links/{id}/top-collection', () => `/open-payment-links/${ids.openLink}/top-collection`, ['GET']],
    ['/open-payment-links/{id}/qr', () => `/open-payment-links/${ids.openLink}/qr`, ['GET']],
    ['/payment-links', () => '/payment-links', ['GET', 'POST']],
    ['/payment-links/{id}', () => `/payment-links/${ids.paymentLink}`, ['GET', 'PUT', 'DELETE']],
    ['/payment-links/{id}/qr', () => `/payment-links/${ids.paymentLink}/qr`, ['GET']],
  ];
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const cases = pathsAndAllowed.flatMap(([template, path, allowed]) =>
    methods.filter((m) => !allowed.includes(m)).map((method) => [method, template, path, allowed] as const),
  );

  it('the expected Allow lists are the methods openapi.yaml defines for each path', async () => {
    for (const [template, path, allowed] of pathsAndAllowed) {
      const defined: string[] = [];
      for (const method of methods) if (await operationFor(method, `/api${path()}`)) defined.push(method);
      expect(defined.sort(), template).toEqual([...allowed].sort());
    }
  });

  it.each(cases)('%s %s -> 405, Allow lists exactly the defined methods', async (method, _template, path, allowed) => {
    const response = await raw(`${t.apiUrl}${path()}`, {
      method,
      key: t.a.key,
      ...(method === 'GET' || method === 'DELETE' ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(paymentLinkBody) }),
    });
    expect(response.status).toBe(405);
    await assertErrorBody(response.status, response.contentType, response.body);
    expectJsonError(response);
    const allow = response.headers.get('allow');
    expect(allow).not.toBeNull();
    expect(
      allow!
        .split(',')
        .map((m) => m.trim())
        .sort(),
    ).toEqual([...allowed].sort());
  });

  it('PATCH /api/payment-links -> Allow "GET, POST"; POST /api/payment-links/{id} -> Allow "GET, PUT, DELETE"', async () => {
    const patch = await raw(`${t.apiUrl}/payment-links`, { method: 'PATCH', key: t.a.key, headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, POST');
    const post = await raw(`${t.apiUrl}/payment-links/${ids.paymentLink}`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, PUT, DELETE');
  });

  it('a wrong method changes nothing (POST on a record does not create or update it)', async () => {
    const before = await storedRows();
    await raw(`${t.apiUrl}/payment-links/${ids.paymentLink}`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...paymentLinkBody, title: 'Hijacked' }),
    });
    await raw(`${t.apiUrl}/payment-links/${ids.paymentLink}`, {
      method: 'PATCH',
      key: t.a.key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Hijacked' }),
    });
    await raw(`${t.apiUrl}/open-payment-links`, { method: 'DELETE', key: t.a.key });
    expect(await storedRows()).toEqual(before);
  });
});

describe('422 for a JSON body that is not an object', () => {
  const bodies: [string, unknown][] = [
    ['null', null],
    ['[]', []],
    ['"x"', 'x'],
    ['3', 3],
  ];
  const fieldText = (field: string) => `The ${field.replace(/_/g, ' ')} field is required.`;

  describe.each(bodyOps.map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
    it.each(bodies)('body %s -> 422 listing every required field', async (_text, body) => {
      const { response, error } = await op.call(t.a.client, undefined, body);
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
      const expected = Object.fromEntries(op.required!.map((field) => [field, [fieldText(field)]]));
      expect(error).toEqual({ message: 'The given data was invalid.', errors: expected });
    });
  });

  it('none of those bodies created or changed anything', async () => {
    const before = await storedRows();
    for (const op of bodyOps) for (const [, body] of bodies) await op.call(t.a.client, undefined, body);
    expect(await storedRows()).toEqual(before);
  });
});

describe('error bodies never leak internals', () => {
  it('a collection of error responses are all JSON {message} without stack frames or paths', async () => {
    const requests: [string, RequestInit & { key?: string }][] = [
      [`${t.apiUrl}/payment-links/${'f'.repeat(24)}`, { key: t.a.key }],
      [`${t.apiUrl}/payment-links/${'x'.repeat(5000)}`, { key: t.a.key }],
      [`${t.apiUrl}/open-payment-links/'%20OR%201=1--/total-collection`, { key: t.a.key }],
      [`${t.apiUrl}/payment-links?page=0&per_page=1000&sort=bogus`, { key: t.a.key }],
      [`${t.apiUrl}/payment-links?filter[created_at_between]=2022-13-45,nope`, { key: t.a.key }],
      [`${t.apiUrl}/payment-links?filter=oops&filter[status]=Active`, { key: t.a.key }],
      [`${t.apiUrl}/payment-links?page[a]=1&per_page[]=2`, { key: t.a.key }],
      [
        `${t.apiUrl}/payment-links`,
        {
          method: 'POST',
          key: t.a.key,
          headers: { 'Content-Type': 'application/json' },
          body: '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}',
        },
      ],
      [
        `${t.apiUrl}/payment-links`,
        {
          method: 'POST',
          key: t.a.key,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...paymentLinkBody, amount: 1e308, email: ['a'], title: { $gt: '' } }),
        },
      ],
      [
        `${t.apiUrl}/payment-links`,
        { method: 'POST', key: t.a.key, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: '{"not": "gzip"}' },
      ],
      [`${t.apiUrl}/payment-links`, { method: 'POST', key: t.a.key, headers: { 'Content-Type': 'application/json' }, body: '\u0000\u0001' }],
    ];
    for (const [url, init] of requests) {
      const response = await raw(url, init);
      expect(response.status, url).toBeGreaterThanOrEqual(400);
      expect(response.status, `${url}: a server error`).toBeLessThan(500);
      expectJsonError(response);
    }
  });
});

describe('500 Server Error. discloses nothing', () => {
  it('a failing database (a table gone) is answered 500 {"message":"Server Error."}, nothing internal', async () => {
    await t.sql.schema.renameTable('payment_links', 'payment_links_hidden');
    try {
      const list = await t.a.client.GET('/payment-links');
      const one = await t.a.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: ids.paymentLink } } });
      for (const { response, error } of [list, one]) {
        expect(response.status).toBe(500);
        expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
        expect(error).toEqual({ message: 'Server Error.' });
      }
      const text = await raw(`${t.apiUrl}/payment-links`, { key: t.a.key });
      expect(text.status).toBe(500);
      expectNoLeak(text.text);
      expect(text.text).not.toMatch(/payment_links|select|no such table/i);
    } finally {
      await t.sql.schema.renameTable('payment_links_hidden', 'payment_links');
    }
    expect((await t.a.client.GET('/payment-links')).response.status).toBe(200);
  });
});
