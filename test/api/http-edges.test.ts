// What a hostile or careless client can do below the level of a request: send its headers slowly,
// stream a body nobody will read, send HEAD, or a JSON variant the API does not take. Each is answered
// with the API's JSON (and a request id), within the limits openapi.yaml and docs/integrating.md state.
import { describe, expect, it } from 'vitest';
import { raw, useService } from '../support/service.js';
import { answerOf, openSocket } from '../support/sockets.js';

// Tight timeouts, so a slow client is cut off well inside the test's own time.
const t = useService({ http: { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 5_000 } });

const PAYMENT_LINK = JSON.stringify({ email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' });

describe('slow clients', () => {
  it('a client that never finishes its headers gets a JSON 408 with a request id, and the connection closes', async () => {
    const socket = await openSocket(t.url);
    const answer = answerOf(socket);
    socket.write('POST /api/payment-links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ message: 'The request did not arrive in time.' });
  });

  it('a client that sends its headers but never its whole body gets a JSON 408', async () => {
    const socket = await openSocket(t.url);
    const answer = answerOf(socket);
    socket.write(
      `POST /api/payment-links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.a.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":`,
    );
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('bodies that are not read', () => {
  it.each([
    ['not JSON (415)', 'text/plain', 415],
    ['without a valid key (401)', 'application/json', 401],
  ])('a large body %s is answered at once and the connection closed, not read to its end', async (_name, contentType, status) => {
    const total = 64 * 1024 * 1024;
    const socket = await openSocket(t.url);
    const answer = answerOf(socket);
    const key = status === 401 ? `sk_${'x'.repeat(43)}` : t.a.key;
    socket.write(
      `POST /api/payment-links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${contentType}\r\nContent-Length: ${total}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 'a');
    let sent = 0;
    let closed = false;
    socket.on('close', () => (closed = true));
    while (!closed && sent < total) {
      const drained = socket.write(chunk);
      sent += chunk.length;
      if (!drained)
        await new Promise((resolve) => {
          socket.once('drain', resolve);
          socket.once('close', resolve);
        });
    }
    const text = await answer;
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    // The server stopped taking the body long before its end.
    expect(sent).toBeLessThan(total / 2);
  });
});

describe('HEAD', () => {
  it('answers HEAD on a GET path as that GET, without a body', async () => {
    const get = await fetch(`${t.apiUrl}/payment-links`, { headers: { authorization: `Bearer ${t.a.key}` } });
    const head = await fetch(`${t.apiUrl}/payment-links`, { method: 'HEAD', headers: { authorization: `Bearer ${t.a.key}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(head.headers.get('x-ratelimit-limit')).toBe(get.headers.get('x-ratelimit-limit'));
  });

  it('answers HEAD with the status GET would have: 404 for an unknown record, 401 without a key', async () => {
    expect(
      (await fetch(`${t.apiUrl}/payment-links/0123456789abcdef01234567`, { method: 'HEAD', headers: { authorization: `Bearer ${t.a.key}` } })).status,
    ).toBe(404);
    expect((await fetch(`${t.apiUrl}/payment-links`, { method: 'HEAD' })).status).toBe(401);
  });
});

describe('JSON variants', () => {
  it.each(['application/merge-patch+json', 'application/vnd.api+json', 'application/json-patch+json'])(
    '%s is refused with 415, not read as an empty body',
    async (type) => {
      const response = await raw(`${t.apiUrl}/payment-links`, { method: 'POST', key: t.a.key, headers: { 'Content-Type': type }, body: PAYMENT_LINK });
      expect(response.status).toBe(415);
      expect(response.body).toEqual({ message: 'The request body must be JSON (Content-Type application/json).' });
    },
  );

  it('application/json in any letter case, with a charset, is JSON', async () => {
    const response = await raw(`${t.apiUrl}/payment-links`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'Content-Type': 'Application/JSON; charset=UTF-8' },
      body: PAYMENT_LINK,
    });
    expect(response.status).toBe(200);
  });
});
