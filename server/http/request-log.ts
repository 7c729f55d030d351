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
const FIXED_ROUTES = new Set(['/health', '/ready', '/openapi.yaml', '/docs', '/docs/']);

function routeOf(ctx: Koa.Context): string | null {
  const route = (ctx.state.route as string | undefined) ?? (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof route === 'string') return route;
  return FIXED_ROUTES.has(ctx.path) ? ctx.path : null;
}

export function requestLogging(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.get('x-request-id'));
    ctx.set('X-Request-Id', requestId);
    ctx.state.requestId = requestId;
    // Most requests log only their access line: the request's own logger is made when something asks for it.
    let log: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', { get: () => (log ??= logger.child({ request_id: requestId })), enumerable: false, configurable: true });
    try {
      await next();
    } finally {
      const business = ctx.state.caller as { business?: { id?: number } } | undefined;
      logger.info(
        {
          request_id: requestId,
          method: ctx.method,
          route: routeOf(ctx),
          status: ctx.status,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          ...(business?.business?.id !== undefined && { business_id: business.business.id }),
        },
        'request',
      );
    }
  };
}
