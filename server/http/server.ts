// The Node HTTP server the app runs in. Requests Node cannot parse (or that never finish arriving)
// never reach Koa: Node would answer them with a bare status line and no body. They get the API's
// JSON error body instead, with a request id like every other answer.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { isLingering } from './linger.js';

/** What Node reports about a request it could not read, as the status line and message we answer with. */
const CLIENT_ERRORS: Record<string, [string, string]> = {
  HPE_HEADER_OVERFLOW: ['431 Request Header Fields Too Large', 'The request line and headers must not be larger than 16 KiB.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['408 Request Timeout', 'The request did not arrive in time.'],
};
const NOT_HTTP: [string, string] = ['400 Bad Request', 'The request is not valid HTTP.'];

export function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A connection lingering after its answer (linger.ts) has been answered once already.
  if (!socket.writable || error.code === 'ECONNRESET' || isLingering(socket)) {
    socket.destroy();
    return;
  }
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP;
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export interface HttpTimeouts {
  /** How long a client has to send the request line and headers (slowloris). */
  headersTimeoutMs: number;
  /** How long a client has to send the whole request, body included. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept. */
  keepAliveTimeoutMs: number;
}

/** Node's defaults give a client 60 s for its headers and 300 s for its request: far more than any API call needs. */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

export function createHttpServer(timeouts: HttpTimeouts = DEFAULT_HTTP_TIMEOUTS): Server {
  const server = createServer({
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Node looks for requests past their time this often (30 s by default, which would add to the limits).
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 2))),
  });
  server.on('clientError', answerMalformedRequest);
  return server;
}
