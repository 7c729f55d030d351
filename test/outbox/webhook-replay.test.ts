// The receiver that docs/integrating.md and openapi.yaml advise (verify the Standard Webhooks headers with
// verifyWebhook, drop webhook-ids already processed) against a real delivery sent again byte for
// byte: the repeat is not processed, and once its timestamp is stale it is refused outright. A
// receiver that trusts data.hash alone, the legacy seed signature, takes the same replay every time.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventHash, verifyWebhook } from '../../client/webhooks.js';
import { setWebhook } from '../../server/store/businesses.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.js';
import { useServicePerTest, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

type Outcome = 'processed' | 'repeat' | `refused: ${string}`;

interface TestReceiver {
  url: string;
  outcomes: Outcome[];
  close(): Promise<void>;
}

/** Serves `handle(raw, headers)` on loopback, recording what it decided for each request. */
async function serve(handle: (raw: string, headers: IncomingHttpHeaders) => Outcome): Promise<TestReceiver> {
  const outcomes: Outcome[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req
      .on('data', (chunk) => (raw += chunk))
      .on('end', () => {
        const outcome = handle(raw, req.headers);
        outcomes.push(outcome);
        res.writeHead(outcome.startsWith('refused') ? 400 : 204).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    outcomes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** docs/integrating.md's receiver: verifyWebhook, then drop a webhook-id already processed (acknowledged, not processed again). */
function documentedReceiver(processed = new Set<string>()) {
  return serve((raw, headers) => {
    try {
      verifyWebhook(raw, headers as Record<string, string>, SECRET);
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
    const id = String(headers['webhook-id']);
    if (processed.has(id)) return 'repeat';
    processed.add(id);
    return 'processed';
  });
}

/** What the seed's receivers did: recompute data.hash and nothing else. */
function hashOnlyReceiver() {
  return serve((raw) => {
    const { data } = JSON.parse(raw) as { data: Record<string, unknown> };
    return eventHash(SECRET, data) === data.hash ? 'processed' : 'refused: data.hash does not match';
  });
}

/** Sends a captured delivery again, exactly: same raw body, same webhook-* headers. */
async function replay(request: ReceivedRequest, url: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) headers[name] = String(request.headers[name]);
  const response = await fetch(url, { method: 'POST', body: request.raw, headers });
  await response.body?.cancel();
  return response.status;
}

const receivers: TestReceiver[] = [];
let t: TestService | undefined;
let capture: Receiver | undefined;
afterEach(async () => {
  vi.useRealTimers();
  for (const receiver of receivers.splice(0)) await receiver.close();
  await capture?.close();
  t = capture = undefined;
});
// Registered after the hook above, so each test's service closes before what it delivered to.
const serviceWith = useServicePerTest();

/** A real payment.created delivery from the service, as it arrived on the wire. */
async function deliveredEvent(): Promise<ReceivedRequest> {
  capture = await startReceiver();
  t = await serviceWith();
  await setWebhook(t.service.db, t.a.business.id, { url: capture.url, secret: SECRET }, t.service.secretsKey);
  const link = await create.paymentLink(t.a, { amount: 1050, title: 'Invoice 9' });
  const url = new URL(link.payment_url);
  const payer = new Payer(t.url);
  expect((await payer.submit(await payer.open(url.pathname + url.search), { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
  const [request] = await waitFor('the webhook', () => capture!.requests.length && capture!.requests);
  return request!;
}

describe('a delivery sent again (replay)', () => {
  it('is processed once by the documented receiver: the repeat is acknowledged and dropped by its webhook-id', async () => {
    const request = await deliveredEvent();
    const receiver = await documentedReceiver();
    receivers.push(receiver);
    expect(await replay(request, receiver.url)).toBe(204);
    expect(await replay(request, receiver.url)).toBe(204);
    expect(await replay(request, receiver.url)).toBe(204);
    expect(receiver.outcomes).toEqual(['processed', 'repeat', 'repeat']);
  });

  it('is refused once its timestamp is more than 5 minutes old, even by a receiver that no longer holds the id', async () => {
    const request = await deliveredEvent();
    const sentAt = Number(request.headers['webhook-timestamp']) * 1000;
    // Within the window a receiver without the id (restarted, ids pruned) takes it: the ids are what stop it there.
    const forgetful = await documentedReceiver();
    receivers.push(forgetful);
    expect(await replay(request, forgetful.url)).toBe(204);
    expect(forgetful.outcomes).toEqual(['processed']);

    // Six minutes on, the signed timestamp gives it away.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(sentAt + 6 * 60_000);
    const later = await documentedReceiver();
    receivers.push(later);
    expect(await replay(request, later.url)).toBe(400);
    expect(later.outcomes).toEqual(['refused: Message timestamp too old']);
  });

  it('passes data.hash every time: the legacy signature alone cannot stop a replay', async () => {
    const request = await deliveredEvent();
    const sentAt = Number(request.headers['webhook-timestamp']) * 1000;
    const receiver = await hashOnlyReceiver();
    receivers.push(receiver);
    expect(await replay(request, receiver.url)).toBe(204);
    expect(await replay(request, receiver.url)).toBe(204);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(sentAt + 24 * 60 * 60_000);
    expect(await replay(request, receiver.url)).toBe(204);
    expect(receiver.outcomes).toEqual(['processed', 'processed', 'processed']);
  });
});
