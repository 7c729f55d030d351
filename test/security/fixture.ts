// Records in every state a business can have (unpaid, paid and deleted payment links; an open link
// with collections and a deleted one; a pending and an active token), and two complete views of a
// business: what its own key can read through the API, and every row the database holds for it.
import { expect } from 'vitest';
import type { Knex } from 'knex';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { raw, type Tenant, type TestService } from '../support/service.js';
import { apiPath, loadSpec, queryString, type SpecOperation } from './spec.js';

/** The record kind each path parameter of openapi.yaml names. A new parameter must be added here. */
export const KIND_OF_PARAM: Record<string, Kind> = {
  token_id: 'token',
  open_payment_link_id: 'openLink',
  payment_link_id: 'paymentLink',
  payment_id: 'payment',
};
export type Kind = 'token' | 'openLink' | 'paymentLink' | 'payment';

export interface TenantRecords {
  /** Every id of each kind, live, paid, active or deleted. */
  ids: Record<Kind, string[]>;
  /** One live, unpaid/active record of each kind, for calls that must succeed. */
  live: Record<Kind, string>;
  tokenValues: string[];
  /** Payments (collections and the paid link's payment). */
  paymentIds: string[];
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
/** One record of each kind for A, by the path parameter that names it (`payment_link_id`, ...). */
export async function oneOfEach(t: TestService): Promise<Record<string, string>> {
  const create = async (path: string, body: Record<string, unknown>) =>
    ((await api(t, t.a.key, 'POST', path, body)).body as { data: { _id: string } }).data._id;
  return {
    payment_link_id: await create('/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' }),
    open_payment_link_id: await create('/api/open-payment-links', { currency: 'MYR', minimum_amount: '10.00', title: 'Donations' }),
    token_id: await create('/api/tokenizations/create-token', { email: 'payer@example.com', title: 'Card', description: 'Plan' }),
    payment_id: await payThroughPage(
      t,
      (
        (await api(t, t.a.key, 'POST', '/api/payment-links', { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Paid' })).body as {
          data: { payment_url: string };
        }
      ).data.payment_url,
      {},
    ),
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

export async function activateThroughPage(t: TestService, activationUrl: string): Promise<void> {
  const payer = new Payer(t.url);
  const form = await payer.open(new URL(activationUrl).pathname);
  const saved = await payer.submit(form, { name: 'Card Holder', ...GOOD_CARD });
  expect(saved.status, saved.html).toBe(303);
}

/** Records of every kind and state for a tenant; `tag` keeps its references and e-mails its own. */
export async function seed(t: TestService, tenant: Tenant, tag: string): Promise<TenantRecords> {
  const idempotencyBody = {
    email: `payer-${tag}@example.com`,
    currency: 'MYR',
    amount: 1500,
    title: `Invoice ${tag}`,
    reference: `REF-${tag}`,
    reference_2: `R2-${tag}`,
    send_email: true,
  };
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

  const paymentIds = [
    await payThroughPage(t, paid.payment_url as string, {}),
    await payThroughPage(t, open.payment_url as string, { amount: '42.00', name: `Aisyah ${tag}`, email: `aisyah-${tag}@example.com` }),
    await payThroughPage(t, open.payment_url as string, { amount: '17.50', name: `Wei ${tag}`, email: `wei-${tag}@example.com` }),
    await payThroughPage(t, openDeleted.payment_url as string, { amount: '30.00', name: `Nur ${tag}`, email: `nur-${tag}@example.com` }),
  ];
  await activateThroughPage(t, active.activation_url as string);
  expect((await api(t, tenant.key, 'DELETE', `/api/payment-links/${deleted._id}`)).status).toBe(200);
  expect((await api(t, tenant.key, 'DELETE', `/api/open-payment-links/${openDeleted._id}`)).status).toBe(200);

  const attemptIds = (await t.sql('payments').whereIn('_id', paymentIds).pluck('attempt_id')) as string[];
  return {
    ids: {
      paymentLink: [unpaid, paid, deleted].map((r) => r._id as string),
      openLink: [open, openDeleted].map((r) => r._id as string),
      token: [pending, active].map((r) => r._id as string),
      payment: paymentIds,
    },
    live: { paymentLink: unpaid._id as string, openLink: open._id as string, token: pending._id as string, payment: paymentIds[0]! },
    tokenValues: [pending, active].map((r) => r.token as string),
    paymentIds,
    attemptIds,
    references: [`REF-${tag}`, `R2-${tag}`, `PAID-${tag}`, `GONE-${tag}`, `OPEN-${tag}`, `OPEN2-${tag}`, `OLD-${tag}`],
    emails: [`payer-${tag}@example.com`, `paid-${tag}@example.com`, `gone-${tag}@example.com`],
    idempotency: { key: idempotencyKey, body: idempotencyBody },
    created: Object.fromEntries([unpaid, paid, deleted, open, openDeleted, pending, active].map((r) => [r._id as string, r])),
  };
}

/** Every identifier a tenant owns, of any kind: each may be tried in any id slot. */
export function allIdsOf(records: TenantRecords): string[] {
  return [...records.ids.paymentLink, ...records.ids.openLink, ...records.ids.token, ...records.tokenValues, ...records.ids.payment];
}

/** The largest value a query parameter allows, e.g. per_page or filter[limit]. */
function maximumOf(operation: SpecOperation, name: string): number | undefined {
  return operation.query.find((p) => p.name === name)?.schema.maximum;
}

/**
 * Everything the tenant's own key can read: every page of every list, and every GET that takes an
 * id, for every id of the tenant (deleted ones included, so an "undelete" would show), with the
 * largest report the spec allows. Response data only: `meta` carries the clock.
 */
export async function apiView(t: TestService, tenant: Tenant, records: TenantRecords): Promise<Json> {
  const spec = await loadSpec();
  const view: Json = {};
  const reads: Promise<void>[] = [];
  for (const operation of spec.operations.filter((o) => o.method === 'GET')) {
    if (operation.pathParams.length === 0) {
      reads.push(
        (async () => {
          const perPage = maximumOf(operation, 'per_page');
          const pages: unknown[] = [];
          for (let page = 1; page < 1000; page += 1) {
            const path = `${apiPath(operation.template, {})}${queryString(perPage ? { per_page: perPage, page } : { page })}`;
            const response = await api(t, tenant.key, 'GET', path);
            expect(response.status, `${path}: ${response.text}`).toBe(200);
            const data = (response.body as { data: { data: unknown[]; next_page_url: string | null } }).data;
            pages.push(data);
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
          const body = response.body as { data?: unknown };
          view[`${operation.operationId} ${id}`] = { status: response.status, data: response.status === 200 ? body.data : body };
        })(),
      );
    }
  }
  await Promise.all(reads);
  return view;
}

/** Delivery bookkeeping of the outbox changes as the worker runs; what was enqueued does not. */
const VOLATILE: Record<string, string[]> = {
  outbox: ['status', 'attempts', 'next_attempt_at', 'lease_owner', 'lease_expires_at', 'last_error', 'updated_at', 'delivered_at'],
};

async function tableNames(db: Knex): Promise<string[]> {
  if (db.client.config.client === 'pg') {
    const result = await db.raw(`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`);
    return (result.rows as { name: string }[]).map((r) => r.name);
  }
  const rows = (await db.raw(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)) as { name: string }[];
  return rows.map((r) => r.name);
}

/** Every row of every table that carries the business's id (found by column, so new tables count too). */
export async function dbView(db: Knex, businessId: number): Promise<Json> {
  const view: Json = { business: await db('businesses').where({ id: businessId }).first() };
  for (const table of (await tableNames(db)).sort()) {
    const columns = Object.keys(await db(table).columnInfo());
    if (!columns.includes('business_id')) continue;
    const kept = columns.filter((c) => !VOLATILE[table]?.includes(c));
    const rows = (await db(table).select(kept).where({ business_id: businessId })) as Json[];
    view[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return view;
}

export async function tenantView(t: TestService, tenant: Tenant, records: TenantRecords): Promise<Json> {
  return { api: await apiView(t, tenant, records), db: await dbView(t.sql, tenant.business.id) };
}
