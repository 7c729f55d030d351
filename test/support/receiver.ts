// A merchant's webhook endpoint on loopback, recording each request's raw body and headers.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  raw: string;
  body: unknown;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A status, or a status with headers (e.g. a redirect's Location). */
export type Answer = number | { status: number; headers: Record<string, string> };

/**
 * `respond(n)` gives the answer to the n-th request (from 1), possibly later, or 'hang' to never answer it.
 * `port` is one the system hands out unless given (a receiver started again where it was before).
 */
export async function startReceiver(respond: (n: number) => Answer | 'hang' | Promise<Answer | 'hang'> = () => 200, port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // recorded as text
      }
      requests.push({ headers: req.headers, raw, body });
      void Promise.resolve(respond(requests.length)).then((answer) => {
        if (answer === 'hang') return;
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/payments`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
