// Records in every state a business can have (unpaid, paid, paused, expired and deleted payment
// links; an open link with collections, an exhausted one and a deleted one; a pending and an active
// token; payments paid, refunded in part and in full, failed and pending, and a charge on the saved
// card; a webhook endpoint whose key was rotated), and two complete views of a business: what its
// own key can read through the API, and every row the database holds for it.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Knex } from 'knex';
import { newId } from '../../server/domain/ids.js';
import { isoMicros } from '../../server/domain/time.js';
import { setWebhook } from '../../server/store/businesses.js';
import { expireDueLinks } from '../../server/usecases/merchant/expiry-sweep.js';
import { member, signIn } from '../support/members.js';
import { DECLINED_CARD, GOOD_CARD, Payer } from '../support/payer.js';
import { raw, type Tenant, type TestService } from '../support/service.js';
import { apiPath, loadSpec, queryString, type SpecOperation } from './spec.js';

/** The record kind each path parameter of openapi.yaml names. A new parameter must be added here. */
export const KIND_OF_PARAM: Record<string, Kind> = {
  token_id: 'token',
  open_payment_link_id: 'openLink',
  payment_link_id: 'paymentLink',
  payment_id: 'payment',
  event_id: 'event',
  webhook_endpoint_id: 'webhookEndpoint',
  api_key_id: 'apiKey',
  balance_transaction_id: 'balanceTransaction',
  payout_id: 'payout',
  bank_statement_id: 'bankStatement',
};
export type Kind =
  'token' | 'openLink' | 'paymentLink' | 'payment' | 'event' | 'webhookEndpoint' | 'apiKey' | 'balanceTransaction' | 'payout' | 'bankStatement';

/** A weekday long after any fixture's payment is available: the sandbox's payouts as of it take everything. */
export const PAYOUT_DAY = '2030-01-02';
/** A statement with one deposit line, which matches no payout. */
export const STATEMENT = { format: 'generic', csv: 'Date,Amount\n02/01/2030,1.00\n', columns: { date: 'Date', amount: 'Amount' } };

export interface TenantRecords {
  /** Every id of each kind, live, paid, active or deleted. */
  ids: Record<Kind, string[]>;
  /** One live, unpaid/active record of each kind, for calls that must succeed. */
  live: Record<Kind, string>;
  tokenValues: string[];
  /** Payments: the paid link's, the open link's collections, the exhausted link's, the charge, a failed and a pending one. */
  paymentIds: string[];
  /** Refunds of the open link's collections: one refunded in two parts, one in part. */
  refundIds: string[];
  attemptIds: string[];
  references: string[];
  emails: string[];
  /** The Idempotency-Key and body of the business's first payment link. */
  idempotency: { key: string; body: Record<string, unknown> };
  /** The full API records, by id, as created. */
  created: Record<string, Record<string, unknown>>;
}

type Json = Record<string, unknown>;

export async function api(t: TestService, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return raw(`${t.url}${path}`, {
    key,
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function created(t: TestService, tenant: Tenant, path: string, body: Json, headers: Record<string, string> = {}): Promise<Json> {
  const response = await api(t, tenant.key, 'POST', `/api${path}`, body, headers);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  return (response.body as { data: Json }).data;
}

/** Pays through the hosted page, as a payer would; returns the payment id from the redirect. */
/**
 * What the team operations' paths name, in business A: a viewer they may change and remove
 * (`user_id`), and an invitation an owner sent that they may revoke (`invitation_id`).
 */
export async function teamRecords(t: TestService): Promise<{ user_id: string; invitation_id: string }> {
  const user_id = (await member(t, t.a.business.id, 'viewer')).userId;
  const owner = await signIn(t, (await member(t, t.a.business.id, 'owner')).email);
  const invited = await raw(`${t.url}/api/team/invitations`, {
    method: 'POST',
    headers: { Cookie: `pcs_session=${owner.cookie}`, 'X-CSRF-Token': owner.csrf, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'invitee@example.com', role: 'support' }),
  });
  expect(invited.status, invited.text).toBe(200);
  return { user_id, invitation_id: (invited.body as { data: { _id: string } }).data._id };
}

/**
 * One record of each kind for a tenant (A unless told), by the path parameter that names it
 * (`payment_link_id`, ...): the token has a saved card, so it can be charged, and the payment is
 * of the largest amount a link takes, so it can be refunded in many parts.
 */
export async function oneOfEach(t: TestService, tenant: Tenant = t.a): Promise<Record<string, string>> {
  const create = async (path: string, body: Record<string, unknown>) => ((await api(t, tenant.key, 'POST', path, body)).body as { data: Json }).data;
  // A webhook (on a loopback port nobody listens on), so the payment below makes an event.
  await setWebhook(
    t.service.db,
    tenant.business.id,
    { url: 'http://127.0.0.1:9/hooks', secret: 'whsec_oneOfEach_fixture_key_0123456789' },
    t.service.secretsKey,
  );
  const token = await create('/api/tokenizations/create-token', { email: 'payer@example.com', title: 'Card', description: 'Plan' });
  await activateThroughPage(t, token.activation_url as string);
  const paid = await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 3000000, title: 'Paid' });
  return {
    payment_link_id: (await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' }))._id as string,
    open_payment_link_id: (await create('/api/open-payment-links', { currency: 'MYR', minimum_amount: '10.00', title: 'Donations' }))._id as string,
    token_id: token._id as string,
    payment_id: await payThroughPage(t, paid.payment_url as string, {}),
    event_id: (await t.sql('outbox').where({ business_id: tenant.business.id, channel: 'webhook' }).orderBy('id', 'desc').first('event_id')).event_id as string,
    webhook_endpoint_id: (await t.sql('webhook_endpoints').where({ business_id: tenant.business.id }).orderBy('id').first('_id'))._id as string,
    api_key_id: (await create('/api/api-keys', { name: 'Reporting', permissions: ['payments:read'] }))._id as string,
    balance_transaction_id: (await t.sql('balance_transactions').where({ business_id: tenant.business.id }).first('_id'))._id as string,
    payout_id: ((await api(t, tenant.key, 'POST', '/api/test-helpers/payouts', { as_of: PAYOUT_DAY })).body as { data: Json[] }).data[0]!._id as string,
    bank_statement_id: (await create('/api/bank-statements', STATEMENT))._id as string,
  };
}

export async function payThroughPage(t: TestService, paymentUrl: string, fields: Record<string, string>): Promise<string> {
  const url = new URL(paymentUrl);
  const payer = new Payer(t.url);
  const form = await payer.open(url.pathname + url.search);
  const paid = await payer.submit(form, { name: 'Payer Name', ...fields, ...GOOD_CARD });
  expect(paid.status, paid.html).toBe(303);
  return new URL(paid.location!).searchParams.get('payment_id')!;
}

/** Submits a hosted payment page with a card that is declined (402); returns the failed attempt's payment id. */
export async function failThroughPage(t: TestService, linkId: string, paymentUrl: string, fields: Record<string, string>): Promise<string> {
  const url = new URL(paymentUrl);
  const payer = new Payer(t.url);
  const declined = await payer.submit(await payer.open(url.pathname + url.search), { name: 'Payer Name', ...fields, ...DECLINED_CARD });
  expect(declined.status, declined.html).toBe(402);
  const failed = (await t.sql('payments').where({ open_payment_link_id: linkId, status_id: 3 }).orderBy('created_at', 'desc').first('_id')) as { _id: string };
  return failed._id;
}

export async function activateThroughPage(t: TestService, activationUrl: string): Promise<void> {
  const payer = new Payer(t.url);
  const form = await payer.open(new URL(activationUrl).pathname);
  const saved = await payer.submit(form, { name: 'Card Holder', ...GOOD_CARD });
  expect(saved.status, saved.html).toBe(303);
}

/** A payment link of a tenant's whose e-mail and references carry `tag`, so a leak says whose it is. */
export const paymentLinkBody = (tag: string) => ({
  email: `payer-${tag}@example.com`,
  currency: 'MYR',
  amount: 1500,
  title: `Invoice ${tag}`,
  reference: `REF-${tag}`,
  reference_2: `R2-${tag}`,
});

/** Records of every kind and state for a tenant; `tag` keeps its references and e-mails its own. */
export async function seed(t: TestService, tenant: Tenant, tag: string): Promise<TenantRecords> {
  const idempotencyBody = { ...paymentLinkBody(tag), send_email: true };
  const idempotencyKey = `idem-${tag}-first-link`;
  const unpaid = await created(t, tenant, '/payment-links', idempotencyBody, { 'Idempotency-Key': idempotencyKey });
  const paid = await created(t, tenant, '/payment-links', {
    email: `paid-${tag}@example.com`,
    currency: 'MYR',
    amount: 2500,
    title: `Paid ${tag}`,
    reference: `PAID-${tag}`,
  });
  const deleted = await created(t, tenant, '/payment-links', {
    email: `gone-${tag}@example.com`,
    currency: 'MYR',
    amount: 900,
    title: `Deleted ${tag}`,
    reference: `GONE-${tag}`,
  });
  const open = await created(t, tenant, '/open-payment-links', {
    currency: 'MYR',
    minimum_amount: '10.00',
    title: `Donations ${tag}`,
    reference: `OPEN-${tag}`,
    reference_2: `OPEN2-${tag}`,
  });
  const openDeleted = await created(t, tenant, '/open-payment-links', {
    currency: 'SGD',
    minimum_amount: '5.00',
    title: `Old drive ${tag}`,
    reference: `OLD-${tag}`,
  });
  const pending = await created(t, tenant, '/tokenizations/create-token', {
    email: `card-${tag}@example.com`,
    title: `Card ${tag}`,
    description: `Plan ${tag}`,
  });
  const active = await created(t, tenant, '/tokenizations/create-token', {
    email: `active-${tag}@example.com`,
    title: `Active ${tag}`,
    description: `Saved ${tag}`,
  });

  // A webhook (on a loopback port nobody listens on) so the tenant has events of its own.
  await setWebhook(
    t.service.db,
    tenant.business.id,
    { url: 'http://127.0.0.1:9/hooks', secret: `whsec_${tag}_fixture_key_0123456789abcdef` },
    t.service.secretsKey,
  );
  // A second endpoint, for refunds only, registered through the API.
  const endpoint = await created(t, tenant, '/webhook-endpoints', {
    url: `http://127.0.0.1:9/${tag}/refunds`,
    description: `Refunds ${tag}`,
    enabled_events: ['refund.succeeded', 'refund.failed'],
  });
  // A link that takes one payment, and takes it.
  const exhausted = await created(t, tenant, '/open-payment-links', {
    currency: 'MYR',
    minimum_amount: '10.00',
    title: `One-off ${tag}`,
    reference: `ONCE-${tag}`,
    max_payments: 1,
  });
  const paused = await created(t, tenant, '/payment-links', {
    email: `paused-${tag}@example.com`,
    currency: 'MYR',
    amount: 1200,
    title: `Paused ${tag}`,
    reference: `PAUSED-${tag}`,
  });
  const expiring = await created(t, tenant, '/payment-links', {
    email: `late-${tag}@example.com`,
    currency: 'MYR',
    amount: 1300,
    title: `Expired ${tag}`,
    reference: `LATE-${tag}`,
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const paymentIds = [
    await payThroughPage(t, paid.payment_url as string, {}),
    await payThroughPage(t, open.payment_url as string, { amount: '42.00', name: `Aisyah ${tag}`, email: `aisyah-${tag}@example.com` }),
    await payThroughPage(t, open.payment_url as string, { amount: '17.50', name: `Wei ${tag}`, email: `wei-${tag}@example.com` }),
    await payThroughPage(t, openDeleted.payment_url as string, { amount: '30.00', name: `Nur ${tag}`, email: `nur-${tag}@example.com` }),
    await payThroughPage(t, exhausted.payment_url as string, { amount: '11.00', name: `Siti ${tag}`, email: `siti-${tag}@example.com` }),
    await failThroughPage(t, open._id as string, open.payment_url as string, { amount: '99.00', name: `Ali ${tag}`, email: `ali-${tag}@example.com` }),
  ];
  await activateThroughPage(t, active.activation_url as string);
  // A charge on the saved card.
  paymentIds.push(
    (await created(t, tenant, `/tokenizations/${active._id}/charges`, { amount: 4990, currency: 'MYR', description: `Plan ${tag}`, reference: `CHG-${tag}` }))
      ._id as string,
  );
  // A payment the acquirer has taken but not yet settled (the sandbox always answers at once, so it
  // is written as a checkout leaves one waiting; with the acquirer's reference the pending sweep leaves it be).
  const pendingPayment = newId();
  await t.sql('payments').insert({
    _id: pendingPayment,
    business_id: tenant.business.id,
    payment_link_id: null,
    open_payment_link_id: open._id,
    tokenization_id: null,
    attempt_id: randomBytes(16).toString('hex'),
    amount: 2000,
    currency: 'MYR',
    status_id: 2,
    payer_name: `Tan ${tag}`,
    payer_email: `tan-${tag}@example.com`,
    method: 'card',
    provider: 'sandbox',
    provider_reference: `sbx_auth_${randomBytes(12).toString('hex')}`,
    card_brand: 'visa',
    card_last4: '4242',
    reference: `OPEN-${tag}`,
    description: `Donations ${tag}`,
    created_at: `${new Date().toISOString().slice(0, -1)}000Z`,
    updated_at: `${new Date().toISOString().slice(0, -1)}000Z`,
  });
  paymentIds.push(pendingPayment);

  const refunded = async (paymentId: string, body: Json) => (await created(t, tenant, `/payments/${paymentId}/refunds`, body))._id as string;
  const refundIds = [
    await refunded(paymentIds[1]!, { amount: 2100, reason: `Half back ${tag}` }),
    await refunded(paymentIds[1]!, { reason: `The rest ${tag}` }),
    await refunded(paymentIds[2]!, { amount: 500 }),
  ];

  expect((await api(t, tenant.key, 'POST', `/api/payment-links/${paused._id}/pause`)).status).toBe(200);
  expect((await api(t, tenant.key, 'POST', `/api/webhook-endpoints/${endpoint._id}/rotate-secret`)).status).toBe(200);
  expect((await api(t, tenant.key, 'DELETE', `/api/payment-links/${deleted._id}`)).status).toBe(200);
  expect((await api(t, tenant.key, 'DELETE', `/api/open-payment-links/${openDeleted._id}`)).status).toBe(200);
  // Expired and announced (payment_link.expired) before anything looks at the tenant: the API takes
  // only a future expires_at, so the row's is moved a second into the past rather than waited for,
  // and the sweep is run here rather than waited for, so no event can appear part-way through a suite.
  await t
    .sql('payment_links')
    .where({ _id: expiring._id })
    .update({ expires_at: isoMicros(new Date(Date.now() - 1_000)) });
  await expireDueLinks(t.service.context);
  const expired = (await api(t, tenant.key, 'GET', `/api/payment-links/${expiring._id}`)).body as { data: Json };
  expect(expired.data.status).toBe('Expired');
  expiring.expires_at = expired.data.expires_at;

  const attemptIds = (await t.sql('payments').whereIn('_id', paymentIds).pluck('attempt_id')) as string[];
  const eventIds = (await t.sql('outbox').where({ business_id: tenant.business.id, channel: 'webhook' }).orderBy('id').pluck('event_id')) as string[];
  expect(eventIds.length).toBeGreaterThan(0);
  const apiKey = await created(t, tenant, '/api-keys', { name: `Reporting ${tag}`, permissions: ['payments:read'] });
  const endpointIds = (await t.sql('webhook_endpoints').where({ business_id: tenant.business.id }).orderBy('id').pluck('_id')) as string[];
  const payout = ((await api(t, tenant.key, 'POST', '/api/test-helpers/payouts', { as_of: PAYOUT_DAY })).body as { data: Json[] }).data[0]!;
  const statement = await created(t, tenant, '/bank-statements', STATEMENT);
  const entryIds = (await t.sql('balance_transactions').where({ business_id: tenant.business.id }).orderBy('_id').pluck('_id')) as string[];
  return {
    ids: {
      paymentLink: [unpaid, paid, deleted, paused, expiring].map((r) => r._id as string),
      openLink: [open, openDeleted, exhausted].map((r) => r._id as string),
      token: [pending, active].map((r) => r._id as string),
      payment: paymentIds,
      event: eventIds,
      webhookEndpoint: endpointIds,
      apiKey: [apiKey._id as string],
      balanceTransaction: entryIds,
      payout: [payout._id as string],
      bankStatement: [statement._id as string],
    },
    live: {
      paymentLink: unpaid._id as string,
      openLink: open._id as string,
      token: pending._id as string,
      payment: paymentIds[0]!,
      event: eventIds[0]!,
      webhookEndpoint: endpoint._id as string,
      apiKey: apiKey._id as string,
      balanceTransaction: entryIds[0]!,
      payout: payout._id as string,
      bankStatement: statement._id as string,
    },
    tokenValues: [pending, active].map((r) => r.token as string),
    paymentIds,
    refundIds,
    attemptIds,
    references: [
      `REF-${tag}`,
      `R2-${tag}`,
      `PAID-${tag}`,
      `GONE-${tag}`,
      `OPEN-${tag}`,
      `OPEN2-${tag}`,
      `OLD-${tag}`,
      `ONCE-${tag}`,
      `PAUSED-${tag}`,
      `LATE-${tag}`,
      `CHG-${tag}`,
    ],
    emails: [
      `payer-${tag}@example.com`,
      `paid-${tag}@example.com`,
      `gone-${tag}@example.com`,
      `paused-${tag}@example.com`,
      `late-${tag}@example.com`,
      `aisyah-${tag}@example.com`,
      `active-${tag}@example.com`,
    ],
    idempotency: { key: idempotencyKey, body: idempotencyBody },
    created: Object.fromEntries(
      [unpaid, paid, deleted, paused, expiring, open, openDeleted, exhausted, pending, active, endpoint, apiKey, statement].map((r) => [r._id as string, r]),
    ),
  };
}

/** Every identifier a tenant owns, of any kind: each may be tried in any id slot. */
export function allIdsOf(records: TenantRecords): string[] {
  return [
    ...records.ids.paymentLink,
    ...records.ids.openLink,
    ...records.ids.token,
    ...records.tokenValues,
    ...records.ids.payment,
    ...records.refundIds,
    ...records.ids.event,
    ...records.ids.webhookEndpoint,
    ...records.ids.apiKey,
    ...records.ids.balanceTransaction,
    ...records.ids.payout,
    ...records.ids.bankStatement,
  ];
}

/** The largest value a query parameter allows, e.g. per_page or filter[limit]. */
function maximumOf(operation: SpecOperation, name: string): number | undefined {
  return operation.query.find((p) => p.name === name)?.schema.maximum;
}

/**
 * Everything the tenant's own key can read: every page of every list, and every GET that takes an
 * id, for every id of the tenant (deleted ones included, so an "undelete" would show), with the
 * largest report the spec allows. Response data only: `meta` carries the clock; an image as its text.
 */
/** What a read shows that moves by itself as the tenant makes requests: when each key was last used. */
const VOLATILE_IN_API: Record<string, string[]> = { listApiKeys: ['last_used_at'] };

function withoutVolatile<T>(operationId: string, data: T): T {
  const volatile = VOLATILE_IN_API[operationId];
  if (!volatile || !Array.isArray(data)) return data;
  return data.map((item: Json) => Object.fromEntries(Object.entries(item).filter(([field]) => !volatile.includes(field)))) as T;
}

export async function apiView(t: TestService, tenant: Tenant, records: TenantRecords): Promise<Json> {
  const spec = await loadSpec();
  const view: Json = {};
  const reads: Promise<void>[] = [];
  for (const operation of spec.operations.filter((o) => o.method === 'GET')) {
    if (operation.pathParams.length === 0) {
      reads.push(
        (async () => {
          const perPage = maximumOf(operation, 'per_page');
          // A list that is not paginated (the webhook endpoints, at most 16) takes no page.
          const paged = operation.query.some((p) => p.name === 'page');
          const pages: unknown[] = [];
          for (let page = 1; page < 1000; page += 1) {
            const path = `${apiPath(operation.template, {})}${queryString(paged ? (perPage ? { per_page: perPage, page } : { page }) : {})}`;
            const response = await api(t, tenant.key, 'GET', path);
            expect(response.status, `${path}: ${response.text}`).toBe(200);
            const data = (response.body as { data: { data: unknown[]; next_page_url: string | null } }).data;
            pages.push(withoutVolatile(operation.operationId, data));
            if (!data.next_page_url) break;
          }
          view[operation.operationId] = pages;
        })(),
      );
      continue;
    }
    if (operation.pathParams.length !== 1) throw new Error(`${operation.template}: several path parameters; extend apiView`);
    const kind = KIND_OF_PARAM[operation.pathParams[0]!];
    if (!kind) throw new Error(`${operation.template}: path parameter {${operation.pathParams[0]}} names no record kind known to fixture.ts`);
    const limit = maximumOf(operation, 'filter[limit]');
    for (const id of records.ids[kind]) {
      reads.push(
        (async () => {
          const path = `${apiPath(operation.template, { [operation.pathParams[0]!]: id })}${queryString(limit ? { filter: { limit } } : {})}`;
          const response = await api(t, tenant.key, 'GET', path);
          // An answer that is not JSON (a link's QR code, an SVG) is kept whole, as text: a change to
          // what it encodes shows as surely as a change to a JSON record.
          if (!response.contentType?.startsWith('application/json')) {
            view[`${operation.operationId} ${id}`] = { status: response.status, contentType: response.contentType, text: response.text };
            return;
          }
          const body = response.body as { data?: unknown };
          view[`${operation.operationId} ${id}`] = { status: response.status, data: response.status === 200 ? body.data : body };
        })(),
      );
    }
  }
  await Promise.all(reads);
  return withoutDeliveryBookkeeping(view);
}

/** An event's delivery state moves on as the worker retries (the fixture's webhook never answers): not the tenant's data. */
const DELIVERY_FIELDS = ['status', 'delivery_success', 'attempts', 'next_attempt_at', 'delivered_at', 'last_error', 'endpoints', 'deliveries'];

function withoutDeliveryBookkeeping(view: Json): Json {
  const strip = (event: unknown) =>
    event && typeof event === 'object' ? Object.fromEntries(Object.entries(event).filter(([key]) => !DELIVERY_FIELDS.includes(key))) : event;
  return Object.fromEntries(
    Object.entries(view).map(([key, value]) => {
      if (key === 'listEvents') return [key, (value as { data: unknown[] }[]).map((page) => ({ ...page, data: page.data.map(strip) }))];
      // An endpoint's attempts are nothing but that bookkeeping: who may read them is what counts.
      if (key.startsWith('listWebhookEndpointDeliveries ')) {
        const read = value as { status: number; data: unknown };
        return [key, read.status === 200 ? { status: read.status } : read];
      }
      if (key.startsWith('getEvent ')) {
        const read = value as { status: number; data: unknown };
        return [key, read.status === 200 ? { ...read, data: strip(read.data) } : read];
      }
      return [key, value];
    }),
  );
}

/** Delivery bookkeeping of the outbox changes as the worker runs; what was enqueued does not. */
const VOLATILE: Record<string, string[]> = {
  outbox: ['status', 'attempts', 'next_attempt_at', 'lease_owner', 'lease_expires_at', 'last_error', 'updated_at', 'delivered_at'],
  // How an event's deliveries stand, moved by the outbox's status as the worker tries them.
  webhook_events: ['undelivered', 'failing', 'outcome'],
  // When a key was last used moves with every request the key makes, refused or not.
  api_keys: ['last_used_at'],
};

/**
 * Rows the delivery worker adds as it tries (an attempt carries its entry's business since migration
 * 0038): each belongs to an outbox entry, which the view holds.
 */
const WORKER_ROWS = ['outbox_attempts'];

async function tableNames(db: Knex): Promise<string[]> {
  if (db.client.config.client === 'pg') {
    const result = await db.raw(`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`);
    return (result.rows as { name: string }[]).map((r) => r.name);
  }
  const rows = (await db.raw(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)) as { name: string }[];
  return rows.map((r) => r.name);
}

/**
 * The tables that carry a business id, with the columns a view compares. The schema does not change
 * while a suite runs, and reading it is most of a view's cost on PostgreSQL (information_schema),
 * so it is read once per database.
 */
const viewedTables = new WeakMap<Knex, Promise<{ table: string; kept: string[] }[]>>();

function tablesToView(db: Knex): Promise<{ table: string; kept: string[] }[]> {
  let found = viewedTables.get(db);
  if (!found) {
    found = (async () => {
      const tables: { table: string; kept: string[] }[] = [];
      for (const table of (await tableNames(db)).sort()) {
        const columns = Object.keys(await db(table).columnInfo());
        if (columns.includes('business_id') && !WORKER_ROWS.includes(table)) tables.push({ table, kept: columns.filter((c) => !VOLATILE[table]?.includes(c)) });
      }
      return tables;
    })();
    viewedTables.set(db, found);
  }
  return found;
}

/** Every row of every table that carries the business's id (found by column, so new tables count too). */
export async function dbView(db: Knex, businessId: number): Promise<Json> {
  const view: Json = { business: await db('businesses').where({ id: businessId }).first() };
  for (const { table, kept } of await tablesToView(db)) {
    const rows = (await db(table).select(kept).where({ business_id: businessId })) as Json[];
    view[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return view;
}

export async function tenantView(t: TestService, tenant: Tenant, records: TenantRecords): Promise<Json> {
  return { api: await apiView(t, tenant, records), db: await dbView(t.sql, tenant.business.id) };
}

/**
 * Reads back a record a write made, through the GET that shows it: a charge is a payment; a refund
 * is found in its payment's list of refunds. `body.data` is the record, or undefined if not found.
 */
export async function readCreated(t: TestService, key: string, resource: string, record: Json): Promise<Awaited<ReturnType<typeof api>>> {
  if (resource === 'charges') return api(t, key, 'GET', `/api/payments/${record._id}`);
  // The business is one record per key, read without an id.
  if (resource === 'business') return api(t, key, 'GET', '/api/business');
  if (resource === 'api-keys') {
    const list = await api(t, key, 'GET', '/api/api-keys');
    const found = list.status === 200 ? (list.body as { data: Json[] }).data.find((made) => made._id === record._id) : undefined;
    return { ...list, status: found ? 200 : 404, body: { ...(list.body as Json), data: found } };
  }
  if (resource === 'refunds') {
    const list = await api(t, key, 'GET', `/api/payments/${record.payment_id}/refunds`);
    const found = list.status === 200 ? (list.body as { data: Json[] }).data.find((refund) => refund._id === record._id) : undefined;
    return { ...list, status: found ? 200 : 404, body: { ...(list.body as Json), data: found } };
  }
  return api(t, key, 'GET', `/api/${resource}/${record._id}`);
}
