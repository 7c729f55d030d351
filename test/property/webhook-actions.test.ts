// Property-based tests of what a merchant does with its webhook endpoints beyond writing them (see
// webhook-endpoints.test.ts for the writes): delete, list, rotate-secret, test (a ping) and resending
// an event, to all its endpoints or to one named in the body, against a model. Random sequences of
// those actions, aimed at live, disabled, deleted, another business's and made-up endpoints and
// events; after every step the answer is the model's (status, body, 404/409 message, 422 naming
// webhook_endpoint_id), the list is the model's endpoints oldest first, and every event shows the
// model's deliveries, one per endpoint it went to in order (a deleted endpoint's as null). The worker
// is off: nothing is sent, every delivery stays pending, so resends are never refused as in flight.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { useService } from '../support/service.js';
import { SEED, holds, requestCount, send, validationErrors, type Caller, type Reply } from './harness.js';

let a: Caller;
let foreignEndpoint: string;
let foreignEvent: string;

const t = useService({ outbox: { worker: false }, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
beforeAll(async () => {
  a = { apiUrl: t.apiUrl, key: t.a.key };
  const b = { apiUrl: t.apiUrl, key: t.b.key };
  const theirs = await send(b, 'POST', '/webhook-endpoints', JSON.stringify({ url: 'https://merchant.example.com/b' }));
  foreignEndpoint = String(dataOf(theirs)._id);
  foreignEvent = String(dataOf(await send(b, 'POST', `/webhook-endpoints/${foreignEndpoint}/test`)).id);
}, 60_000);

afterAll(async () => {
  console.log(`property: ${requestCount()} requests generated, seed ${SEED} (webhook actions; replay with PROPERTY_SEED=${SEED})`);
});

const dataOf = (reply: Reply) => (reply.body as { data: Record<string, unknown> }).data;
const messageOf = (reply: Reply) => (reply.body as { message: string }).message;
const NOT_FOUND = 'Webhook endpoint not found.';
const DISABLED = 'The webhook endpoint is disabled; enable it first.';
const DAY = 86_400_000;

/** Which endpoint a step aims at: one of the model's live or deleted ones (by index), another business's, or one that never was. */
type Aim = { kind: 'live'; i: number } | { kind: 'deleted'; i: number } | { kind: 'foreign' } | { kind: 'made-up' };
/** What a resend's body says: nothing, `{}`, an endpoint, or something that is not an endpoint id at all. */
type ResendBody = { kind: 'none' } | { kind: 'empty' } | { kind: 'to'; aim: Aim } | { kind: 'malformed'; value: unknown };
type Step =
  | { kind: 'create'; enabled: boolean }
  | { kind: 'delete'; aim: Aim }
  | { kind: 'rotate'; aim: Aim }
  | { kind: 'test'; aim: Aim }
  | { kind: 'toggle'; aim: Aim; enabled: boolean }
  | { kind: 'list' }
  | { kind: 'resend'; event: { kind: 'own'; i: number } | { kind: 'foreign' | 'made-up' }; body: ResendBody };

const aims: fc.Arbitrary<Aim> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('live' as const), i: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleted' as const), i: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.constantFrom({ kind: 'foreign' as const }, { kind: 'made-up' as const }) },
);
/** Values that are no endpoint id whatever the business has: not text, or text of another shape (trimmed). */
const malformed = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.constantFrom('', 'we_123', 'WE_0123456789abcdef01234567', `evt_${'0'.repeat(24)}`, `we_${'0'.repeat(25)}`, `we_${'g'.repeat(24)}`),
  fc.string({ maxLength: 30 }).filter((text) => !/^we_[0-9a-f]{24}$/.test(text.trim())),
);
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), enabled: fc.boolean() }),
  ...(['delete', 'rotate', 'test'] as const).map((kind) => fc.record({ kind: fc.constant(kind), aim: aims })),
  fc.record({ kind: fc.constant('toggle' as const), aim: aims, enabled: fc.boolean() }),
  fc.constant({ kind: 'list' as const }),
  fc.record({
    kind: fc.constant('resend' as const),
    event: fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('own' as const), i: fc.nat(20) }) },
      { weight: 1, arbitrary: fc.constantFrom({ kind: 'foreign' as const }, { kind: 'made-up' as const }) },
    ),
    body: fc.oneof(
      fc.constantFrom<ResendBody>({ kind: 'none' }, { kind: 'empty' }),
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('to' as const), aim: aims }) },
      fc.record({ kind: fc.constant('malformed' as const), value: malformed }),
    ),
  }),
);
// Every plan starts with two endpoints and a ping, so that most steps have something to aim at.
const plans = fc
  .array(stepArbitrary, { minLength: 1, maxLength: 14 })
  .map((rest): Step[] => [{ kind: 'create', enabled: true }, { kind: 'create', enabled: true }, { kind: 'test', aim: { kind: 'live', i: 0 } }, ...rest]);

interface ModelEndpoint {
  /** The endpoint as the API shows it, without its key. */
  shown: Record<string, unknown>;
  deleted: boolean;
}
interface ModelEvent {
  id: string;
  /** The endpoint of each delivery, in the order they were queued. */
  to: string[];
}

describe('webhook endpoint actions', () => {
  // Its many runs can pass the default timeout beside another file on PostgreSQL.
  it('delete, list, rotate-secret, test and resend answer as the model does, whatever they aim at', { timeout: 120_000 }, async () => {
    await holds(
      'webhook endpoint actions',
      plans,
      async (plan) => {
        // Each plan starts from a business without endpoints.
        await t.sql('webhook_endpoints').where({ business_id: t.a.business.id }).delete();
        const endpoints: ModelEndpoint[] = [];
        const events: ModelEvent[] = [];
        const secrets = new Set<string>();
        const live = () => endpoints.filter((e) => !e.deleted);
        const idOf = (aim: Aim): string => {
          if (aim.kind === 'foreign') return foreignEndpoint;
          if (aim.kind === 'made-up') return `we_${newId()}`;
          const pool = aim.kind === 'live' ? live() : endpoints.filter((e) => e.deleted);
          return pool.length > 0 ? String(pool[aim.i % pool.length]!.shown._id) : `we_${newId()}`;
        };
        const modelOf = (id: string) => endpoints.find((e) => e.shown._id === id && !e.deleted);

        for (const [n, step] of plan.entries()) {
          const context = `step ${n} ${JSON.stringify(step)} of ${JSON.stringify(plan)}`;
          if (step.kind === 'create') {
            const reply = await send(
              a,
              'POST',
              '/webhook-endpoints',
              JSON.stringify({ url: `https://merchant.example.com/hooks/${n}`, enabled: step.enabled }),
            );
            if (live().length >= 16) {
              expect(reply.status, context).toBe(409);
              continue;
            }
            expect(reply.status, `${context}: ${reply.text}`).toBe(200);
            const { secret, ...shown } = dataOf(reply);
            expect(secrets.has(String(secret)), context).toBe(false);
            secrets.add(String(secret));
            expect(shown).toMatchObject({ enabled: step.enabled, previous_secret_expires_at: null });
            endpoints.push({ shown, deleted: false });
          } else if (step.kind === 'delete' || step.kind === 'rotate' || step.kind === 'toggle' || step.kind === 'test') {
            const id = idOf(step.aim);
            const endpoint = modelOf(id);
            const reply =
              step.kind === 'delete'
                ? await send(a, 'DELETE', `/webhook-endpoints/${id}`)
                : step.kind === 'rotate'
                  ? await send(a, 'POST', `/webhook-endpoints/${id}/rotate-secret`)
                  : step.kind === 'toggle'
                    ? await send(a, 'PUT', `/webhook-endpoints/${id}`, JSON.stringify({ enabled: step.enabled }))
                    : await send(a, 'POST', `/webhook-endpoints/${id}/test`);
            if (!endpoint) {
              expect(reply.status, `${context}: ${reply.text}`).toBe(404);
              expect(messageOf(reply), context).toBe(NOT_FOUND);
              continue;
            }
            if (step.kind === 'delete') {
              expect(reply.status, `${context}: ${reply.text}`).toBe(200);
              // The endpoint as it was; gone afterwards.
              expect(dataOf(reply), context).toStrictEqual(endpoint.shown);
              endpoint.deleted = true;
              expect((await send(a, 'GET', `/webhook-endpoints/${id}`)).status, context).toBe(404);
            } else if (step.kind === 'rotate') {
              expect(reply.status, `${context}: ${reply.text}`).toBe(200);
              const { secret, ...shown } = dataOf(reply);
              expect(String(secret), context).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
              expect(secrets.has(String(secret)), `${context}: a key issued twice`).toBe(false);
              secrets.add(String(secret));
              // Everything else as it was; the replaced key signs for 24 hours more.
              expect(shown, context).toStrictEqual({
                ...endpoint.shown,
                previous_secret_expires_at: shown.previous_secret_expires_at,
                updated_at: shown.updated_at,
              });
              const overlap = Date.parse(String(shown.previous_secret_expires_at)) - Date.now();
              expect(overlap, context).toBeGreaterThan(DAY - 60_000);
              expect(overlap, context).toBeLessThanOrEqual(DAY);
              endpoint.shown = shown;
            } else if (step.kind === 'toggle') {
              expect(reply.status, `${context}: ${reply.text}`).toBe(200);
              expect(dataOf(reply), context).toStrictEqual({ ...endpoint.shown, enabled: step.enabled, updated_at: dataOf(reply).updated_at });
              endpoint.shown = dataOf(reply);
            } else if (endpoint.shown.enabled !== true) {
              expect(reply.status, `${context}: ${reply.text}`).toBe(409);
              expect(messageOf(reply), context).toBe(DISABLED);
            } else {
              expect(reply.status, `${context}: ${reply.text}`).toBe(200);
              const event = dataOf(reply);
              expect(event, context).toMatchObject({
                type: 'ping',
                status: 'pending',
                delivery_success: false,
                attempts: 0,
                data: { webhook_endpoint_id: id, url: endpoint.shown.url, message: 'A test event.' },
              });
              expect(String(event.id)).toMatch(/^evt_[0-9a-f]{24}$/);
              events.push({ id: String(event.id), to: [id] });
            }
          } else if (step.kind === 'list') {
            const reply = await send(a, 'GET', '/webhook-endpoints');
            expect(reply.status, context).toBe(200);
            expect(dataOf(reply), context).toStrictEqual(live().map((e) => e.shown));
          } else {
            const own = step.event.kind === 'own' && events.length > 0 ? events[step.event.i % events.length]! : undefined;
            const eventId = own ? own.id : step.event.kind === 'foreign' ? foreignEvent : `evt_${newId()}`;
            const body = step.body;
            const wire =
              body.kind === 'none'
                ? undefined
                : body.kind === 'empty'
                  ? '{}'
                  : JSON.stringify({ webhook_endpoint_id: body.kind === 'to' ? idOf(body.aim) : body.value });
            const reply = await send(a, 'POST', `/events/${eventId}/resend`, wire);
            // The body is read before the event is looked up.
            if (body.kind === 'malformed') {
              expect(Object.keys(validationErrors(reply, context))).toEqual(['webhook_endpoint_id']);
              continue;
            }
            if (!own) {
              expect(reply.status, `${context}: ${reply.text}`).toBe(404);
              expect(messageOf(reply), context).toBe('Event not found.');
              continue;
            }
            const target = body.kind === 'to' ? JSON.parse(wire!).webhook_endpoint_id : undefined;
            const endpoint = target === undefined ? undefined : modelOf(target);
            if (target !== undefined && !endpoint) {
              expect(validationErrors(reply, context)).toEqual({ webhook_endpoint_id: ['The selected webhook endpoint id is invalid.'] });
              continue;
            }
            if (endpoint && endpoint.shown.enabled !== true) {
              expect(reply.status, `${context}: ${reply.text}`).toBe(409);
              expect(messageOf(reply), context).toBe(DISABLED);
              continue;
            }
            expect(reply.status, `${context}: ${reply.text}`).toBe(200);
            if (target !== undefined && !own.to.includes(target)) own.to.push(target);
            const resent = dataOf(reply) as { id: string; status: string; endpoints: { webhook_endpoint_id: string | null; status: string }[] };
            expect(resent.id, context).toBe(own.id);
            expect(resent.status, context).toBe('pending');
          }
          // Every event shows a delivery per endpoint it went to, in order, a deleted endpoint's as null.
          for (const event of events) {
            const read = await send(a, 'GET', `/events/${event.id}`);
            expect(read.status, context).toBe(200);
            const shown = dataOf(read) as { endpoints: { webhook_endpoint_id: string | null; status: string }[] };
            expect(
              shown.endpoints.map((d) => d.webhook_endpoint_id),
              `${context}: event ${event.id}`,
            ).toEqual(event.to.map((id) => (modelOf(id) ? id : null)));
            expect(new Set(shown.endpoints.map((d) => d.status)), context).toEqual(new Set(['pending']));
          }
        }
        // And at the end, the list and each endpoint read alone.
        expect(dataOf(await send(a, 'GET', '/webhook-endpoints'))).toStrictEqual(live().map((e) => e.shown));
        for (const endpoint of endpoints) {
          const read = await send(a, 'GET', `/webhook-endpoints/${String(endpoint.shown._id)}`);
          if (endpoint.deleted) expect(read.status).toBe(404);
          else expect(dataOf(read)).toStrictEqual(endpoint.shown);
        }
      },
      60,
    );
  });

  it("another business's endpoints and events are never reached", async () => {
    const b = { apiUrl: t.apiUrl, key: t.b.key };
    const theirs = dataOf(await send(b, 'GET', `/webhook-endpoints/${foreignEndpoint}`));
    expect(theirs).toMatchObject({ _id: foreignEndpoint, previous_secret_expires_at: null, enabled: true });
    expect(theirs.updated_at).toBe(theirs.created_at);
    const event = dataOf(await send(b, 'GET', `/events/${foreignEvent}`)) as { endpoints: { webhook_endpoint_id: string }[] };
    expect(event.endpoints.map((d) => d.webhook_endpoint_id)).toEqual([foreignEndpoint]);
  });
});

it('the plans reach every action and every kind of aim', () => {
  const sample = fc.sample(plans, { seed: SEED, numRuns: 60 }).flat();
  expect(new Set(sample.map((step) => step.kind))).toEqual(new Set(['create', 'delete', 'rotate', 'test', 'toggle', 'list', 'resend']));
  const resends = sample.filter((step): step is Extract<Step, { kind: 'resend' }> => step.kind === 'resend');
  expect(new Set(resends.map((step) => step.body.kind))).toEqual(new Set(['none', 'empty', 'to', 'malformed']));
});
