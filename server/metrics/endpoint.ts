// GET /metrics for Prometheus, behind a bearer token (METRICS_TOKEN): on the service's own port, or,
// with METRICS_PORT, on a port of its own that a deployment keeps off its public address (the main
// port then answers /metrics as any unknown path). Without a token there is no /metrics at all.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { ServiceMetrics } from './service-metrics.js';

export const METRICS_PATH = '/metrics';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compared as digests of equal length, so the time taken says nothing of the token. */
function tokenMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer (\S{1,512})$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

function scraper(metrics: ServiceMetrics, token: string): (authorization: string | undefined) => Promise<Answer> {
  const expected = digest(token);
  return async (authorization): Promise<Answer> => {
    if (!tokenMatches(authorization, expected))
      return {
        status: 401,
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"', 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
        body: 'A bearer token (METRICS_TOKEN) is required.\n',
      };
    const { contentType, body } = await metrics.scrape();
    return { status: 200, headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' }, body };
  };
}

/** /metrics on the service's own port. */
export function metricsRoute(metrics: ServiceMetrics, token: string): Koa.Middleware {
  const scrape = scraper(metrics, token);
  return async (koa, next) => {
    if (koa.path !== METRICS_PATH || (koa.method !== 'GET' && koa.method !== 'HEAD')) return next();
    const answer = await scrape(koa.get('authorization') || undefined);
    koa.status = answer.status;
    koa.set(answer.headers);
    koa.body = answer.body;
  };
}

/** /metrics alone, on a port of its own; resolves once it listens. */
export async function startMetricsServer(metrics: ServiceMetrics, token: string, port: number, host: string): Promise<{ server: Server; port: number }> {
  const scrape = scraper(metrics, token);
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    scrape(request.headers.authorization).then(
      (answer) => response.writeHead(answer.status, answer.headers).end(request.method === 'HEAD' ? undefined : answer.body),
      () => response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Collecting the metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
