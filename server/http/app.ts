import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import { openPaymentLinkOperations } from '../handlers/open-payment-links.js';
import { paymentLinkOperations } from '../handlers/payment-links.js';
import { tokenizationOperations } from '../handlers/tokenizations.js';
import type { HandlerDeps } from '../handlers/deps.js';
import { pageRoutes } from '../pages/routes.js';
import type { PaymentProvider } from '../payments/provider.js';
import { findBusinessByKey } from '../store/api-keys.js';
import { readJsonBody } from './body.js';
import { NotFoundError, toErrorResponse } from './errors.js';
import { SPEC_PATH, createApi } from './openapi.js';

const DOCS_PATH = fileURLToPath(new URL('../../generated/docs.html', import.meta.url));

function errorMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const response = toErrorResponse(error);
      if (response.status >= 500) console.error(`${ctx.method} ${ctx.path} failed:`, error);
      ctx.status = response.status;
      ctx.set(response.headers);
      ctx.body = response.body;
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

function apiMiddleware(api: OpenAPIBackend): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return next();
    // openapi-backend decodes path parameters without a guard; no record has an undecodable id.
    if (!isDecodable(ctx.path)) throw new NotFoundError();
    await readJsonBody(ctx);
    ctx.body = await api.handleRequest(
      { method: ctx.method, path: ctx.path, body: ctx.request.body, query: ctx.querystring, headers: ctx.headers as Record<string, string> },
      ctx,
    );
    ctx.status = 200;
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

export interface AppDeps extends HandlerDeps {
  provider: PaymentProvider;
}

export async function createApp(deps: AppDeps): Promise<Koa> {
  const api = await createApi({
    operations: { ...tokenizationOperations(deps), ...openPaymentLinkOperations(deps), ...paymentLinkOperations(deps) },
    authenticate: (key) => findBusinessByKey(deps.db, key),
  });
  const app = new Koa();
  app.use(errorMiddleware());
  app.use(referenceMiddleware());
  app.use(pageRoutes(deps));
  app.use(apiMiddleware(api));
  app.use(() => {
    throw new NotFoundError();
  });
  return app;
}
