// /api/webhook-endpoints: a merchant registers, filters, disables, tests, rotates and deletes its own
// webhook endpoints; events fan out to every endpoint that wants them under one event id; a delivery
// that failed shows in /api/events and is resent to all or to one endpoint.
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/webhooks.js';
import { setWebhook } from '../../server/store/businesses.js';
import { URL_NOT_ALLOWED } from '../../server/usecases/merchant/webhook-endpoints.js';
import { assertSchema } from '../support/contract.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { offlineResolver, useService, type Tenant } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const receivers: Receiver[] = [];

const t = useService({
  // Retries far apart: only a resend brings a failed delivery back within a test.
  outbox: { retry: { baseMs: 3_600_000, capMs: 3_600_000, maxAttempts: 12 } },
  // Names the tests use, resolved without a real lookup; nothing is ever sent to them.
  resolve: async (hostname) => {
    if (hostname === 'metadata.example.test') return [{ address: '169.254.169.254', family: 4 }];
    if (hostname === 'hooks.example.test') return [{ address: '93.184.215.14', family: 4 }];
    return offlineResolver(hostname);
  },
});
afterEach(async () => {
  for (const endpoint of (await t.a.client.GET('/webhook-endpoints')).data!.data)
    await t.a.client.DELETE('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: endpoint._id } } });
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0], port?: number): Promise<Receiver> {
  const started = await startReceiver(respond, port);
  receivers.push(started);
  return started;
}

async function register(tenant: Tenant, body: { url: string; enabled_events?: ('*' | 'payment.created' | 'refund.succeeded' | 'payment.failed')[] }) {
  const created = await tenant.client.POST('/webhook-endpoints', { body });
  expect(created.response.status).toBe(200);
  return created.data!.data;
}

async function payLink(tenant: Tenant, amount = 1000): Promise<string> {
  const link = await create.paymentLink(tenant, { amount });
  return (await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).paymentId!;
}

const eventOf = async (id: string) => (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: id } } })).data!.data;

describe('webhook endpoints', () => {
  it('are registered with a key shown once, read without it, changed field by field and deleted', async () => {
    const hooks = await receiver();
    const created = await register(t.a, { url: hooks.url, enabled_events: ['payment.created'] });
    expect(created).toMatchObject({ url: hooks.url, enabled_events: ['payment.created'], enabled: true, description: null, previous_secret_expires_at: null });
    expect(created._id).toMatch(/^we_[0-9a-f]{24}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = (await t.a.client.GET('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: created._id } } })).data!.data;
    expect(read).not.toHaveProperty('secret');
    expect(JSON.stringify((await t.a.client.GET('/webhook-endpoints')).data)).not.toContain(created.secret);
    // Nor is it kept in clear.
    expect(JSON.stringify(await t.sql('webhook_endpoints').where({ _id: created._id }).first())).not.toContain(created.secret.slice('whsec_'.length));

    const changed = await t.a.client.PUT('/webhook-endpoints/{webhook_endpoint_id}', {
      params: { path: { webhook_endpoint_id: created._id } },
      body: { description: 'Bookkeeping', enabled_events: ['*'] },
    });
    expect(changed.data!.data).toMatchObject({ url: hooks.url, description: 'Bookkeeping', enabled_events: ['*'], enabled: true });

    // Another business sees none of it.
    expect((await t.b.client.GET('/webhook-endpoints')).data!.data).toEqual([]);
    const theirs = await t.b.client.GET('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: created._id } } });
    expect(theirs.response.status).toBe(404);
    expect(theirs.error).toEqual({ message: 'Webhook endpoint not found.' });

    const deleted = await t.a.client.DELETE('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: created._id } } });
    expect(deleted.error).toBeUndefined();
    expect(deleted.data!.data._id).toBe(created._id);
    expect((await t.a.client.GET('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: created._id } } })).response.status).toBe(
      404,
    );
  });

  it('refuses URLs that lead to metadata services, the service itself or nowhere, all with one answer', async () => {
    // Why each is refused is in the server log (test/security/webhook-url-refusal.test.ts).
    for (const url of [
      'http://metadata.example.test/latest',
      'http://169.254.169.254/latest',
      `${t.url}/api/payment-links`,
      'https://unknown.example.test/hooks',
    ]) {
      const answer = await t.a.client.POST('/webhook-endpoints', { body: { url } });
      expect(answer.response.status, url).toBe(422);
      expect(answer.error, url).toEqual({ message: 'The given data was invalid.', errors: { url: [URL_NOT_ALLOWED] } });
    }
    const notHttp = await t.a.client.POST('/webhook-endpoints', { body: { url: 'ftp://hooks.example.test/x' } });
    expect(notHttp.response.status).toBe(422);
    expect(notHttp.error).toMatchObject({ errors: { url: [expect.stringMatching(/^The url/)] } });
    const badEvent = await t.a.client.POST('/webhook-endpoints', { body: { url: 'https://hooks.example.test/x', enabled_events: ['payment.nope' as never] } });
    expect(badEvent.response.status).toBe(422);
    // A change of URL passes the same rules.
    const ok = await register(t.a, { url: 'https://hooks.example.test/x' });
    const moved = await t.a.client.PUT('/webhook-endpoints/{webhook_endpoint_id}', {
      params: { path: { webhook_endpoint_id: ok._id } },
      body: { url: 'http://169.254.169.254/latest' },
    });
    expect(moved.response.status).toBe(422);
    expect((await t.sql('webhook_endpoints').where({ _id: ok._id }).first()).url).toBe('https://hooks.example.test/x');
    expect((await t.a.client.GET('/webhook-endpoints')).data!.data).toHaveLength(1);
  });

  it('are at most 16 per business', async () => {
    for (let i = 0; i < 16; i += 1) await register(t.a, { url: `https://hooks.example.test/${i}` });
    const seventeenth = await t.a.client.POST('/webhook-endpoints', { body: { url: 'https://hooks.example.test/16' } });
    expect(seventeenth.response.status).toBe(409);
    expect(seventeenth.error).toEqual({ message: 'The business already has 16 webhook endpoints, the most it can have; delete one first.' });
    expect((await t.a.client.GET('/webhook-endpoints')).data!.data).toHaveLength(16);
  });

  it('registered at once past the limit: exactly 16 are made, the rest refused', async () => {
    for (let i = 0; i < 10; i += 1) await register(t.a, { url: `https://hooks.example.test/${i}` });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.a.client.POST('/webhook-endpoints', { body: { url: `https://hooks.example.test/at-once/${i}` } })),
    );
    expect(answers.filter((a) => a.response.status === 200)).toHaveLength(6);
    expect(answers.filter((a) => a.response.status === 409)).toHaveLength(6);
    expect(Number((await t.sql('webhook_endpoints').where({ business_id: t.a.business.id }).count({ n: '*' }).first())!.n)).toBe(16);
  });

  it('each get the events they ask for, signed with their own key, under one event id', async () => {
    const all = await receiver();
    const refundsOnly = await receiver();
    const disabledHooks = await receiver();
    const first = await register(t.a, { url: all.url });
    const second = await register(t.a, { url: refundsOnly.url, enabled_events: ['refund.succeeded'] });
    const off = await register(t.a, { url: disabledHooks.url });
    await t.a.client.PUT('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: off._id } }, body: { enabled: false } });

    const paymentId = await payLink(t.a);
    const refund = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 400 } });
    expect(refund.response.status).toBe(200);
    await waitFor('three deliveries', () => all.requests.length >= 2 && refundsOnly.requests.length >= 1);

    const allEvents = all.requests.map((r) => verifyWebhook(r.raw, r.headers as Record<string, string>, first.secret));
    expect(allEvents.map((e) => e.event)).toEqual(['payment.created', 'refund.succeeded']);
    const [refunded] = refundsOnly.requests.map((r) => verifyWebhook(r.raw, r.headers as Record<string, string>, second.secret));
    expect(refunded!.event).toBe('refund.succeeded');
    // Each endpoint's key verifies its own deliveries only.
    expect(() => verifyWebhook(refundsOnly.requests[0]!.raw, refundsOnly.requests[0]!.headers as Record<string, string>, first.secret)).toThrow();
    // One event, one id, two deliveries.
    const refundEventId = refundsOnly.requests[0]!.headers['webhook-id'] as string;
    expect(all.requests[1]!.headers['webhook-id']).toBe(refundEventId);
    await waitFor('both delivered', async () => (await eventOf(refundEventId)).status === 'delivered');
    const detail = await eventOf(refundEventId);
    expect(detail.endpoints.map((d) => [d.webhook_endpoint_id, d.status]).sort()).toEqual(
      [
        [first._id, 'delivered'],
        [second._id, 'delivered'],
      ].sort(),
    );
    expect(detail.deliveries.map((d) => d.webhook_endpoint_id).sort()).toEqual([first._id, second._id].sort());
    expect(disabledHooks.requests).toHaveLength(0);
    // The list shows the event once.
    const listed = (await t.a.client.GET('/events', { params: { query: { 'filter[type]': 'refund.succeeded' } } })).data!.data.data;
    expect(listed.filter((e) => e.id === refundEventId)).toHaveLength(1);
  });

  it('answer a test with a ping to that endpoint alone; a disabled one is a 409', async () => {
    const hooks = await receiver();
    const other = await receiver();
    const endpoint = await register(t.a, { url: hooks.url, enabled_events: ['refund.succeeded'] });
    await register(t.a, { url: other.url });
    const test = await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/test', { params: { path: { webhook_endpoint_id: endpoint._id } } });
    expect(test.response.status).toBe(200);
    expect(test.data!.data).toMatchObject({ type: 'ping', status: 'pending', data: { webhook_endpoint_id: endpoint._id, url: hooks.url } });
    const [ping] = await waitFor('the ping', () => hooks.requests.length > 0 && hooks.requests);
    expect(verifyWebhook(ping!.raw, ping!.headers as Record<string, string>, endpoint.secret)).toMatchObject({ event: 'ping' });
    await assertSchema('PingEvent', ping!.body);
    expect(ping!.headers['webhook-id']).toBe(test.data!.data.id);
    await waitFor('delivered', async () => (await eventOf(test.data!.data.id)).status === 'delivered');
    expect(other.requests).toHaveLength(0);

    await t.a.client.PUT('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: endpoint._id } }, body: { enabled: false } });
    const refused = await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/test', { params: { path: { webhook_endpoint_id: endpoint._id } } });
    expect(refused.response.status).toBe(409);
    expect(refused.error).toEqual({ message: 'The webhook endpoint is disabled; enable it first.' });
  });

  it('a receiver that is down: the failure shows in delivery_success=false; once it is back, a resend delivers', async () => {
    let hooks = await receiver();
    const port = Number(new URL(hooks.url).port);
    const endpoint = await register(t.a, { url: hooks.url });
    await hooks.close();
    const paymentId = await payLink(t.a, 1200);
    const failing = await waitFor('a failed attempt', async () => {
      const events = (await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': false } } })).data!.data.data;
      return events.find((e) => e.data.payment_id === paymentId);
    });
    const detail = await eventOf(failing.id);
    expect(detail.deliveries[0]).toMatchObject({ webhook_endpoint_id: endpoint._id, url: endpoint.url, outcome: 'failed', http_status: null });
    expect(detail.deliveries[0]!.error).toMatch(/^webhook not delivered: /);

    hooks = await receiver(undefined, port);
    const resent = await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: failing.id } } });
    expect(resent.response.status).toBe(200);
    const [request] = await waitFor('the resent delivery', () => hooks.requests.length > 0 && hooks.requests);
    expect(verifyWebhook(request!.raw, request!.headers as Record<string, string>, endpoint.secret)).toMatchObject({ event: 'payment.created' });
    await waitFor('delivered', async () => (await eventOf(failing.id)).delivery_success);
    const undelivered = (await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': false } } })).data!.data.data;
    expect(undelivered.map((e) => e.id)).not.toContain(failing.id);
  });

  it('resend to one endpoint, even one registered after the event; an unknown endpoint is a 422', async () => {
    const early = await receiver();
    const late = await receiver();
    const first = await register(t.a, { url: early.url });
    await payLink(t.a, 1300);
    await waitFor('the first delivery', () => early.requests.length > 0);
    const eventId = early.requests[0]!.headers['webhook-id'] as string;
    const second = await register(t.a, { url: late.url });
    const resent = await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: eventId } }, body: { webhook_endpoint_id: second._id } });
    expect(resent.response.status).toBe(200);
    const [request] = await waitFor('the delivery to the new endpoint', () => late.requests.length > 0 && late.requests);
    expect(request!.headers['webhook-id']).toBe(eventId);
    expect(verifyWebhook(request!.raw, request!.headers as Record<string, string>, second.secret)).toMatchObject({ event: 'payment.created' });
    expect(early.requests).toHaveLength(1);
    const detail = await waitFor('both delivered', async () => {
      const event = await eventOf(eventId);
      return event.status === 'delivered' && event;
    });
    expect(detail.endpoints.map((d) => d.webhook_endpoint_id)).toEqual([first._id, second._id]);

    const unknown = await t.a.client.POST('/events/{event_id}/resend', {
      params: { path: { event_id: eventId } },
      body: { webhook_endpoint_id: 'we_000000000000000000000000' },
    });
    expect(unknown.response.status).toBe(422);
    expect(unknown.error).toEqual({
      message: 'The given data was invalid.',
      errors: { webhook_endpoint_id: ['The selected webhook endpoint id is invalid.'] },
    });
    // A disabled endpoint would give the delivery up at once: enable it first.
    await t.a.client.PUT('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: second._id } }, body: { enabled: false } });
    const toDisabled = await t.a.client.POST('/events/{event_id}/resend', {
      params: { path: { event_id: eventId } },
      body: { webhook_endpoint_id: second._id },
    });
    expect(toDisabled.response.status).toBe(409);
    expect(toDisabled.error).toEqual({ message: 'The webhook endpoint is disabled; enable it first.' });
    // Another business's endpoint is as unknown.
    const theirs = await register(t.b, { url: 'https://hooks.example.test/b' });
    const crossed = await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: eventId } }, body: { webhook_endpoint_id: theirs._id } });
    expect(crossed.response.status).toBe(422);
    await t.b.client.DELETE('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: theirs._id } } });
  });

  it('rotating the key: both keys sign for 24 hours, then only the new one', async () => {
    const hooks = await receiver();
    const endpoint = await register(t.a, { url: hooks.url });
    const rotated = await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/rotate-secret', {
      params: { path: { webhook_endpoint_id: endpoint._id } },
    });
    expect(rotated.response.status).toBe(200);
    const fresh = rotated.data!.data;
    expect(fresh.secret).toMatch(/^whsec_/);
    expect(fresh.secret).not.toBe(endpoint.secret);
    const overlapHours = (Date.parse(fresh.previous_secret_expires_at!) - Date.now()) / 3_600_000;
    expect(overlapHours).toBeGreaterThan(23.9);
    expect(overlapHours).toBeLessThanOrEqual(24);

    await payLink(t.a, 1400);
    const [during] = await waitFor('a delivery during the overlap', () => hooks.requests.length > 0 && hooks.requests);
    const headers = during!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    // Each key alone verifies the request: a receiver switches over whenever it likes.
    expect(new Webhook(fresh.secret).verify(during!.raw, headers)).toMatchObject({ event: 'payment.created' });
    expect(new Webhook(endpoint.secret).verify(during!.raw, headers)).toMatchObject({ event: 'payment.created' });
    expect(verifyWebhook(during!.raw, headers, endpoint.secret)).toMatchObject({ event: 'payment.created' });
    expect(verifyWebhook(during!.raw, headers, fresh.secret)).toMatchObject({ event: 'payment.created' });

    // The overlap ends (moved to the past here rather than waited for).
    await t
      .sql('webhook_endpoints')
      .where({ _id: endpoint._id })
      .update({ previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(
      (await t.a.client.GET('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: endpoint._id } } })).data!.data
        .previous_secret_expires_at,
    ).toBeNull();
    await payLink(t.a, 1500);
    const after = (await waitFor('a delivery after the overlap', () => hooks.requests.length > 1 && hooks.requests))[1]!;
    const afterHeaders = after.headers as Record<string, string>;
    expect(afterHeaders['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyWebhook(after.raw, afterHeaders, fresh.secret)).toMatchObject({ event: 'payment.created' });
    expect(() => verifyWebhook(after.raw, afterHeaders, endpoint.secret)).toThrow();
  });

  it('deleted with a delivery waiting: the delivery is given up, and the event still lists', async () => {
    const endpoint = await register(t.a, { url: 'http://127.0.0.1:9/hooks' });
    await payLink(t.a, 1600);
    const event = await waitFor('a failed attempt', async () => {
      const events = (await t.a.client.GET('/events', { params: { query: { 'filter[delivery_success]': false } } })).data!.data.data;
      return events.find((e) => e.data.payment_amount === 1600);
    });
    await t.a.client.DELETE('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: endpoint._id } } });
    await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: event.id } } });
    const dead = await waitFor('given up', async () => {
      const detail = await eventOf(event.id);
      return detail.status === 'dead' && detail;
    });
    expect(dead.last_error).toBe('the webhook endpoint no longer exists');
    expect(dead.endpoints).toEqual([expect.objectContaining({ webhook_endpoint_id: null, url: null, status: 'dead' })]);
  });

  it('the endpoint set-webhook manages is the first one, for every event', async () => {
    const hooks = await receiver();
    await setWebhook(t.service.db, t.a.business.id, { url: hooks.url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, t.service.secretsKey);
    const later = await register(t.a, { url: 'https://hooks.example.test/later' });
    const listed = (await t.a.client.GET('/webhook-endpoints')).data!.data;
    expect(listed.map((e) => [e.url, e.enabled_events])).toEqual([
      [hooks.url, ['*']],
      [later.url, ['*']],
    ]);
    // Setting it again changes the first endpoint only.
    await setWebhook(
      t.service.db,
      t.a.business.id,
      { url: 'https://hooks.example.test/moved', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      t.service.secretsKey,
    );
    expect((await t.a.client.GET('/webhook-endpoints')).data!.data.map((e) => e.url)).toEqual(['https://hooks.example.test/moved', later.url]);
  });
});

describe("an endpoint's deliveries", () => {
  const deliveriesOf = (tenant: Tenant, id: string, query: { page?: number; per_page?: number; 'filter[outcome]'?: 'delivered' | 'failed' } = {}) =>
    tenant.client.GET('/webhook-endpoints/{webhook_endpoint_id}/deliveries', { params: { path: { webhook_endpoint_id: id }, query } });
  const ping = async (endpointId: string) =>
    (await t.a.client.POST('/webhook-endpoints/{webhook_endpoint_id}/test', { params: { path: { webhook_endpoint_id: endpointId } } })).data!.data.id;
  const settled = (eventId: string, attempts: number) =>
    waitFor(`${attempts} attempts of ${eventId}`, async () => {
      const event = await eventOf(eventId);
      return event.deliveries.length >= attempts && event;
    });

  it('lists every attempt to that endpoint alone, newest first, page by page, with the errors of the event detail', async () => {
    // The first request fails with a 500; a resend then delivers it.
    const hooks = await receiver((n) => (n === 1 ? 500 : 200));
    const elsewhere = await receiver();
    const mine = await register(t.a, { url: hooks.url });
    const other = await register(t.a, { url: elsewhere.url });

    const first = await ping(mine._id);
    await settled(first, 1);
    await t.a.client.POST('/events/{event_id}/resend', { params: { path: { event_id: first } } });
    const firstDetail = await settled(first, 2);
    const second = await ping(mine._id);
    await settled(second, 1);
    const toOther = await ping(other._id);
    await settled(toOther, 1);

    const listed = await deliveriesOf(t.a, mine._id);
    expect(listed.response.status).toBe(200);
    await assertSchema('EndpointDeliveryAttemptPageEnvelope', listed.data);
    const page = listed.data!.data;
    expect(page).toMatchObject({ current_page: 1, total: 3, from: 1, to: 3, last_page: 1, next_page_url: null });
    expect(page).not.toHaveProperty('total_is_lower_bound');
    expect(page.data.map((d) => [d.event_id, d.event_type, d.outcome, d.http_status, d.error])).toEqual([
      [second, 'ping', 'delivered', 200, null],
      [first, 'ping', 'delivered', 200, null],
      [first, 'ping', 'failed', 500, 'webhook answered HTTP 500'],
    ]);
    for (const attempt of page.data) {
      expect(attempt).toMatchObject({ webhook_endpoint_id: mine._id, url: hooks.url });
      expect(attempt.duration_ms).toBe(Date.parse(attempt.finished_at) - Date.parse(attempt.started_at));
    }
    // The same attempts as the event's detail shows them, with the event they carried.
    expect(page.data.slice(1).reverse()).toEqual(firstDetail.deliveries.map((d) => ({ event_id: first, event_type: 'ping', ...d })));

    const theirs = (await deliveriesOf(t.a, other._id)).data!.data;
    expect(theirs.data.map((d) => [d.event_id, d.webhook_endpoint_id])).toEqual([[toOther, other._id]]);

    const failed = (await deliveriesOf(t.a, mine._id, { 'filter[outcome]': 'failed' })).data!.data;
    expect(failed.data.map((d) => [d.event_id, d.outcome])).toEqual([[first, 'failed']]);
    expect(failed.total).toBe(1);

    // Two at a time: the pages follow one another through next_page_url, which keeps per_page.
    const pageOne = (await deliveriesOf(t.a, mine._id, { per_page: 2 })).data!.data;
    expect(pageOne).toMatchObject({ current_page: 1, per_page: 2, total: 3, last_page: 2, from: 1, to: 2, prev_page_url: null });
    expect(pageOne.next_page_url).toBe(`${t.url}/api/webhook-endpoints/${mine._id}/deliveries?per_page=2&page=2`);
    const next = await fetch(pageOne.next_page_url!, { headers: { authorization: `Bearer ${t.a.key}` } });
    const pageTwo = ((await next.json()) as { data: typeof page }).data;
    expect(pageTwo).toMatchObject({ current_page: 2, from: 3, to: 3, next_page_url: null });
    expect([...pageOne.data, ...pageTwo.data]).toEqual(page.data);
  });

  it("are another business's to read only for that business, and need events:read", async () => {
    const hooks = await receiver();
    const mine = await register(t.a, { url: hooks.url });
    const theirs = await deliveriesOf(t.b, mine._id);
    expect(theirs.response.status).toBe(404);
    expect(theirs.error).toEqual({ message: 'Webhook endpoint not found.' });
    for (const unknown of ['we_000000000000000000000000', 'nothing']) {
      const missing = await deliveriesOf(t.a, unknown);
      expect(missing.response.status).toBe(404);
      expect(missing.error).toEqual({ message: 'Webhook endpoint not found.' });
    }

    const keyWith = async (permissions: ('events:read' | 'webhooks:read')[]) =>
      t.clientFor((await t.a.client.POST('/api-keys', { body: { name: permissions.join(' '), permissions } })).data!.data.secret);
    const withoutEvents = await keyWith(['webhooks:read']);
    const refused = await withoutEvents.GET('/webhook-endpoints/{webhook_endpoint_id}/deliveries', { params: { path: { webhook_endpoint_id: mine._id } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error).toMatchObject({ required_permission: 'events:read' });
    const withEvents = await keyWith(['events:read']);
    const allowed = await withEvents.GET('/webhook-endpoints/{webhook_endpoint_id}/deliveries', { params: { path: { webhook_endpoint_id: mine._id } } });
    expect(allowed.response.status).toBe(200);
    expect(allowed.data!.data).toMatchObject({ data: [], total: 0 });
  });
});
