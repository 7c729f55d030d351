// The Node HTTP server the app runs in. Requests Node cannot parse (or that never finish arriving)
// never reach Koa: Node would answer them with a bare status line and no body. They get the API's
// JSON error body instead, with a request id like every other answer.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node reports about a request it could not read, as the status line and message we answer with. */
const CLIENT_ERRORS: Record<string, [string, string]> = {
  HPE_HEADER_OVERFLOW: ['431 Request Header Fields Too Large', 'The request line and headers must not be larger than 16 KiB.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['408 Request Timeout', 'The request did not arrive in time.'],
};
const NOT_HTTP: [string, string] = ['400 Bad Request', 'The request is not valid HTTP.'];

export function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP;
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function createHttpServer(): Server {
  const server = createServer();
  server.on('clientError', answerMalformedRequest);
  return server;
}
