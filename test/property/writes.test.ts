// Property-based tests of every write endpoint, with bodies generated from openapi.yaml (see
// arbitraries.ts). For each endpoint:
//   - a valid body is a 200 whose record matches what was sent, field by field, and reads back the
//     same through GET;
//   - a valid body with exactly one field made invalid (missing, null, wrong type, empty, too long,
//     out of range, wrong format, bad unicode) is a 422 naming exactly that field, and changes nothing;
//   - a valid body with read-only or unknown fields is still a 200 and none of them is applied
//     (contract: fields the client may not set are ignored on input).
//     A `__proto__` member is the documented exception: the body is refused with a 400.
// Every response is checked against the spec and no answer may be a 5xx (see harness.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { bodyModel, bodyWithExtras, expectedRecord, inputOnly, invalidBody, operation, type Body, type BodyModel, type OperationSpec } from './arbitraries.js';
import { SEED, hasPrototypeMember, holds, requestCount, send, validationErrors, type Caller, type Reply } from './harness.js';

let t: TestService;
let caller: Caller;

beforeAll(async () => {
  t = await startTestService();
  caller = { apiUrl: t.apiUrl, key: t.a.key };
});

afterAll(async () => {
  console.log(`property: ${requestCount()} requests generated, seed ${SEED} (writes; replay with PROPERTY_SEED=${SEED})`);
  await t?.close();
});

const OBJECT_ID = /^[0-9a-f]{24}$/;
const TOKEN_VALUE = /^[0-9a-f]{64}$/;

interface Resource {
  table: string;
  /** Tokens are never deleted; links are soft-deleted. */
  softDeleted: boolean;
  /** GET path of a record. */
  read(id: string): string;
  /** The fields the service sets itself, which no request may change. */
  assigned(record: Body): Body;
}

const resources = {
  token: {
    table: 'tokens',
    softDeleted: false,
    read: (id) => `/tokenizations/${id}`,
    assigned: (record) => ({ status: 'pending', card: null, activation_url: `${t.service.publicUrl}/tokenization/activation/${String(record.token)}` }),
  },
  openLink: {
    table: 'open_payment_links',
    softDeleted: true,
    read: (id) => `/open-payment-links/${id}`,
    assigned: (record) => ({ status: true, status_id: 1, payment_url: `${t.service.publicUrl}/payment/open-link/pay?id=${String(record._id)}` }),
  },
  paymentLink: {
    table: 'payment_links',
    softDeleted: true,
    read: (id) => `/payment-links/${id}`,
    assigned: (record) => ({ status: 'Active', paid: false, payment_url: `${t.service.publicUrl}/payment/pay?id=${String(record._id)}` }),
  },
} satisfies Record<string, Resource>;

interface Endpoint {
  op: OperationSpec;
  model: BodyModel;
  resource: Resource;
  /** For PUT: the operation that creates the record it replaces. */
  creator?: OperationSpec;
}

function endpoint(method: string, path: string, resource: Resource, creator?: OperationSpec): Endpoint {
  const op = operation(method, path);
  if (!op.body) throw new Error(`${method} ${path} takes no body`);
  return { op, model: bodyModel(op.body), resource, creator };
}

const createOpenLink = operation('POST', '/open-payment-links');
const createPaymentLink = operation('POST', '/payment-links');
const ENDPOINTS = [
  endpoint('POST', '/tokenizations/create-token', resources.token),
  endpoint('POST', '/open-payment-links', resources.openLink),
  endpoint('PUT', '/open-payment-links/{open_payment_link_id}', resources.openLink, createOpenLink),
  endpoint('POST', '/payment-links', resources.paymentLink),
  endpoint('PUT', '/payment-links/{payment_link_id}', resources.paymentLink, createPaymentLink),
];

/** Runs per property and endpoint; a PUT costs two requests per invalid case (the write, then GET). */
const RUNS = { valid: 260, invalid: 480, extras: 90 };
/** The issue asks for at least 10,000 generated requests per run: 6,000 here and 4,000 in reads.test.ts. */
const WRITE_REQUESTS_AT_LEAST = 6_000;

const json = (body: Body) => JSON.stringify(body);
const dataOf = (body: unknown) => (body as { data: Body }).data;

async function liveCount(resource: Resource): Promise<number> {
  const query = t.sql(resource.table).where({ business_id: t.a.business.id });
  if (resource.softDeleted) query.whereNull('deleted_at');
  const row = (await query.count({ count: '*' }).first()) as { count: number | string };
  return Number(row.count);
}

describe.each(ENDPOINTS.map((endpoint) => [`${endpoint.op.method} ${endpoint.op.path}`, endpoint] as const))('%s', (_, { op, model, resource, creator }) => {
  /** For PUT: the record being replaced, as last read. */
  let current: Body | undefined;
  const target = () => op.path.replace(/\{[^{}]+\}/, String(current?._id));

  beforeAll(async () => {
    if (!creator?.body) return;
    const [body] = fc.sample(bodyModel(creator.body).valid, { seed: SEED, numRuns: 1 });
    const reply = await send(caller, 'POST', creator.path, json(body!));
    expect(reply.status, reply.text).toBe(200);
    current = dataOf(reply.body);
  });

  /** The record as the response returns it: what was sent, normalised, plus what the service sets. */
  function expectRecord(record: Body, sent: Body): void {
    expect(Object.keys(record).sort()).toEqual(Object.keys(op.data.properties ?? {}).sort());
    for (const name of inputOnly(model, op.data)) expect(record).not.toHaveProperty(name);
    expect(record).toMatchObject(expectedRecord(model, op.data, sent));
    expect(record).toMatchObject(resource.assigned(record));
    expect(record._id).toMatch(OBJECT_ID);
    if ('business_id' in record) expect(record.business_id).toBe(t.a.business.id);
    if ('token' in record) expect(record.token).toMatch(TOKEN_VALUE);
    if (current === undefined) {
      expect(record.updated_at).toBe(record.created_at);
    } else {
      expect(record._id).toBe(current._id);
      expect(record.created_at).toBe(current.created_at);
      expect(Date.parse(String(record.updated_at))).toBeGreaterThanOrEqual(Date.parse(String(current.updated_at)));
    }
  }

  async function writeAndReadBack(sent: Body, wire: string): Promise<void> {
    const reply = await send(caller, op.method, current ? target() : op.path, wire);
    expect(reply.status, reply.text).toBe(200);
    const record = dataOf(reply.body);
    expectRecord(record, sent);
    const read = await send(caller, 'GET', resource.read(String(record._id)));
    expect(read.status, read.text).toBe(200);
    expect(dataOf(read.body)).toStrictEqual(record);
    if (current) current = record;
  }

  it('a valid body is a 200 whose record matches what was sent and reads back the same', { timeout: 300_000 }, async () => {
    const seen = new Set<string>();
    await holds(
      `valid body ${op.method} ${op.path}`,
      model.valid,
      async (body) => {
        for (const field of model.fields) seen.add(`${field}: ${field in body ? (body[field] === null ? 'null' : 'value') : 'absent'}`);
        await writeAndReadBack(body, json(body));
      },
      RUNS.valid,
    );
    // Every optional field was left out, and every nullable one sent as null, at least once.
    const shapes = model.fields.flatMap((field) => [
      `${field}: value`,
      ...(model.required.includes(field) ? [] : [`${field}: absent`]),
      ...(model.nullable.includes(field) ? [`${field}: null`] : []),
    ]);
    expect([...seen].sort()).toEqual(shapes.sort());
  });

  /** Sends a write that must be refused, and checks that it created or changed nothing. */
  async function refused(wire: string): Promise<Reply> {
    const before = current ? undefined : await liveCount(resource);
    const reply = await send(caller, op.method, current ? target() : op.path, wire);
    if (current) {
      const read = await send(caller, 'GET', resource.read(String(current._id)));
      expect(dataOf(read.body)).toStrictEqual(current);
    } else {
      expect(await liveCount(resource)).toBe(before);
    }
    return reply;
  }

  /** The contract's 400 for a body with a `__proto__` member (see openapi.yaml, Errors). */
  function expectPrototypeRefusal(reply: Reply): void {
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body).toStrictEqual({ message: 'The request body must not contain a "__proto__" member.' });
  }

  it('a body with exactly one invalid field is a 422 naming exactly that field, and changes nothing', { timeout: 300_000 }, async () => {
    const seen = new Set<string>();
    // Each way of breaking each field gets its share of the runs, so none is left to chance.
    const runsEach = Math.ceil(RUNS.invalid / model.mutations.length);
    for (const mutation of model.mutations)
      await holds(
        `one invalid field ${op.method} ${op.path}: ${mutation.field} (${mutation.kind})`,
        invalidBody(model, mutation),
        async ({ body, field, kind }) => {
          seen.add(`${field}: ${kind}`);
          const wire = json(body);
          const reply = await refused(wire);
          // A generated wrong-type object may hold a `__proto__` key somewhere.
          if (hasPrototypeMember(wire)) return expectPrototypeRefusal(reply);
          const errors = validationErrors(reply, `${field} (${kind})`);
          expect(Object.keys(errors), `${field} (${kind}): ${reply.text}`).toEqual([field]);
          // Laravel's messages name the attribute, underscores shown as spaces.
          for (const message of errors[field]!) expect(message).toContain(field.replace(/_/g, ' '));
        },
        runsEach,
      );
    // Every way of breaking every field was tried, so a generator that silently stopped producing
    // some case would show here.
    expect([...seen].sort()).toEqual(model.mutations.map(({ field, kind }) => `${field}: ${kind}`).sort());
  });

  it('read-only and unknown fields are ignored: still a 200, and none of them is applied', { timeout: 300_000 }, async () => {
    const outcomes = { ignored: 0, refused: 0 };
    await holds(
      `extra fields ${op.method} ${op.path}`,
      bodyWithExtras(model, op.data),
      async ({ body, extras }) => {
        const wire = json(body);
        // Own `__proto__` keys survive JSON.stringify; the server must see every extra.
        for (const key of Object.keys(extras)) expect(wire).toContain(JSON.stringify(key));
        if (hasPrototypeMember(wire)) {
          outcomes.refused += 1;
          return expectPrototypeRefusal(await refused(wire));
        }
        outcomes.ignored += 1;
        const sent = Object.fromEntries(Object.entries(body).filter(([key]) => !Object.prototype.hasOwnProperty.call(extras, key)));
        await writeAndReadBack(sent, wire);
      },
      RUNS.extras,
    );
    expect(outcomes.ignored).toBeGreaterThan(RUNS.extras / 2);
    // Whether the random run drew a `__proto__` extra is chance; the refusal is checked every time here.
    const { body, extras } = fc.sample(bodyWithExtras(model, op.data), { numRuns: 1, seed: SEED })[0]!;
    const valid = Object.fromEntries(Object.entries(body).filter(([key]) => !Object.prototype.hasOwnProperty.call(extras, key)));
    expectPrototypeRefusal(await refused(`{"__proto__":{"paid":true},${json(valid).slice(1)}`));
  });
});

describe('the run as a whole', () => {
  it(`sent at least ${WRITE_REQUESTS_AT_LEAST} generated write-side requests`, () => {
    expect(requestCount()).toBeGreaterThanOrEqual(WRITE_REQUESTS_AT_LEAST);
  });
});
