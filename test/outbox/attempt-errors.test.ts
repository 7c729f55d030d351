// What a business reads about a failed webhook attempt is a broad category, not the socket's own words:
// "ECONNREFUSED" against "HTTP 404" against an SMTP server's greeting would let any business map which
// ports answer on a host, and what runs there (a port scan run through the service). The exact cause
// goes to the server log. Every receiver here listens on 127.0.0.1; names are not resolved.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_ERRORS } from '../../server/outbox/webhook-client.js';
import { setWebhook } from '../../server/store/businesses.js';
import { capturedLog } from '../support/log.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { useService } from '../support/service.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { waitFor } from '../support/wait.js';
import * as create from '../support/factories.js';

const { logger, lines } = capturedLog();

let notFound: Receiver;
let smtp: TestSmtp;
let hangUp: Server;
let closedPort: number;

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));

// One attempt each: every failure is final, and read once.
const t = useService({
  outbox: { retry: { baseMs: 10, capMs: 10, maxAttempts: 1 }, webhookTimeoutMs: 5_000 },
  logger,
});
beforeAll(async () => {
  notFound = await startReceiver(() => 404);
  smtp = await startSmtp();
  // Accepts, then closes the connection without a word.
  hangUp = createServer((socket) => socket.destroy());
  await listen(hangUp);
  const closed = createServer();
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
}, 60_000);

afterAll(async () => {
  await notFound?.close();
  await smtp?.close();
  await new Promise((resolve) => hangUp?.close(resolve));
});

describe('a failed webhook attempt, as the business reads it', () => {
  it("says connection refused, TLS error, connection failed or HTTP status N, never the socket's words; the log keeps the cause", async () => {
    const port = (url: string) => new URL(url).port;
    const targets = {
      closed: `http://127.0.0.1:${closedPort}/hooks`,
      http404: notFound.url,
      smtp: `http://127.0.0.1:${port(smtp.url)}/hooks`,
      hangUp: `http://127.0.0.1:${(hangUp.address() as { port: number }).port}/hooks`,
      // TLS spoken to a plain HTTP server.
      tls: `https://127.0.0.1:${port(notFound.url)}/hooks`,
    };
    const expected: Record<keyof typeof targets, string> = {
      closed: ATTEMPT_ERRORS.refused,
      http404: 'webhook answered HTTP 404',
      smtp: ATTEMPT_ERRORS.failed,
      hangUp: ATTEMPT_ERRORS.failed,
      tls: ATTEMPT_ERRORS.tls,
    };
    for (const url of Object.values(targets)) expect((await t.a.client.POST('/webhook-endpoints', { body: { url } })).response.status, url).toBe(200);

    const link = await create.paymentLink(t.a, { title: 'Scan' });
    expect((await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).status).toBe(303);
    const [listed] = (await t.a.client.GET('/events')).data!.data.data;
    const event = await waitFor('every endpoint to settle', async () => {
      const detail = (await t.a.client.GET('/events/{event_id}', { params: { path: { event_id: listed!.id } } })).data!.data;
      return detail.endpoints.length === 5 && detail.endpoints.every((endpoint) => endpoint.status !== 'pending') && detail;
    });

    for (const [name, url] of Object.entries(targets) as [keyof typeof targets, string][]) {
      const attempts = event.deliveries.filter((attempt) => attempt.url === url);
      expect(
        attempts.map((attempt) => attempt.error),
        name,
      ).toEqual([expected[name]]);
      expect(event.endpoints.find((endpoint) => endpoint.url === url)!.last_error, name).toBe(expected[name]);
    }
    // Nothing of what the socket said reaches the business: no error code, no port, no protocol text.
    const told = JSON.stringify([event.last_error, ...event.endpoints.map((e) => e.last_error), ...event.deliveries.map((d) => d.error)]);
    for (const leak of ['ECONNREFUSED', 'ECONNRESET', 'HPE_', 'HTTP/1.1', 'SSL', 'socket', String(closedPort)]) expect(told, leak).not.toContain(leak);

    // The operator's log has the cause, per attempt, with the business.
    const causes = await waitFor('the warnings', () => {
      const warnings = lines.filter((line) => line.msg === 'outbox delivery failed; giving up' && line.business_id === t.a.business.id);
      return warnings.length === 5 && warnings.map((line) => String(line.error));
    });
    expect(causes).toContainEqual(expect.stringMatching(/ECONNREFUSED 127\.0\.0\.1/));
    expect(causes).toContainEqual('webhook answered HTTP 404');
    expect(causes).toContainEqual(expect.stringMatching(/HTTP\/1\.1 protocol|HPE_|other side closed/i));
    expect(causes).toContainEqual(expect.stringMatching(/SSL|TLS|EPROTO/i));
  });

  it("says connection failed when the business's key cannot sign, never the signer's words; the log keeps them", async () => {
    // A key set by hand in the store, not one the service made: not base64 after its prefix.
    await setWebhook(t.service.db, t.b.business.id, { url: notFound.url, secret: 'whsec_not_base64_key_0123456789' }, t.service.secretsKey);
    const link = await create.paymentLink(t.b, { title: 'Unsigned' });
    expect((await submitPage(t.url, link.payment_url, { name: 'Payer', ...GOOD_CARD })).status).toBe(303);
    const [listed] = (await t.b.client.GET('/events')).data!.data.data;
    const event = await waitFor('the attempt', async () => {
      const detail = (await t.b.client.GET('/events/{event_id}', { params: { path: { event_id: listed!.id } } })).data!.data;
      return detail.deliveries.length === 1 && detail;
    });
    expect(event.deliveries.map((attempt) => attempt.error)).toEqual([ATTEMPT_ERRORS.failed]);
    expect(JSON.stringify(event)).not.toMatch(/base64|incorrect characters/i);
    const cause = await waitFor('the warning', () =>
      lines.find((line) => line.msg === 'outbox delivery failed; giving up' && line.business_id === t.b.business.id),
    );
    expect(String(cause.error)).toMatch(/^webhook not signed: /);
  });
});
