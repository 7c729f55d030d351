// A body the service answers without reading (over the 1 MiB limit, unauthenticated, over the Stripe
// webhook route's 64 KiB) gets its answer
// read by the client, not a network error: the service reads and discards the rest of the body before
// closing (lingering close, as nginx does), within a bound of bytes and of time, so a client that keeps
// sending is still cut off.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { ROOT } from '../support/child.js';
import type { PostOutcome } from '../support/oversized-posts.js';
import { useService } from '../support/service.js';
import { firstAnswer, openSocket, sendUntilClosed } from '../support/sockets.js';
import { waitFor } from '../support/wait.js';

const TOO_LARGE = { status: 413, body: { message: 'The request body must not be larger than 1 MiB.' } };
const MiB = 1024 * 1024;

const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

const t = useService({
  linger: { maxBytes: 16 * MiB, maxMs: 1_000 },
  // The request timeout is far longer than any test here: only the linger's own bounds cut a client off.
  http: { requestTimeoutMs: 600_000 },
  logger: createLogger({ level: 'debug', destination: capture }),
});

const slowPost = (url: string, key: string) =>
  openSocket(url).then((socket) =>
    sendUntilClosed(
      socket,
      `POST /api/payment-links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${64 * MiB}\r\n\r\n`,
      async () => {
        // eslint-disable-next-line no-restricted-syntax -- the slow client's pace is the scenario; the test waits for the server to close on it
        await new Promise((resolve) => setTimeout(resolve, 20));
        return Buffer.alloc(1024, 'a');
      },
    ),
  );

/** `count` posts of `bytes` each, one after another, sent by a process of its own. */
async function postFromAnotherProcess(how: 'fetch' | 'client', url: string, key: string, count: number, bytes: number): Promise<PostOutcome[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test', 'support', 'oversized-posts.ts'), how, url, key, String(count), String(bytes)],
    { cwd: ROOT, maxBuffer: 16 * MiB },
  );
  return JSON.parse(stdout) as PostOutcome[];
}

describe('an oversized body is answered, and the client reads the answer', () => {
  it('twenty 6 MB posts from fetch each get the 413 JSON', { timeout: 120_000 }, async () => {
    expect(await postFromAnotherProcess('fetch', `${t.apiUrl}/payment-links`, t.a.key, 20, 6 * MiB)).toEqual(Array(20).fill(TOO_LARGE));
  });

  it('twenty 6 MB posts through the client package each get the 413 JSON', { timeout: 120_000 }, async () => {
    expect(await postFromAnotherProcess('client', t.apiUrl, t.a.key, 20, 6 * MiB)).toEqual(Array(20).fill(TOO_LARGE));
  });

  it('so does a large body without a valid key: twenty 401s', { timeout: 120_000 }, async () => {
    const outcomes = await postFromAnotherProcess('fetch', `${t.apiUrl}/payment-links`, '-', 20, 6 * MiB);
    expect(outcomes).toEqual(Array(20).fill({ status: 401, body: { message: 'Unauthenticated.' } }));
  });

  it('and a large post to the Stripe webhook route, past its 64 KiB: twenty 413s', { timeout: 120_000 }, async () => {
    const outcomes = await postFromAnotherProcess('fetch', `${t.url}/stripe/webhooks/${t.a.business.id}`, '-', 20, 6 * MiB);
    expect(outcomes).toEqual(Array(20).fill({ status: 413, body: { message: 'The notification must not be larger than 64 KiB.' } }));
  });
});

describe('the rest of the body is read within a bound', () => {
  it('a client that keeps sending past the bound of bytes is cut off after its answer', { timeout: 30_000 }, async () => {
    const total = 256 * MiB;
    const chunk = Buffer.alloc(256 * 1024, 'a');
    let offered = 0;
    const { answer, sent } = await sendUntilClosed(
      await openSocket(t.url),
      `POST /api/payment-links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.a.key}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`,
      async () => (offered < total ? ((offered += chunk.length), chunk) : undefined),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(TOO_LARGE.body);
    expect(sent).toBeLessThan(total);
  });

  it('a client that keeps sending slowly is cut off once the time bound passes', { timeout: 30_000 }, async () => {
    const { answer, sent } = await slowPost(t.url, t.a.key);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    // Far less than the body it announced, and less than the bound of bytes: the time bound closed it.
    expect(sent).toBeLessThan(16 * MiB);
  });
});

describe('a client that resets the connection while it lingers', () => {
  it('is noted in the log at debug level, not printed to stderr as an error', { timeout: 30_000 }, async () => {
    const printed = vi.spyOn(console, 'error');
    try {
      const socket = await openSocket(t.url);
      const answer = firstAnswer(socket);
      socket.write(
        `POST /api/payment-links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.a.key}\r\nX-Request-Id: reset-while-lingering\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${8 * MiB}\r\n\r\n{"title":`,
      );
      expect((await answer).status).toBe(413);
      socket.resetAndDestroy();
      const noted = await waitFor('the debug line', () =>
        lines
          .map((line) => JSON.parse(line) as { level: number; msg: string; request_id?: string })
          .find((line) => line.request_id === 'reset-while-lingering' && line.level === 20),
      );
      expect(noted.msg).toBe('the client closed the connection before the answer was complete');
      expect(printed).not.toHaveBeenCalled();
      expect(lines.filter((line) => line.includes('"level":50'))).toEqual([]);
    } finally {
      printed.mockRestore();
    }
  });
});

describe('a request that times out while its connection lingers', () => {
  const short = useService({ http: { headersTimeoutMs: 300, requestTimeoutMs: 800 }, linger: { maxMs: 600_000 } });

  it('is closed, not answered a second time', { timeout: 30_000 }, async () => {
    const { answer } = await slowPost(short.url, short.a.key);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(TOO_LARGE.body);
  });
});
