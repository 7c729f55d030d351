// GET /metrics: Prometheus's text format behind a bearer token, off without one, on a port of its own
// when asked; every family with HELP and TYPE, promtool's checks passed; the number of series the
// same with one business and with fifty (no label takes a tenant's, key's or payment's id); and what
// is counted (requests by route template, payments and refunds by acquirer and outcome, acquirer calls).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { issueKey } from '../../server/store/api-keys.js';
import * as create from '../support/factories.js';
import { useService, withService, type Tenant, type TestService } from '../support/service.js';

const TOKEN = 'metrics-token-for-the-suite-0123456789';
const METRICS_LABEL_PREFIX = 'payment_collection_';

const promtool = spawnSync('promtool', ['--version']).status === 0;

async function scrape(url: string, token: string | null = TOKEN): Promise<Response> {
  return fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
}

async function metricsText(t: TestService): Promise<string> {
  await t.service.worker!.drained();
  const response = await scrape(`${t.url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** Each series: its name and labels, without its value. */
function serviceSeries(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .filter((line) => line.startsWith(METRICS_LABEL_PREFIX))
      .map((line) => line.slice(0, line.lastIndexOf(' '))),
  );
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The same traffic for each tenant: a link made, paid on the sandbox's page and refunded; a list; a link that is not there. */
async function traffic(t: TestService, tenant: Tenant): Promise<string[]> {
  const { link, paymentId } = await create.paidLink(t, tenant);
  const refunded = await tenant.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: {} });
  expect(refunded.response.status).toBe(200);
  await tenant.client.GET('/payment-links', {});
  const missing = await tenant.client.GET('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: 'no-such-link' } } });
  expect(missing.response.status).toBe(404);
  return [link._id, paymentId, refunded.data!.data._id];
}

describe('/metrics with METRICS_TOKEN', () => {
  const t = useService({ metrics: { token: TOKEN } });

  it('answers 401 without the token or with another, 200 in the text format with it', async () => {
    expect((await scrape(`${t.url}/metrics`, null)).status).toBe(401);
    expect((await scrape(`${t.url}/metrics`, `${TOKEN}x`)).status).toBe(401);
    const refused = await scrape(`${t.url}/metrics`, t.a.key);
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="metrics"']);
    const answer = await scrape(`${t.url}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('has the same number of series with 1 business as with 51 doing the same traffic, and no id in any label', async () => {
    const ids = await traffic(t, t.a);
    const one = serviceSeries(await metricsText(t));
    const tenants: Tenant[] = [];
    for (let i = 0; i < 50; i += 1) {
      const business = await findOrCreateBusiness(t.service.db, `Metrics business ${i}`);
      const { key } = await issueKey(t.service.db, business.id);
      tenants.push({ business, key, client: t.clientFor(key) });
    }
    for (const tenant of tenants) ids.push(...(await traffic(t, tenant)));
    const text = await metricsText(t);
    const many = serviceSeries(text);
    expect([...many].sort()).toEqual([...one].sort());
    expect(many.size).toBeGreaterThan(20);
    for (const id of [...ids, ...tenants.map((tenant) => tenant.key)]) expect(text).not.toContain(id);
    expect(text).not.toMatch(/business|_id="/);
    // What the traffic was, counted as such: 51 payments and refunds on the sandbox, one link made and one refused per business.
    expect(sample(text, `${METRICS_LABEL_PREFIX}payments_total{acquirer="sandbox",method="card",outcome="succeeded"}`)).toBe(51);
    expect(sample(text, `${METRICS_LABEL_PREFIX}refunds_total{acquirer="sandbox",outcome="succeeded"}`)).toBe(51);
    expect(sample(text, `${METRICS_LABEL_PREFIX}http_requests_total{route="/api/payment-links",method="POST",status_class="2xx"}`)).toBe(51);
    expect(sample(text, `${METRICS_LABEL_PREFIX}http_requests_total{route="/api/payment-links/{payment_link_id}",method="GET",status_class="4xx"}`)).toBe(51);
    expect(sample(text, `${METRICS_LABEL_PREFIX}acquirer_request_duration_seconds_count{acquirer="sandbox",operation="refund"}`)).toBe(51);
    expect(sample(text, `${METRICS_LABEL_PREFIX}outbox_pending_entries`)).toBe(0);
  });

  it('gives every family HELP and TYPE, and passes promtool check metrics', async () => {
    await traffic(t, t.b);
    const text = await metricsText(t);
    const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    const helped = new Set([...text.matchAll(/^# HELP (\S+) /gm)].map((m) => m[1]!));
    expect(helped).toEqual(families);
    for (const line of text.split('\n').filter((candidate) => candidate && !candidate.startsWith('#'))) {
      const name = /^[a-z_:][a-z0-9_:]*/i.exec(line)![0];
      expect(name.startsWith(METRICS_LABEL_PREFIX), name).toBe(true);
      expect(
        [...families].some((family) => name === family || name.startsWith(`${family}_`)),
        name,
      ).toBe(true);
    }
    if (!promtool) {
      console.log('SKIPPED: promtool check metrics (promtool is not installed: apt-get install prometheus)');
      return;
    }
    // promtool's lint asks counters to end in _total and units in base units; it prints nothing and exits 0 when all is well.
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${checked.stdout}${checked.stderr}`).toBe('');
    expect(checked.status).toBe(0);
  });
});

describe('/metrics turned off or moved', () => {
  it('is not there without METRICS_TOKEN', async () => {
    await withService({}, async (t) => {
      expect((await scrape(`${t.url}/metrics`)).status).toBe(404);
      expect(t.service.metricsUrl).toBeUndefined();
    });
  });

  it('answers only on METRICS_PORT when one is given', async () => {
    await withService({ metrics: { token: TOKEN, port: 0 } }, async (t) => {
      expect((await scrape(`${t.url}/metrics`)).status).toBe(404);
      const url = t.service.metricsUrl!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await scrape(url, null)).status).toBe(401);
      const answer = await scrape(url);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain(`# TYPE ${METRICS_LABEL_PREFIX}http_requests_total counter`);
      expect((await scrape(url.replace('/metrics', '/health'))).status).toBe(404);
    });
  });
});
