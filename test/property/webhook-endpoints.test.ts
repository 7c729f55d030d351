// Property-based tests of the webhook-endpoint writes, with bodies generated from openapi.yaml (see
// arbitraries.ts), as writes.test.ts does for links and tokens. What differs: a create answers the
// signing key once (no read shows it), absent fields take their defaults (every event, enabled), a PUT
// changes only the fields it names, and a business holds at most 16 endpoints (each created one is
// deleted again). Every URL the generators make resolves, through the test resolver, to loopback,
// where nothing is sent: these writes make no events.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';
import { bodyModel, bodyWithExtras, invalidBody, laravelTrim, operation, type Body } from './arbitraries.js';
import { SEED, hasPrototypeMember, holds, requestCount, send, validationErrors, type Caller } from './harness.js';

let caller: Caller;

const t = useService({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
beforeAll(async () => {
  caller = { apiUrl: t.apiUrl, key: t.a.key };
});

afterAll(async () => {
  console.log(`property: ${requestCount()} requests generated, seed ${SEED} (webhook endpoints; replay with PROPERTY_SEED=${SEED})`);
});

const create = operation('POST', '/webhook-endpoints');
const update = operation('PUT', '/webhook-endpoints/{webhook_endpoint_id}');
const createModel = bodyModel(create.body!);
const updateModel = bodyModel(update.body!);
const RUNS = { valid: 120, invalid: 240, extras: 60 };

const json = (body: Body) => JSON.stringify(body);
const dataOf = (body: unknown) => (body as { data: Body }).data;
/** A field as the service reads it: text trimmed, blank text made null. */
const normalised = (value: unknown) => (typeof value === 'string' ? laravelTrim(value) || null : value);

const rowCount = async () =>
  Number(((await t.sql('webhook_endpoints').where({ business_id: t.a.business.id }).count({ n: '*' }).first()) as { n: number | string }).n);

/** The endpoint a create body makes: what was sent, and the defaults for what was not. */
function expectedFromCreate(body: Body): Body {
  return {
    url: normalised(body.url),
    description: body.description === undefined ? null : normalised(body.description),
    enabled_events: body.enabled_events ?? ['*'],
    enabled: body.enabled ?? true,
    previous_secret_expires_at: null,
  };
}

async function readBack(id: string): Promise<Body> {
  const read = await send(caller, 'GET', `/webhook-endpoints/${id}`);
  expect(read.status, read.text).toBe(200);
  return dataOf(read.body);
}

async function remove(id: string): Promise<void> {
  expect((await send(caller, 'DELETE', `/webhook-endpoints/${id}`)).status).toBe(200);
}

describe('POST /webhook-endpoints', () => {
  it('a valid body is a 200 whose endpoint matches what was sent, with its key shown once, and reads back the same without it', async () => {
    await holds(
      'valid webhook endpoint',
      createModel.valid,
      async (body) => {
        const reply = await send(caller, 'POST', '/webhook-endpoints', json(body));
        expect(reply.status, reply.text).toBe(200);
        const record = dataOf(reply.body);
        expect(record).toMatchObject(expectedFromCreate(body));
        expect(record._id).toMatch(/^we_[0-9a-f]{24}$/);
        expect(record.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(record.updated_at).toBe(record.created_at);
        const { secret: _secret, ...shown } = record;
        expect(await readBack(String(record._id))).toStrictEqual(shown);
        await remove(String(record._id));
      },
      RUNS.valid,
    );
  });

  it('a body with exactly one invalid field is a 422 naming exactly that field (or its member), and creates nothing', async () => {
    const seen = new Set<string>();
    const runsEach = Math.ceil(RUNS.invalid / createModel.mutations.length);
    for (const mutation of createModel.mutations)
      await holds(
        `one invalid field of a webhook endpoint: ${mutation.field} (${mutation.kind})`,
        invalidBody(createModel, mutation),
        async ({ body, field, kind }) => {
          seen.add(`${field}: ${kind}`);
          const before = await rowCount();
          const wire = json(body);
          const reply = await send(caller, 'POST', '/webhook-endpoints', wire);
          expect(await rowCount()).toBe(before);
          if (hasPrototypeMember(wire)) return expect(reply.status).toBe(400);
          const errors = validationErrors(reply, `${field} (${kind})`);
          // A list's member is named by its index (`enabled_events.2`), as Laravel names it.
          for (const key of Object.keys(errors)) expect(key === field || key.startsWith(`${field}.`), `${field} (${kind}): ${reply.text}`).toBe(true);
        },
        runsEach,
      );
    expect([...seen].sort()).toEqual(createModel.mutations.map((m) => `${m.field}: ${m.kind}`).sort());
  });

  it('read-only and unknown fields are ignored: still a 200, none of them applied', async () => {
    await holds(
      'webhook endpoint with extras',
      bodyWithExtras(createModel, create.data),
      async ({ body, extras }) => {
        const wire = json(body);
        const reply = await send(caller, 'POST', '/webhook-endpoints', wire);
        if (hasPrototypeMember(wire)) return expect(reply.status).toBe(400);
        expect(reply.status, reply.text).toBe(200);
        const record = dataOf(reply.body);
        const plain = Object.fromEntries(Object.entries(body).filter(([key]) => !(key in extras)));
        expect(record).toMatchObject(expectedFromCreate(plain));
        // What the service assigns itself, whatever the body offered.
        for (const key of ['_id', 'secret', 'created_at'])
          if (Object.prototype.hasOwnProperty.call(extras, key)) expect(record[key], key).not.toEqual(extras[key]);
        expect(Math.abs(Date.parse(String(record.created_at)) - Date.now())).toBeLessThan(60_000);
        await remove(String(record._id));
      },
      RUNS.extras,
    );
  });
});

describe('PUT /webhook-endpoints/{id}', () => {
  let current: Body;
  beforeAll(async () => {
    const reply = await send(caller, 'POST', '/webhook-endpoints', json({ url: 'https://merchant.example.com/hooks' }));
    const { secret: _secret, ...record } = dataOf(reply.body);
    current = record;
  });

  it('a valid body changes the fields it names and no other', async () => {
    await holds(
      'valid webhook endpoint change',
      updateModel.valid,
      async (body) => {
        const reply = await send(caller, 'PUT', `/webhook-endpoints/${String(current._id)}`, json(body));
        expect(reply.status, reply.text).toBe(200);
        const record = dataOf(reply.body);
        const changed = Object.fromEntries(Object.entries(body).map(([key, value]) => [key, normalised(value)]));
        expect(record).toStrictEqual({ ...current, ...changed, updated_at: record.updated_at });
        expect(Date.parse(String(record.updated_at))).toBeGreaterThanOrEqual(Date.parse(String(current.updated_at)));
        expect(await readBack(String(record._id))).toStrictEqual(record);
        current = record;
      },
      RUNS.valid,
    );
  });

  it('a body with exactly one invalid field is a 422 naming it, and changes nothing', async () => {
    const runsEach = Math.ceil(RUNS.invalid / updateModel.mutations.length);
    for (const mutation of updateModel.mutations)
      await holds(
        `one invalid field of a webhook endpoint change: ${mutation.field} (${mutation.kind})`,
        invalidBody(updateModel, mutation),
        async ({ body, field, kind }) => {
          const wire = json(body);
          const reply = await send(caller, 'PUT', `/webhook-endpoints/${String(current._id)}`, wire);
          expect(await readBack(String(current._id))).toStrictEqual(current);
          if (hasPrototypeMember(wire)) return expect(reply.status).toBe(400);
          const errors = validationErrors(reply, `${field} (${kind})`);
          for (const key of Object.keys(errors)) expect(key === field || key.startsWith(`${field}.`), `${field} (${kind}): ${reply.text}`).toBe(true);
        },
        runsEach,
      );
  });
});

it('the generators cover every field of both bodies', () => {
  expect(createModel.fields.sort()).toEqual(['description', 'enabled', 'enabled_events', 'url']);
  expect(updateModel.fields.sort()).toEqual(createModel.fields.sort());
  expect(fc.sample(createModel.valid, { seed: SEED, numRuns: 50 }).some((body) => Array.isArray(body.enabled_events))).toBe(true);
});
