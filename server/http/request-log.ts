// One id per request, honoured from X-Request-Id when the caller (or a proxy in front of us) sent a
// usable one and returned on every response, so a merchant's support ticket can be matched to our
// log lines; and one access log line per request. The line names the route template, never the raw
// path or query: activation URLs carry a secret token and list filters carry payers' e-mails.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from '../logger.js';

// Anything else (control characters, quotes, very long values) could forge or bloat log lines.
const USABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(header: string): string {
  return USABLE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Paths that are their own template: the probes and the reference. */
const FIXED_ROUTES = new Set(['/health', '/ready', '/metrics', '/openapi.yaml', '/docs', '/docs/']);

function routeOf(koa: Koa.Context): string | null {
  const route = (koa.state.route as string | undefined) ?? (koa as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof route === 'string') return route;
  return FIXED_ROUTES.has(koa.path) ? koa.path : null;
}

/** Told of every answered request by its route template (null where no route matched): the metrics. */
export type RequestObserver = (route: string | null, method: string, status: number, seconds: number) => void;

export function requestLogging(logger: Logger, observe?: RequestObserver): Koa.Middleware {
  return async (koa, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(koa.get('x-request-id'));
    koa.set('X-Request-Id', requestId);
    koa.state.requestId = requestId;
    // Most requests log only their access line: the request's own logger is made when something asks for it.
    let log: Logger | undefined;
    Object.defineProperty(koa.state, 'log', { get: () => (log ??= logger.child({ request_id: requestId })), enumerable: false, configurable: true });
    try {
      await next();
    } finally {
      const business = koa.state.caller as { business?: { id?: number } } | undefined;
      const route = routeOf(koa);
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      observe?.(route, koa.method, koa.status, durationMs / 1000);
      logger.info(
        {
          request_id: requestId,
          method: koa.method,
          route,
          status: koa.status,
          duration_ms: durationMs,
          ...(business?.business?.id !== undefined && { business_id: business.business.id }),
        },
        'request',
      );
    }
  };
}
