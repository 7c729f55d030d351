// Webhook URLs cannot reach this machine, private networks or cloud metadata (blind SSRF): every
// address form is refused when the URL is registered and again when an event is delivered, a name
// that changes its answer between the check and the connection (DNS rebinding) is refused, and
// redirects are not followed. The business reads only that the address is not allowed; the reason
// is in the server log. Name resolution is stubbed throughout: no test resolves a name for real, and
// nothing here connects anywhere but 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDeliverers } from '../../server/outbox/deliverers.js';
import type { Mailer } from '../../server/outbox/mailer.js';
import { ATTEMPT_ERRORS } from '../../server/outbox/webhook-client.js';
import { ANY_PORT, checkWebhookUrl, type PortRange, type ResolvedAddress, type Resolver, type WebhookPolicy } from '../../server/outbox/webhook-target.js';
import { OutboxWorker } from '../../server/outbox/worker.js';
import { findOrCreateBusiness, setWebhook } from '../../server/store/businesses.js';
import { enqueue, listAttempts, listOutbox, type OutboxEntry } from '../../server/store/outbox.js';
import { capturedLog } from '../support/log.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { withService } from '../support/service.js';
import { useMigratedDatabase } from '../support/store.js';
import { waitFor } from '../support/wait.js';
import { MasterKey, parseMasterKey } from '../../server/secrets/master-key.js';
import { TEST_SECRETS_KEY } from '../support/secrets.js';
import * as create from '../support/factories.js';

/** Seals the webhook keys these tests store, and opens them at delivery. */
const KEY = new MasterKey(parseMasterKey(TEST_SECRETS_KEY));

const store = useMigratedDatabase('ssrf');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PUBLIC = '93.184.215.14';

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** What the stubbed resolver answers, per name; each call is counted. */
const NAMES: Record<string, ResolvedAddress[]> = {
  localhost: [v4('127.0.0.1'), v6('::1')],
  'localhost.': [v4('127.0.0.1')],
  'metadata.test': [v4('169.254.169.254')],
  'internal.test': [v4('10.1.2.3')],
  'ula.test': [v6('fd12:3456::1')],
  'mapped.test': [v6('::ffff:127.0.0.1')],
  'aws-metadata.test': [v6('fd00:ec2::254')],
  'alibaba-metadata.test': [v4('100.100.100.200')],
  // One good answer does not make a bad one good: every address must pass.
  'mixed.test': [v4(PUBLIC), v4('10.0.0.7')],
  'public.test': [v4(PUBLIC), v6('2606:4700::6810:84e5')],
};

function stubResolver(answers: Record<string, ResolvedAddress[] | (() => ResolvedAddress[])> = NAMES) {
  const calls: string[] = [];
  const resolve: Resolver = async (hostname) => {
    calls.push(hostname);
    const answer = answers[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof answer === 'function' ? answer() : answer;
  };
  return { resolve, calls };
}

/** Every form that must be refused without WEBHOOK_ALLOW_PRIVATE, with what the refusal says. `PORT` is filled in. */
const REFUSED: [string, RegExp][] = [
  ['http://127.0.0.1:PORT/hooks', /127\.0\.0\.1 is a loopback address/],
  ['http://127.0.0.2:PORT/hooks', /127\.0\.0\.2 is a loopback address/],
  ['http://[::1]:PORT/hooks', /::1 is a loopback address/],
  ['http://[::ffff:127.0.0.1]:PORT/hooks', /loopback, IPv4-mapped address/],
  ['http://[::ffff:7f00:1]:PORT/hooks', /loopback, IPv4-mapped address/],
  ['http://2130706433:PORT/hooks', /127\.0\.0\.1 is a loopback address/],
  ['http://0x7f000001:PORT/hooks', /127\.0\.0\.1 is a loopback address/],
  ['http://127.1:PORT/hooks', /127\.0\.0\.1 is a loopback address/],
  ['http://0177.0.0.1:PORT/hooks', /127\.0\.0\.1 is a loopback address/],
  ['http://localhost:PORT/hooks', /localhost \(127\.0\.0\.1\) is a loopback address/],
  ['http://localhost.:PORT/hooks', /localhost\. \(127\.0\.0\.1\) is a loopback address/],
  ['http://0.0.0.0:PORT/hooks', /unspecified/],
  ['http://[::]:PORT/hooks', /unspecified/],
  ['http://10.0.0.1:PORT/hooks', /private \(RFC 1918\)/],
  ['http://172.16.0.1:PORT/hooks', /private \(RFC 1918\)/],
  ['http://172.31.255.254:PORT/hooks', /private \(RFC 1918\)/],
  ['http://192.168.1.1:PORT/hooks', /private \(RFC 1918\)/],
  ['http://100.64.0.1:PORT/hooks', /carrier-grade NAT/],
  ['http://169.254.169.254:PORT/latest/meta-data/', /link-local \(cloud metadata/],
  ['http://[fe80::1]:PORT/hooks', /link-local/],
  ['http://[fc00::1]:PORT/hooks', /unique local IPv6/],
  // Cloud metadata outside link-local, named one by one (and refused with WEBHOOK_ALLOW_PRIVATE too).
  ['http://[fd00:ec2::254]:PORT/latest/meta-data/', /fd00:ec2::254 is a cloud metadata \(AWS\) address/],
  ['http://[fd00:ec2::23]:PORT/v1/credentials', /cloud metadata \(AWS\)/],
  ['http://100.100.100.200:PORT/latest/meta-data/', /100\.100\.100\.200 is a cloud metadata \(Alibaba Cloud\) address/],
  ['http://[::ffff:100.100.100.200]:PORT/latest/meta-data/', /cloud metadata \(Alibaba Cloud\), IPv4-mapped/],
  ['http://[fd20:ce::254]:PORT/computeMetadata/v1/', /cloud metadata \(Google Cloud\)/],
  ['http://[fd00:c1::a9fe:a9fe]:PORT/opc/v2/instance/', /cloud metadata \(Oracle Cloud\)/],
  ['http://[fd00:42::42]:PORT/conf', /cloud metadata \(Scaleway\)/],
  ['http://168.63.129.16:PORT/machine?comp=goalstate', /cloud metadata \(Azure WireServer\)/],
  ['http://192.0.0.192:PORT/opc/v1/instance/', /reserved or documentation/],
  ['http://aws-metadata.test:PORT/latest/meta-data/', /aws-metadata\.test \(fd00:ec2::254\) is a cloud metadata \(AWS\)/],
  ['http://alibaba-metadata.test:PORT/latest/meta-data/', /alibaba-metadata\.test \(100\.100\.100\.200\) is a cloud metadata/],
  ['http://224.0.0.1:PORT/hooks', /multicast/],
  ['http://[ff02::1]:PORT/hooks', /multicast/],
  ['http://255.255.255.255:PORT/hooks', /broadcast/],
  ['http://192.0.2.1:PORT/hooks', /reserved or documentation/],
  ['http://198.18.0.1:PORT/hooks', /reserved or documentation/],
  ['http://240.0.0.1:PORT/hooks', /reserved or documentation/],
  ['http://[2001:db8::1]:PORT/hooks', /reserved or documentation/],
  ['http://[::127.0.0.1]:PORT/hooks', /reserved or documentation/],
  ['http://[64:ff9b::7f00:1]:PORT/hooks', /loopback, through NAT64/],
  ['http://[2002:7f00:1::]:PORT/hooks', /6to4/],
  ['http://metadata.test:PORT/latest/meta-data/', /metadata\.test \(169\.254\.169\.254\) is a link-local/],
  ['http://internal.test:PORT/hooks', /internal\.test \(10\.1\.2\.3\) is a private/],
  ['http://ula.test:PORT/hooks', /ula\.test \(fd12:3456::1\) is a unique local IPv6/],
  ['http://mapped.test:PORT/hooks', /mapped\.test \(::ffff:127\.0\.0\.1\) is a loopback, IPv4-mapped/],
  ['http://mixed.test:PORT/hooks', /mixed\.test \(10\.0\.0\.7\) is a private/],
];

/** As in production: private receivers refused, webhooks on ports 80, 443 and 8443 unless `allowedPorts` says otherwise. */
const production = (resolve: Resolver, serviceUrls = ['http://localhost:3000', 'https://pay.example.com'], allowedPorts?: PortRange[]): WebhookPolicy => ({
  allowPrivate: false,
  allowedPorts,
  serviceUrls,
  resolve,
});

describe('at registration (the check set-webhook runs)', () => {
  it.each(REFUSED)('refuses %s', async (url, reason) => {
    const check = await checkWebhookUrl(url.replace('PORT', '8080'), production(stubResolver().resolve));
    expect(check).toMatchObject({ ok: false, permanent: true, problem: expect.stringMatching(reason) });
    if (!check.ok) expect(check.problem).toMatch(/webhooks go only to public addresses/);
  });

  it('accepts public addresses, by name and as literals, and resolves names itself', async () => {
    const { resolve, calls } = stubResolver();
    for (const url of ['https://public.test/hooks', `http://${PUBLIC}/hooks`, 'https://[2606:4700::6810:84e5]/hooks', 'https://[64:ff9b::5db8:d70e]/hooks']) {
      expect(await checkWebhookUrl(url, production(resolve)), url).toMatchObject({ ok: true });
    }
    expect(calls).toEqual(['public.test']);
  });

  it('refuses ports other than 80, 443 and 8443, unless WEBHOOK_ALLOWED_PORTS names them', async () => {
    const { resolve } = stubResolver();
    for (const url of ['https://public.test/hooks', 'http://public.test/hooks', 'https://public.test:8443/hooks', `http://${PUBLIC}:443/hooks`])
      expect(await checkWebhookUrl(url, production(resolve)), url).toMatchObject({ ok: true });
    for (const [url, port] of [
      ['https://public.test:8080/hooks', 8080],
      [`http://${PUBLIC}:25/`, 25],
      ['http://public.test:22/', 22],
      ['https://[2606:4700::6810:84e5]:6379/', 6379],
    ] as const) {
      expect(await checkWebhookUrl(url, production(resolve)), url).toEqual({
        ok: false,
        permanent: true,
        problem: `the webhook URL's port ${port} is not one webhooks may use (WEBHOOK_ALLOWED_PORTS: 80,443,8443)`,
      });
    }
    const widened = production(resolve, undefined, [
      [443, 443],
      [8000, 8999],
    ]);
    expect(await checkWebhookUrl('https://public.test:8080/hooks', widened)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('http://public.test/hooks', widened)).toMatchObject({ ok: false, problem: expect.stringMatching(/port 80 .*443,8000-8999/) });
  });

  it('refuses a name that does not resolve, saying so', async () => {
    expect(await checkWebhookUrl('https://nowhere.test/hooks', production(stubResolver().resolve))).toEqual({
      ok: false,
      permanent: false,
      problem: "the webhook URL's host nowhere.test could not be resolved (ENOTFOUND)",
    });
  });

  it('with WEBHOOK_ALLOW_PRIVATE, accepts loopback and private receivers but still refuses the service itself and the never-deliverable ranges', async () => {
    const policy: WebhookPolicy = {
      allowPrivate: true,
      allowedPorts: ANY_PORT,
      serviceUrls: ['http://localhost:3000', 'https://pay.example.com'],
      resolve: stubResolver().resolve,
    };
    for (const url of [
      'http://127.0.0.1:8080/hooks',
      'http://localhost:8080/hooks',
      'http://10.0.0.1/hooks',
      'http://[fd00::1]:8080/hooks',
      'http://internal.test/hooks',
    ]) {
      expect(await checkWebhookUrl(url, policy), url).toMatchObject({ ok: true });
    }
    for (const url of [
      'http://localhost:3000/hooks',
      'http://127.0.0.2:3000/hooks',
      'http://[::ffff:127.0.0.1]:3000/hooks',
      'http://localhost.:3000/hooks',
      'http://2130706433:3000/',
      'https://pay.example.com/api/payment-links',
    ]) {
      expect(await checkWebhookUrl(url, policy), url).toEqual({ ok: false, permanent: true, problem: 'the webhook URL points at this service itself' });
    }
    for (const [url, reason] of [
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ['http://metadata.test/', /link-local/],
      ['http://0.0.0.0:8080/', /unspecified/],
      ['http://[::]:8080/', /unspecified/],
      ['http://224.0.0.1/', /multicast/],
      // Metadata services that sit in the private ranges this setting opens.
      ['http://[fd00:ec2::254]/latest/meta-data/', /cloud metadata \(AWS\)/],
      ['http://aws-metadata.test/latest/meta-data/', /cloud metadata \(AWS\)/],
      ['http://100.100.100.200/latest/meta-data/', /cloud metadata \(Alibaba Cloud\)/],
      ['http://alibaba-metadata.test/latest/meta-data/', /cloud metadata \(Alibaba Cloud\)/],
      ['http://[fd20:ce::254]/computeMetadata/v1/', /cloud metadata \(Google Cloud\)/],
      ['http://[fd00:c1::a9fe:a9fe]/opc/v2/instance/', /cloud metadata \(Oracle Cloud\)/],
    ] as const) {
      expect(await checkWebhookUrl(url, policy), url).toMatchObject({ ok: false, problem: expect.stringMatching(reason) });
    }
  });
});

describe('at delivery', () => {
  const mailer: Mailer = { describe: 'nowhere', send: async () => {}, close: () => {} };
  const workers: OutboxWorker[] = [];
  let receiver: Receiver;
  let port: number;
  let round = 0;
  beforeAll(async () => {
    // Every URL below carries this receiver's port: a loopback form that slipped through would land here.
    receiver = await startReceiver();
    port = Number(new URL(receiver.url).port);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });
  afterAll(async () => {
    await receiver.close();
  });

  /**
   * Registers each URL for a business of its own (bypassing the registration check), enqueues one
   * event each and delivers them; answers the entries and, per entry, the log's reason for its failure.
   */
  async function deliver(urls: string[], policy: WebhookPolicy): Promise<(OutboxEntry & { logged: unknown })[]> {
    round += 1;
    const ids: number[] = [];
    for (const [i, url] of urls.entries()) {
      const business = await findOrCreateBusiness(store.db, `round ${round} form ${i}`);
      await setWebhook(store.db, business.id, { url, secret: SECRET }, KEY);
      const payload = { id: `evt_${round}_${i}`, body: { trigger_at: new Date().toISOString(), event: 'payment.created', data: { payment_id: String(i) } } };
      ids.push(await enqueue(store.db, { business_id: business.id, channel: 'webhook', topic: 'payment.created', payload }));
    }
    const { logger, lines } = capturedLog();
    const deliverers = createDeliverers(store.db, mailer, {
      webhookTimeoutMs: 2_000,
      webhookPolicy: policy,
      breaker: { threshold: 100, coolDownMs: 60_000 },
      secretsKey: KEY,
    });
    const worker = new OutboxWorker(store.db, deliverers, {
      pollMs: 10,
      leaseMs: 30_000,
      concurrency: 8,
      perBusinessConcurrency: 1,
      retry: { baseMs: 10, capMs: 20, maxAttempts: 2 },
      logger,
    });
    workers.push(worker);
    worker.start();
    const mine = async () => (await listOutbox(store.db, { channel: 'webhook' })).filter((entry) => ids.includes(entry.id));
    await waitFor('every entry to settle', async () => (await mine()).every((entry) => entry.status !== 'pending'), 20_000);
    const logged = (entry: OutboxEntry) => lines.findLast((line) => line.outbox_id === entry.id && line.business_id === entry.business_id)?.error;
    await waitFor('the failures to be logged', async () => (await mine()).every((entry) => entry.status === 'delivered' || logged(entry)));
    // Stopped here, not after the test: a test that delivers again must not have this worker take its entries.
    await worker.stop();
    return (await mine()).map((entry) => ({ ...entry, logged: logged(entry) }));
  }

  it('refuses every form before any request, marking the event dead as "address not allowed", the reason in the log', async () => {
    const urls = REFUSED.map(([url]) => url.replace('PORT', String(port)));
    const { resolve } = stubResolver();
    // The service's own address is elsewhere, and the receiver's port allowed: these are refused as addresses.
    const entries = await deliver(urls, production(resolve, ['http://127.0.0.1:1'], [[port, port]]));
    expect(receiver.requests).toHaveLength(0);
    for (const [i, entry] of entries.entries()) {
      expect(entry, urls[i]).toMatchObject({ status: 'dead', attempts: 1, last_error: ATTEMPT_ERRORS.notAllowed });
      expect(entry.logged, urls[i]).toMatch(REFUSED[i]![1]);
      // The log names the host and its address, never the URL's path.
      expect(entry.logged, urls[i]).not.toMatch(/\/hooks|meta-data|\/opc\/|computeMetadata|credentials|goalstate/);
      expect((await listAttempts(store.db, entry.id)).map((a) => [a.outcome, a.error])).toEqual([['failed', ATTEMPT_ERRORS.notAllowed]]);
    }
  });

  it('refuses a port other than 80, 443 and 8443 unless allowed, before any request', async () => {
    const { resolve } = stubResolver();
    const policy: WebhookPolicy = { allowPrivate: true, serviceUrls: ['http://127.0.0.1:1'], resolve };
    const [entry] = await deliver([`http://127.0.0.1:${port}/hooks`], policy);
    expect(receiver.requests).toHaveLength(0);
    expect(entry).toMatchObject({ status: 'dead', attempts: 1, last_error: ATTEMPT_ERRORS.notAllowed });
    expect(entry!.logged).toBe(`the webhook URL's port ${port} is not one webhooks may use (WEBHOOK_ALLOWED_PORTS: 80,443,8443)`);
    const [allowed] = await deliver([`http://127.0.0.1:${port}/hooks`], {
      ...policy,
      allowedPorts: [
        [443, 443],
        [port - 1, port + 1],
      ],
    });
    expect(allowed).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(receiver.requests).toHaveLength(1);
    receiver.requests.length = 0;
  });

  it('refuses a name that answers a public address to the check and 127.0.0.1 to the connection (DNS rebinding)', async () => {
    let lookups = 0;
    const { resolve, calls } = stubResolver({ 'rebind.test': () => (++lookups === 1 ? [v4(PUBLIC)] : [v4('127.0.0.1')]) });
    const [entry] = await deliver([`http://rebind.test:${port}/hooks`], production(resolve, ['http://127.0.0.1:1'], [[port, port]]));
    // The check saw the public address, the socket's own lookup saw 127.0.0.1 and connected nowhere.
    expect(calls).toEqual(['rebind.test', 'rebind.test']);
    expect(receiver.requests).toHaveLength(0);
    expect(entry).toMatchObject({ status: 'dead', attempts: 1, last_error: ATTEMPT_ERRORS.notAllowed });
    expect(entry!.logged).toMatch(/rebind\.test \(127\.0\.0\.1\) is a loopback address/);
  });

  it('with WEBHOOK_ALLOW_PRIVATE, refuses a name that leads to cloud metadata (a slip would reach only the loopback receiver)', async () => {
    // The first answer is the one the check sees; should it pass, the connection's own lookup gets 127.0.0.1,
    // so a broken check shows as a request at the receiver, never as a connection to a metadata address.
    const firstThenLoopback = (address: ResolvedAddress) => {
      let lookups = 0;
      return () => (++lookups === 1 ? [address] : [v4('127.0.0.1')]);
    };
    const { resolve } = stubResolver({
      'aws.test': firstThenLoopback(v6('fd00:ec2::254')),
      'alibaba.test': firstThenLoopback(v4('100.100.100.200')),
      'gcp.test': firstThenLoopback(v6('fd20:ce::254')),
    });
    const urls = ['aws.test', 'alibaba.test', 'gcp.test'].map((name) => `http://${name}:${port}/latest/meta-data/`);
    const entries = await deliver(urls, { allowPrivate: true, allowedPorts: ANY_PORT, serviceUrls: ['http://127.0.0.1:1'], resolve });
    expect(receiver.requests).toHaveLength(0);
    for (const [i, entry] of entries.entries()) {
      expect(entry, urls[i]).toMatchObject({ status: 'dead', attempts: 1, last_error: ATTEMPT_ERRORS.notAllowed });
      expect(entry.logged, urls[i]).toMatch(/is a cloud metadata \((AWS|Alibaba Cloud|Google Cloud)\) address/);
    }
  });

  it('with WEBHOOK_ALLOW_PRIVATE, delivers to a loopback receiver but never to the service itself in any form', async () => {
    const service = await startReceiver();
    try {
      const servicePort = new URL(service.url).port;
      const { resolve } = stubResolver();
      const policy: WebhookPolicy = { allowPrivate: true, allowedPorts: ANY_PORT, serviceUrls: [`http://127.0.0.1:${servicePort}`], resolve };
      const selfUrls = [
        `http://127.0.0.1:${servicePort}/api/payment-links`,
        `http://127.0.0.2:${servicePort}/api/payment-links`,
        `http://[::ffff:127.0.0.1]:${servicePort}/api/payment-links`,
        `http://2130706433:${servicePort}/api/payment-links`,
        `http://localhost.:${servicePort}/api/payment-links`,
        `http://mapped.test:${servicePort}/api/payment-links`,
      ];
      const entries = await deliver([`http://localhost:${port}/hooks`, ...selfUrls], policy);
      expect(entries[0]).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(receiver.requests).toHaveLength(1);
      receiver.requests.length = 0;
      for (const [i, entry] of entries.slice(1).entries()) {
        expect(entry, selfUrls[i]).toMatchObject({ status: 'dead', attempts: 1, last_error: ATTEMPT_ERRORS.notAllowed });
        expect(entry.logged, selfUrls[i]).toBe('the webhook URL points at this service itself');
      }
      expect(service.requests).toHaveLength(0);
    } finally {
      await service.close();
    }
  });

  it('does not follow a redirect: a 30x is a failed attempt, and its Location gets nothing', async () => {
    const elsewhere = await startReceiver();
    const redirecting = await startReceiver(() => ({ status: 302, headers: { location: elsewhere.url } }));
    try {
      const { resolve } = stubResolver();
      const [entry] = await deliver([redirecting.url], { allowPrivate: true, allowedPorts: ANY_PORT, serviceUrls: ['http://127.0.0.1:1'], resolve });
      expect(redirecting.requests).toHaveLength(2);
      expect(elsewhere.requests).toHaveLength(0);
      expect(entry).toMatchObject({ status: 'dead', attempts: 2, last_error: 'webhook answered HTTP 302' });
    } finally {
      await elsewhere.close();
      await redirecting.close();
    }
  });
});

describe('the running service, with private receivers refused as in production', () => {
  it('pays, then refuses the webhook to a name that leads to loopback and marks it dead, sending nothing', async () => {
    const receiver = await startReceiver();
    const { resolve, calls } = stubResolver();
    const { logger, lines } = capturedLog();
    await withService({ outbox: { webhookAllowPrivate: false, webhookTimeoutMs: 2_000 }, resolve, logger }, async (t) => {
      await setWebhook(t.service.db, t.a.business.id, { url: `http://localhost.:${new URL(receiver.url).port}/hooks`, secret: SECRET }, t.service.secretsKey);
      const link = await create.paymentLink(t.a, { amount: 1050, title: 'Invoice 9' });
      const url = new URL(link.payment_url);
      const payer = new Payer(t.url);
      expect((await payer.submit(await payer.open(url.pathname + url.search), { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
      const [entry] = await waitFor('the webhook to be refused', async () => {
        const entries = await listOutbox(t.service.db, { channel: 'webhook', status: 'dead' });
        return entries.length && entries;
      });
      expect(entry).toMatchObject({ attempts: 1, last_error: ATTEMPT_ERRORS.notAllowed });
      const line = await waitFor('the warning', () => lines.find((l) => l.outbox_id === entry!.id));
      expect(line).toMatchObject({
        level: 40,
        business_id: t.a.business.id,
        error: expect.stringMatching(/localhost\. \(127\.0\.0\.1\) is a loopback address; webhooks go only to public addresses/),
      });
      expect(calls).toContain('localhost.');
      expect(receiver.requests).toHaveLength(0);
    }).finally(async () => {
      await receiver.close();
    });
  });
});
