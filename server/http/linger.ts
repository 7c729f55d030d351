// Lingering close, as nginx does it. A request answered before its body was read (too large, not
// JSON, unauthenticated, refused) must not keep the connection: the answer says `Connection: close`.
// Closing the socket the moment the answer is written would make the kernel reset a connection on
// which the client is still sending, and a client such as Node's fetch, busy writing, then reports a
// network error (EPIPE, ECONNRESET) instead of the answer it was sent. So the answer is written in
// full at once, the rest of the body is read and thrown away, and the connection closes once the
// body has ended: or, for a client that keeps sending, once a bound of bytes or time is reached.
// Node's server closes a `Connection: close` connection when the response ends, so the response's
// end is what waits: the answer is written past Koa (`koa.respond = false`, its documented way out)
// and ended after the drain.
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { hasUnreadBody } from './body.js';

export interface LingerLimits {
  /** The most of an unwanted body read after the answer before the connection is cut. */
  maxBytes: number;
  /** The longest the connection is kept after the answer for the rest of the body. */
  maxMs: number;
}

export const DEFAULT_LINGER: LingerLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

/** Sockets waiting out the rest of a body after their answer: a request timeout on one closes it, it is not answered twice. */
const lingering = new WeakSet<object>();

export function isLingering(socket: object): boolean {
  return lingering.has(socket);
}

/** The response body as the bytes Koa would send, or undefined when it is a stream or nothing. */
function bytesOf(body: unknown): Buffer | undefined {
  if (body === null || body === undefined || typeof (body as { pipe?: unknown }).pipe === 'function') return undefined;
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * Reads and discards what remains of `req`; `ended` runs once it has all arrived. Past the bounds the
 * socket is destroyed instead (the client already has its answer).
 */
function drain(req: IncomingMessage, limits: LingerLimits, ended: () => void): void {
  const { socket } = req;
  lingering.add(socket);
  let read = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, limits.maxMs);
  timer.unref();
  const count = (chunk: Buffer) => {
    read += chunk.length;
    if (read > limits.maxBytes) cut();
  };
  req.on('data', count);
  req.once('end', ended);
  req.once('close', () => {
    clearTimeout(timer);
    req.off('data', count);
  });
  // A body parser that gave up may still have the request piped into it (a decompressor): its
  // back-pressure would stall the drain.
  req.unpipe();
  req.resume();
}

/** Answers a request whose body was not read with `Connection: close`, after reading the rest of it within `limits`. */
export function lingeringClose(limits: LingerLimits = DEFAULT_LINGER): Koa.Middleware {
  return async (koa, next) => {
    await next();
    if (!hasUnreadBody(koa)) return;
    koa.set('Connection', 'close');
    const bytes = bytesOf(koa.body);
    // A HEAD answer or a streamed one ends when Koa ends it: the connection then closes at once, as before.
    if (bytes === undefined || koa.method === 'HEAD') return;
    koa.length = bytes.length;
    koa.respond = false;
    const { res } = koa;
    res.write(bytes);
    drain(koa.req, limits, () => res.end());
  };
}
