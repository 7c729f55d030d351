// OWASP API3 (broken object property level authorization, "mass assignment"): no write operation
// lets a client set a field it may not set. The read-only fields are derived, not listed: every field
// of an operation's response that its request schema does not accept, plus every column of the
// resource's table the request does not name (deleted_at, card columns, ...). Each is sent with a
// hostile value (another business's id, business_id and token, a paid or inactive state, dates in
// 2000, a foreign URL) and must be ignored: 200, the record as a plain request would have made it,
// in the response, in a later read, in the database row and on the hosted page.
import { beforeAll, describe, expect, it } from 'vitest';
import { assertConforms } from '../support/contract.js';
import { useService } from '../support/service.js';
import { api, dbView, oneOfEach, readCreated } from './fixture.js';
import { apiPath, loadSpec, propertiesOf, resourceOf, types, type Schema, type Spec, type SpecOperation } from './spec.js';

/** The table behind each resource of the API; a new resource must be added here. */
const TABLE_OF_RESOURCE: Record<string, string> = {
  tokenizations: 'tokens',
  'open-payment-links': 'open_payment_links',
  'payment-links': 'payment_links',
  charges: 'payments',
  refunds: 'refunds',
  'webhook-endpoints': 'webhook_endpoints',
  'bank-statements': 'bank_statements',
};

/**
 * Operations that take a body but write no record of their own (a resend names where an event goes
 * again), making a key, which has no record to read back by id (api/api-keys.test.ts offers it every
 * read-only field), and a logo, which belongs to the caller's own business, with no id or state a body
 * could name (test/api/business-profile.test.ts sends the profile's read-only fields and sees them ignored), and
 * the acquirer, a setting of the caller's own business too (test/api/acquirer-settings.test.ts), and the
 * sandbox's payout schedule, run as of a day, whose payouts no body names (test/api/payouts.test.ts).
 */
const ACTIONS = ['resendEvent', 'createApiKey', 'putBusinessLogo', 'setAcquirer', 'runTestPayouts'];

/** Fields a response shows once, at creation, and no read shows again (a webhook endpoint's signing key). */
const SHOWN_ONCE = ['secret'];

/** Records a provider settles after they are created: updated_at follows created_at. */
const SETTLED_LATER = ['charges', 'refunds'];

/** Fields that differ between any two records by nature; each is checked on its own below. */
const PER_RECORD = [
  '_id',
  'id',
  'token',
  'secret',
  'created_at',
  'updated_at',
  'payment_url',
  'activation_url',
  'provider_reference',
  'attempt_id',
  'balance_transaction_id',
];
const LONG_AGO = '2000-01-01T00:00:00.000000Z';

let spec: Spec;
let started: number;
/** B's records, whose ids and token are offered as hostile values. */
const victims: Record<string, Record<string, unknown>> = {};
let victimsStored: unknown;
/** Each tenant's records that nested writes need in their path (a token with a saved card, a paid payment). */
const parents: Record<string, Record<string, string>> = {};

type Json = Record<string, unknown>;

const writeOperations = () => spec.operations.filter((o) => o.body && (o.method === 'POST' || o.method === 'PUT') && !ACTIONS.includes(o.operationId));
const createOf = (resource: string) => spec.operations.find((o) => o.method === 'POST' && o.body && resourceOf(o.template) === resource)!;

const t = useService();
beforeAll(async () => {
  spec = await loadSpec();
  started = Date.now();
  parents.a = await oneOfEach(t, t.a);
  parents.b = await oneOfEach(t, t.b);
  for (const resource of Object.keys(TABLE_OF_RESOURCE)) {
    const create = createOf(resource);
    const response = await api(t, t.b.key, 'POST', apiPath(create.template, parents.b!), create.body!.example);
    expect(response.status, response.text).toBe(200);
    victims[resource] = (response.body as { data: Json }).data;
  }
  victimsStored = await dbView(t.sql, t.b.business.id);
});

function readOnlyFields(operation: SpecOperation): string[] {
  const writable = Object.keys(propertiesOf(operation.body!.schema));
  return Object.keys(propertiesOf(operation.data)).filter((field) => !writable.includes(field));
}

async function columnsOf(table: string): Promise<Record<string, { type: string }>> {
  return (await t.sql(table).columnInfo()) as unknown as Record<string, { type: string }>;
}

/** A value for a read-only field that differs from the record's own and would hurt if it were stored. */
function hostileValue(field: string, schema: Schema, current: unknown, resource: string): unknown {
  const victim = victims[resource]!;
  if (field === '_id') return victim._id;
  if (field === 'business_id') return t.b.business.id;
  if (field === 'token') return victim.token;
  if (schema.pattern?.includes('T\\d{2}') || field.endsWith('_at')) return LONG_AGO;
  if (schema.enum) return schema.enum.find((value) => value !== current) ?? 'hostile';
  const kinds = types(schema);
  if (kinds.includes('boolean')) return !current;
  if (kinds.includes('integer') || kinds.includes('number')) return Number(current ?? 0) + 1000;
  if (field.endsWith('_url')) return `https://evil.example/${field}?id=${victim._id}`;
  if (kinds.includes('object') || schema.oneOf) return { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 };
  return `hostile ${field}`;
}

/** A value for a table column the API never exposes, by its SQL type. */
function hostileColumn(column: string, type: string): unknown {
  if (column === 'business_id') return t.b.business.id;
  if (column.endsWith('_at')) return LONG_AGO;
  if (/bool/i.test(type)) return true;
  if (/int|numeric|real|double/i.test(type)) return 7;
  return `hostile-${column}`;
}

async function hostileBody(operation: SpecOperation, record: Json): Promise<{ body: Json; readOnly: string[]; columns: string[] }> {
  const resource = resourceOf(operation.template);
  const writable = Object.keys(propertiesOf(operation.body!.schema));
  const readOnly = readOnlyFields(operation);
  const properties = propertiesOf(operation.data);
  const columnInfo = await columnsOf(TABLE_OF_RESOURCE[resource]!);
  const columns = Object.keys(columnInfo).filter((column) => !writable.includes(column) && !readOnly.includes(column));
  const body = {
    ...operation.body!.example,
    ...Object.fromEntries(columns.map((column) => [column, hostileColumn(column, columnInfo[column]!.type)])),
    ...Object.fromEntries(readOnly.map((field) => [field, hostileValue(field, properties[field]!, record[field], resource)])),
  };
  return { body, readOnly, columns };
}

async function rowOf(operation: SpecOperation, id: string): Promise<Json> {
  return (await t.sql(TABLE_OF_RESOURCE[resourceOf(operation.template)]!).where({ _id: id }).first()) as Json;
}

const without = (row: Json, fields: string[]) => Object.fromEntries(Object.entries(row).filter(([key]) => !fields.includes(key)));

async function write(operation: SpecOperation, body: Json, id?: string): Promise<Json> {
  const path = apiPath(operation.template, id ? { [operation.pathParams[0]!]: id } : parents.a!);
  const response = await api(t, t.a.key, operation.method, path, body);
  expect(response.status, `${operation.method} ${path}: ${response.text}`).toBe(200);
  await assertConforms({
    method: operation.method,
    path,
    status: 200,
    contentType: response.contentType,
    headers: Object.fromEntries(response.headers),
    body: response.body,
  });
  return (response.body as { data: Json }).data;
}

/** Timestamps of a record made now: not the hostile date, not in the past before this test began. */
function expectFresh(value: unknown) {
  expect(value).not.toBe(LONG_AGO);
  expect(Date.parse(String(value))).toBeGreaterThanOrEqual(started - 2_000);
  expect(Date.parse(String(value))).toBeLessThanOrEqual(Date.now() + 2_000);
}

/** The hosted page of a record works as for any fresh record: it offers its form. */
async function expectPayable(record: Json) {
  const url = (record.payment_url ?? record.activation_url) as string | undefined;
  if (!url) return;
  expect(url.startsWith(`${t.url}/`), `${url} is not this service's page`).toBe(true);
  const page = await fetch(url);
  expect(page.status, url).toBe(200);
  expect(await page.text()).toMatch(/<form method="post"/);
}

describe('what counts as read-only', () => {
  it('every write operation has read-only fields to attack, including those docs/compatibility.md names', async () => {
    const fields = new Set(writeOperations().flatMap(readOnlyFields));
    for (const field of ['_id', 'business_id', 'status', 'status_id', 'paid', 'token', 'payment_url', 'activation_url', 'created_at', 'updated_at', 'card'])
      expect(fields).toContain(field);
    for (const operation of writeOperations()) expect(readOnlyFields(operation), operation.operationId).toContain('_id');
  });

  it('every resource written through the API has a table this suite knows', () => {
    for (const operation of writeOperations()) expect(TABLE_OF_RESOURCE, operation.template).toHaveProperty(resourceOf(operation.template));
  });
});

describe.each([['POST'], ['PUT']])('%s', (method) => {
  const operations = () => writeOperations().filter((o) => o.method === method);

  it('every read-only field and hidden column with a hostile value is ignored: 200, as a plain request would make it', async () => {
    expect(operations().length).toBeGreaterThan(0);
    for (const operation of operations()) {
      const resource = resourceOf(operation.template);
      const example = operation.body!.example;
      const where = operation.operationId;

      // The record to change (PUT) or a plain create to compare with (POST), both from the spec's example.
      const plain = method === 'POST' ? await write(operation, example) : await write(createOf(resource), createOf(resource).body!.example);
      const id = method === 'PUT' ? (plain._id as string) : undefined;
      const before = method === 'PUT' ? await write(operation, example, id) : plain;
      const rowBefore = await rowOf(operation, before._id as string);

      const { body, readOnly, columns } = await hostileBody(operation, before);
      expect(columns.length + readOnly.length, where).toBeGreaterThan(0);
      const after = await write(operation, body, id);

      for (const field of readOnly) expect(after[field], `${where}: ${field} was taken from the body`).not.toEqual(body[field]);
      expect(without(after, PER_RECORD), where).toEqual(without(before, PER_RECORD));
      if (method === 'PUT') {
        expect(without(after, ['updated_at']), where).toEqual(without(before, ['updated_at']));
      } else {
        expect(after._id).not.toBe(before._id);
        expect(after._id).toMatch(/^(we_)?[0-9a-f]{24}$/);
        if (SETTLED_LATER.includes(resource)) expect(Date.parse(after.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(after.created_at as string));
        // A record that never changes (a bank statement) has no updated_at.
        else if ('updated_at' in after) expect(after.created_at).toBe(after.updated_at);
        expectFresh(after.created_at);
      }
      if ('updated_at' in after) expectFresh(after.updated_at);
      if ('token' in after) expect(after.token).toMatch(/^[0-9a-f]{64}$/);
      if ('secret' in after) expect(after.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      if ('payment_url' in after) expect(after.payment_url).toMatch(new RegExp(`^${t.url}/payment/.*[?&]id=${after._id}$`));
      if ('activation_url' in after) expect(after.activation_url).toBe(`${t.url}/tokenization/activation/${after.token}`);

      const read = await readCreated(t, t.a.key, resource, after);
      expect(read.status).toBe(200);
      expect((read.body as { data: Json }).data, `${where}: read back`).toEqual(without(after, SHOWN_ONCE));

      const rowAfter = await rowOf(operation, after._id as string);
      expect(rowAfter.business_id).toBe(t.a.business.id);
      expect(without(rowAfter, [...PER_RECORD, 'deleted_at']), `${where}: stored row`).toEqual(without(rowBefore, [...PER_RECORD, 'deleted_at']));
      expect(rowAfter.deleted_at ?? null).toBeNull();
      await expectPayable(after);
    }
  });
});

it("B's records whose _id and token were offered as hostile values are untouched", async () => {
  expect(await dbView(t.sql, t.b.business.id)).toEqual(victimsStored);
  for (const [resource, victim] of Object.entries(victims)) {
    const read = await readCreated(t, t.b.key, resource, victim);
    expect((read.body as { data: Json }).data).toEqual(without(victim, SHOWN_ONCE));
  }
});
