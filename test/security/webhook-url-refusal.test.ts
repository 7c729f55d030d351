// Registering a webhook URL must not tell a business what the service's own network holds. The refusal
// used to say why: `http://vm/` was "host vm (127.0.0.1) is a loopback address" and another name
// "ENOTFOUND", so any API key could map internal DNS names and what they point at. Now every refusal
// is the same 422, and the reason goes to the server log with the business (never the URL's path or
// query). The service runs with production's settings; names resolve through a stub, nothing connects.
import { describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_PORTS, type Resolver } from '../../server/outbox/webhook-target.js';
import { capturedLog } from '../support/log.js';
import { useService } from '../support/service.js';

const NAMES: Record<string, { address: string; family: number }[]> = {
  vm: [{ address: '127.0.0.1', family: 4 }],
  'db.internal': [{ address: '10.0.0.5', family: 4 }],
  'aws.internal': [{ address: 'fd00:ec2::254', family: 6 }],
  'empty.example.test': [],
  'hooks.example.test': [{ address: '93.184.215.14', family: 4 }],
};
const resolve: Resolver = async (hostname) => {
  const answer = NAMES[hostname];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
};

const { logger, lines } = capturedLog();

const t = useService({
  outbox: { webhookAllowPrivate: false, webhookAllowedPorts: DEFAULT_WEBHOOK_PORTS },
  resolve,
  logger,
});

/** Each refused URL, with the reason the log must give. The path and query carry a marker that must not be logged. */
const REFUSED: [string, RegExp][] = [
  ['http://vm/secret-path?token=s3cret', /host vm \(127\.0\.0\.1\) is a loopback address/],
  ['https://unknown.example.test/secret-path?token=s3cret', /unknown\.example\.test could not be resolved \(ENOTFOUND\)/],
  ['https://empty.example.test/secret-path?token=s3cret', /empty\.example\.test resolves to no address/],
  ['http://db.internal:8443/secret-path?token=s3cret', /db\.internal \(10\.0\.0\.5\) is a private/],
  ['http://169.254.169.254/latest/meta-data/secret-path?token=s3cret', /169\.254\.169\.254 is a link-local/],
  ['http://aws.internal/latest/meta-data/secret-path?token=s3cret', /aws\.internal \(fd00:ec2::254\) is a cloud metadata \(AWS\) address/],
  ['http://[fd00:ec2::254]/latest/meta-data/secret-path?token=s3cret', /fd00:ec2::254 is a cloud metadata \(AWS\) address/],
  ['http://100.100.100.200/latest/meta-data/secret-path?token=s3cret', /cloud metadata \(Alibaba Cloud\)/],
  ['https://hooks.example.test:8080/secret-path?token=s3cret', /port 8080 is not one webhooks may use/],
  ['http://hooks.example.test:25/secret-path?token=s3cret', /port 25 is not one webhooks may use/],
];

describe('a refused webhook URL', () => {
  it('is one 422 for every reason, at registration and on a change of URL; the log says why', async () => {
    const answers: unknown[] = [];
    const accepted = await t.a.client.POST('/webhook-endpoints', { body: { url: 'https://hooks.example.test/hooks' } });
    expect(accepted.response.status).toBe(200);
    const id = accepted.data!.data._id;
    for (const [url] of [...REFUSED, [`${t.url}/api/payment-links?token=s3cret`, /points at this service itself/] as const]) {
      const created = await t.a.client.POST('/webhook-endpoints', { body: { url } });
      const moved = await t.a.client.PUT('/webhook-endpoints/{webhook_endpoint_id}', { params: { path: { webhook_endpoint_id: id } }, body: { url } });
      for (const answer of [created, moved]) {
        expect(answer.response.status, url).toBe(422);
        answers.push(answer.error);
      }
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer)))).toEqual(
      new Set([
        JSON.stringify({ message: 'The given data was invalid.', errors: { url: ['The url is not allowed: this address is not allowed for webhooks.'] } }),
      ]),
    );
    expect((await t.a.client.GET('/webhook-endpoints')).data!.data.map((endpoint) => endpoint.url)).toEqual(['https://hooks.example.test/hooks']);

    const refusals = lines.filter((line) => line.msg === 'webhook URL refused');
    // Two per URL (create, then change), in order.
    expect(refusals).toHaveLength(2 * (REFUSED.length + 1));
    for (const [i, [url, reason]] of REFUSED.entries()) {
      for (const line of refusals.slice(2 * i, 2 * i + 2)) {
        expect(line, url).toMatchObject({
          level: 40,
          business_id: t.a.business.id,
          webhook_origin: new URL(url).origin,
          reason: expect.stringMatching(reason),
        });
      }
    }
    expect(refusals.at(-1)).toMatchObject({ reason: 'the webhook URL points at this service itself' });
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain('secret-path');
    expect(logged).not.toContain('s3cret');
  });
});
