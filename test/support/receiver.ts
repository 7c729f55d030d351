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

/** `respond(n)` gives the status for the n-th request (from 1), possibly later, or 'hang' to never answer it. */
export async function startReceiver(respond: (n: number) => number | 'hang' | Promise<number> = () => 200): Promise<Receiver> {
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
      void Promise.resolve(respond(requests.length)).then((status) => {
        if (status !== 'hang') res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
