import { existsSync, readFileSync } from 'node:fs';
import Koa from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import { openPaymentLinkOperations } from '../handlers/open-payment-links.js';
import { paymentLinkOperations } from '../handlers/payment-links.js';
import { tokenizationOperations } from '../handlers/tokenizations.js';
import type { HandlerDeps } from '../handlers/deps.js';
import type { PageDeps } from '../pages/deps.js';
import { pageRoutes } from '../pages/routes.js';
import type { PaymentProvider } from '../payments/provider.js';
import type { Caller } from '../store/api-keys.js';
import type { CallerCache } from './callers.js';
import { readJsonBody } from './body.js';
import type { ApiResponse } from './idempotency.js';
import { MAX_QUERY_BYTES, NotFoundError, UriTooLongError, toErrorResponse } from './errors.js';
import { DOCS_PATH, SPEC_PATH } from '../paths.js';
import { API_ROOT, createApi } from './openapi.js';
import { TooManyRequestsError, type RateLimiter } from './rate-limit.js';
import { requestLogging } from './request-log.js';
import type { Logger } from '../logger.js';

export interface AppDeps extends HandlerDeps, PageDeps {
  provider: PaymentProvider;
  limiter: RateLimiter;
  callers: CallerCache;
  logger: Logger;
  /** True once shutdown has begun: /ready answers 503 so load balancers stop sending traffic. */
  draining(): boolean;
  /** Proxies in front whose X-Forwarded-For entries name the client (`ctx.ip`); 0: the connection's own address. */
  trustProxyHops?: number;
}

function errorMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const response = toErrorResponse(error);
      if (response.status >= 500) (ctx.state.log as Logger).error({ err: error }, 'request failed');
      ctx.status = response.status;
      ctx.set(response.headers);
      ctx.body = response.body;
    }
  };
}

/** /health: the process answers (liveness). /ready: it can serve, i.e. its database answers (readiness). */
export function probesMiddleware(deps: Pick<AppDeps, 'db' | 'draining'>): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path === '/health') {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path !== '/ready') return next();
    ctx.set('Cache-Control', 'no-store');
    if (deps.draining()) {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', reason: 'shutting down' };
      return;
    }
    try {
      await deps.db.raw('select 1').timeout(2_000);
      ctx.body = { status: 'ready' };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', reason: 'database unreachable' };
    }
  };
}

/** The contract and its rendered reference, served by the service they describe. */
function referenceMiddleware(): Koa.Middleware {
  const spec = readFileSync(SPEC_PATH, 'utf8');
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/openapi.yaml') {
      ctx.type = 'application/yaml';
      ctx.body = spec;
    } else if (ctx.path === '/docs' || ctx.path === '/docs/') {
      if (!existsSync(DOCS_PATH)) throw new NotFoundError('The API reference has not been built: run `npm run generate`.');
      ctx.type = 'text/html';
      ctx.body = readFileSync(DOCS_PATH);
    } else {
      return next();
    }
  };
}

function isDecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Every /api request: the caller is looked up once (openapi-backend's security handler then applies
 * the spec's rule to it), counted against its key's limit (or its address's, without a valid key),
 * then its body is read and openapi-backend takes over.
 */
function apiMiddleware(api: OpenAPIBackend, deps: AppDeps): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return next();
    const key = BEARER.exec(ctx.get('authorization'))?.[1];
    const caller: Caller | undefined = key ? await deps.callers.find(key) : undefined;
    ctx.state.caller = caller;
    const limit = await deps.limiter.hit(caller ? `key:${caller.keyId}` : `ip:${ctx.ip}`);
    ctx.set({ 'X-RateLimit-Limit': String(limit.limit), 'X-RateLimit-Remaining': String(limit.remaining) });
    if (!limit.allowed) throw new TooManyRequestsError(limit.retryAfter);
    // Filters are short; a long query is a mistake or an attack, and it would be parsed and logged.
    if (Buffer.byteLength(ctx.querystring) > MAX_QUERY_BYTES) throw new UriTooLongError();
    const operation = api.router.matchOperation({ method: ctx.method, path: ctx.path, headers: {} });
    if (operation) ctx.state.route = `${API_ROOT}${operation.path}`;
    // openapi-backend decodes path parameters without a guard; no record has an undecodable id.
    if (!isDecodable(ctx.path)) throw new NotFoundError();
    await readJsonBody(ctx);
    const response: ApiResponse = await api.handleRequest(
      { method: ctx.method, path: ctx.path, body: ctx.request.body, query: ctx.querystring, headers: ctx.headers as Record<string, string> },
      ctx,
    );
    ctx.status = response.status;
    if (response.headers) ctx.set(response.headers);
    ctx.body = response.body;
  };
}

export async function createApp(deps: AppDeps): Promise<Koa> {
  const api = await createApi({
    operations: { ...tokenizationOperations(deps), ...openPaymentLinkOperations(deps), ...paymentLinkOperations(deps) },
    db: deps.db,
  });
  const app = new Koa();
  // Behind N proxies, the client is the N-th address from the end of X-Forwarded-For: entries before
  // it are whatever the client chose to send.
  app.proxy = (deps.trustProxyHops ?? 0) > 0;
  app.maxIpsCount = deps.trustProxyHops ?? 0;
  app.use(requestLogging(deps.logger));
  app.use(errorMiddleware());
  app.use(probesMiddleware(deps));
  app.use(referenceMiddleware());
  app.use(pageRoutes(deps));
  app.use(apiMiddleware(api, deps));
  app.use(() => {
    throw new NotFoundError();
  });
  return app;
}
