// Requests too large to be reasonable are refused with the API's JSON error body, never a bare status
// line: a query string over 4096 bytes (414, counted and identified like any /api answer), a request
// line or headers over Node's 16 KiB (431), and bytes that are not HTTP at all (400).
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answerMalformedRequest } from '../../server/http/server.js';
import { assertConforms } from '../support/contract.js';
import { raw, useService } from '../support/service.js';

const t = useService();

/** Sends raw bytes and returns whatever comes back before the server closes the connection. */
function exchange(bytes: string): Promise<string> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('query length', () => {
  it('answers a query of exactly 4096 bytes normally', async () => {
    const query = `per_page=15&x=${'a'.repeat(4096 - 'per_page=15&x='.length)}`;
    const response = await raw(`${t.apiUrl}/payment-links?${query}`, { key: t.a.key });
    expect(query.length).toBe(4096);
    expect(response.status).toBe(422); // x is not a parameter: the query got through to validation
  });

  it.each(['/payment-links', '/open-payment-links', '/payment-links/0123456789abcdef01234567'])(
    'answers GET %s with a query over 4096 bytes 414, as the contract says',
    async (path) => {
      const response = await raw(`${t.apiUrl}${path}?filter%5Btitle%5D=${'a'.repeat(4100)}`, { key: t.a.key });
      expect(response.status).toBe(414);
      expect(response.body).toEqual({ message: 'The query string must not be longer than 4096 bytes.' });
      await assertConforms({
        method: 'GET',
        path: `/api${path}`,
        status: response.status,
        contentType: response.contentType,
        headers: Object.fromEntries(response.headers.entries()),
        body: response.body,
      });
    },
  );

  it('counts the bytes, not the characters', async () => {
    const response = await raw(`${t.apiUrl}/payment-links?filter%5Btitle%5D=${encodeURIComponent('é').repeat(700)}`, { key: t.a.key });
    expect(response.status).toBe(414);
  });
});

describe('requests Node cannot parse', () => {
  it('answers a request line over 16 KiB with 431 and a JSON body', async () => {
    const answer = await exchange(`GET /api/payment-links?x=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ message: 'The request line and headers must not be larger than 16 KiB.' });
  });

  it('answers bytes that are not HTTP with 400 and a JSON body', async () => {
    const answer = await exchange('HELLO THERE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ message: 'The request is not valid HTTP.' });
  });

  it('keeps serving afterwards', async () => {
    expect((await raw(`${t.apiUrl}/payment-links`, { key: t.a.key })).status).toBe(200);
  });
});

describe('the answer to what Node could not read', () => {
  /** A socket that records what is written to it. */
  const socket = () => {
    const written: string[] = [];
    let destroyed = false;
    const fake = { writable: true, end: (text: string) => written.push(text), destroy: () => (destroyed = true) };
    return { fake: fake as unknown as Duplex, written, destroyed: () => destroyed };
  };
  const error = (code: string) => Object.assign(new Error(code), { code });

  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', '408 Request Timeout', 'The request did not arrive in time.'],
    ['HPE_HEADER_OVERFLOW', '431 Request Header Fields Too Large', 'The request line and headers must not be larger than 16 KiB.'],
    ['HPE_INVALID_METHOD', '400 Bad Request', 'The request is not valid HTTP.'],
  ])('%s -> %s with a JSON body', (code, status, message) => {
    const { fake, written } = socket();
    answerMalformedRequest(error(code), fake);
    expect(written).toHaveLength(1);
    expect(written[0]!.split('\r\n')[0]).toBe(`HTTP/1.1 ${status}`);
    expect(JSON.parse(written[0]!.slice(written[0]!.indexOf('\r\n\r\n') + 4))).toEqual({ message });
  });

  it('only closes a connection the client already reset', () => {
    const { fake, written, destroyed } = socket();
    answerMalformedRequest(error('ECONNRESET'), fake);
    expect(written).toEqual([]);
    expect(destroyed()).toBe(true);
  });
});
