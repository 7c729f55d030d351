// The HTTP adapter: Koa, the probes, the contract and its reference, the payer pages it is given, and
// the API built from openapi.yaml. It imports no feature: the composition root (server/start.ts)
// hands it the handlers, the pages and the services they need.
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import { DOCS_PATH, SPEC_PATH } from '../file-locations.js';
import type { Contract, ContractOperation } from './contract.js';
import {
  RequestRefusedError,
  MAX_QUERY_BYTES,
  NotFoundError,
  TooManyRequestsError,
  UriTooLongError,
  WrongCredentialError,
  toErrorResponse,
  type HttpError,
} from './errors.js';
import { DEFAULT_LINGER, lingeringClose, type LingerLimits } from './linger.js';
import { SESSION_COOKIE, csrfTokenMatches, isSessionToken } from '../domain/sessions.js';
import type { Caller, Handlers } from './operations.js';
import type { RateLimiter } from '../rate-limits/limiter.js';
import { requestLogging, type RequestObserver } from './request-log.js';
import { referencePage } from './reference-page.js';
import { contractRoutes, type ContractRoutes, type Scopes } from './routes.js';

export type { Caller };

export interface HttpAppOptions<Scope> {
  contract: Contract;
  handlers: Handlers<Scope>;
  scopes: Scopes<Scope>;
  /** The payer's side (hosted pages and their assets), served outside /api. */
  pages: Koa.Middleware;
  /** The caller behind an API key, if the key is live. */
  findCaller(key: string): Promise<Caller | undefined>;
  /** The signed-in member behind a session cookie's value, if the session lives. */
  findSession(token: string): Promise<Caller | undefined>;
  /** PUBLIC_URL: an Origin a session's unsafe request carries must be its origin. */
  publicUrl: string;
  limiter: RateLimiter;
  logger: Logger;
  /**
   * What the instance needs to serve, by name (`database`, `redis` where the limits count there): each
   * resolves when that dependency answers. /ready asks them all, and reports each with its latency.
   */
  dependencies: Record<string, () => Promise<void>>;
  /** True once shutdown has begun: /ready answers 503 so load balancers stop sending traffic. */
  draining(): boolean;
  /** Proxies in front whose X-Forwarded-For entries name the client (`koa.ip`); 0: the connection's own address. */
  trustProxyHops?: number;
  /** How much of a body answered unread is read (and thrown away) before the connection closes. */
  linger?: LingerLimits;
  /** Told of every answered request (the metrics, where they are on). */
  observeRequest?: RequestObserver;
}

function errorMiddleware(): Koa.Middleware {
  return async (koa, next) => {
    try {
      await next();
    } catch (error) {
      const response = toErrorResponse(error);
      if (response.status >= 500) (koa.state.log as Logger).error({ err: error }, 'request failed');
      koa.status = response.status;
      koa.set(response.headers);
      koa.body = response.body;
    }
  };
}

interface DependencyState {
  status: 'up' | 'down';
  latency_ms: number;
}

async function checkDependency(check: () => Promise<void>): Promise<DependencyState> {
  const started = performance.now();
  const status = await check().then(
    () => 'up' as const,
    () => 'down' as const,
  );
  return { status, latency_ms: Math.round((performance.now() - started) * 10) / 10 };
}

/**
 * /health: the process answers (liveness), whatever its dependencies do. /ready: it can serve, i.e.
 * every dependency it needs answers (readiness), each reported with its state and latency.
 */
export function probesMiddleware(deps: Pick<HttpAppOptions<unknown>, 'dependencies' | 'draining'>): Koa.Middleware {
  return async (koa, next) => {
    if (koa.path === '/health') {
      koa.set('Cache-Control', 'no-store');
      koa.body = { status: 'ok' };
      return;
    }
    if (koa.path !== '/ready') return next();
    koa.set('Cache-Control', 'no-store');
    if (deps.draining()) {
      koa.status = 503;
      koa.body = { status: 'unavailable', reason: 'shutting down' };
      return;
    }
    const names = Object.keys(deps.dependencies);
    const states = await Promise.all(names.map((name) => checkDependency(deps.dependencies[name]!)));
    const dependencies = Object.fromEntries(names.map((name, i) => [name, states[i]!]));
    const down = names.filter((_, i) => states[i]!.status === 'down');
    if (down.length === 0) {
      koa.body = { status: 'ready', dependencies };
      return;
    }
    koa.status = 503;
    koa.body = { status: 'unavailable', reason: `${down.join(', ')} unreachable`, dependencies };
  };
}

/** The contract and its rendered reference, served by the service they describe. */
function referenceMiddleware(): Koa.Middleware {
  const spec = readFileSync(SPEC_PATH, 'utf8');
  const docs = referencePage(DOCS_PATH);
  return async (koa, next) => {
    if (koa.method !== 'GET' && koa.method !== 'HEAD') return next();
    if (koa.path === '/openapi.yaml') {
      koa.type = 'application/yaml';
      koa.body = spec;
    } else if (koa.path === '/docs' || koa.path === '/docs/') {
      const page = docs();
      if (!page) throw new NotFoundError('The API reference has not been built: run `npm run generate`.');
      koa.set(page.headers);
      koa.type = 'text/html';
      koa.body = page.body;
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

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const AUDITED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery on a session: its unsafe requests carry the X-CSRF-Token of GET
 * /api/auth/me, and an Origin, when the browser sends one, must be the service's own. A request with
 * an API key is never a browser's forged one, and is left alone.
 */
function csrfRefusal(koa: Koa.Context, sessionToken: string, publicOrigin: string): RequestRefusedError | undefined {
  if (SAFE_METHODS.has(koa.method)) return undefined;
  const origin = koa.get('origin');
  if (origin && origin !== publicOrigin) return new RequestRefusedError('The request came from another origin.');
  if (!csrfTokenMatches(sessionToken, koa.get('x-csrf-token') || undefined)) return new RequestRefusedError('The CSRF token is missing or invalid.');
  return undefined;
}

/**
 * Who calls: the API key when the request has one; otherwise the session cookie, whose unsafe
 * requests must pass the CSRF check. A public operation (sign-in) is never answered as a session's.
 * A credential the operation's `security` does not take is refused (403 naming the one it takes):
 * power over the team and the member's own account comes from the person signed in, never from a key.
 */
async function identify(
  koa: Koa.Context,
  options: Pick<HttpAppOptions<unknown>, 'findCaller' | 'findSession'>,
  publicOrigin: string,
  operation: ContractOperation | undefined,
): Promise<{ caller?: Caller; refusal?: HttpError }> {
  const isPublic = operation !== undefined && !operation.secured;
  const key = BEARER.exec(koa.get('authorization'))?.[1];
  if (key) {
    const caller = await options.findCaller(key);
    return caller && operation?.secured && !operation.credentials.key ? { caller, refusal: new WrongCredentialError('session') } : { caller };
  }
  const token = koa.cookies.get(SESSION_COOKIE);
  if (isPublic) {
    if (token && isSessionToken(token)) koa.state.sessionToken = token;
    // Signing in from another site's page (login CSRF) is refused as a session's request would be.
    const origin = koa.get('origin');
    return !SAFE_METHODS.has(koa.method) && origin && origin !== publicOrigin
      ? { refusal: new RequestRefusedError('The request came from another origin.') }
      : {};
  }
  if (!token || !isSessionToken(token)) return {};
  const caller = await options.findSession(token);
  if (!caller) return {};
  koa.state.sessionToken = token;
  const refusal =
    csrfRefusal(koa, token, publicOrigin) ?? (operation?.secured && !operation.credentials.session ? new WrongCredentialError('api_key') : undefined);
  return { caller, refusal };
}

/**
 * Every /api request, routed or not: the caller is looked up once, counted against its key's limit
 * (or its session's, or its address's without either), and refused early for what no route could serve.
 */
function apiGate(
  options: Pick<HttpAppOptions<unknown>, 'findCaller' | 'findSession' | 'limiter' | 'publicUrl'>,
  match: ContractRoutes['match'],
): Koa.Middleware {
  const publicOrigin = new URL(options.publicUrl).origin;
  // The callers whose refused write (429) this instance recorded in the audit log, with the end of its window: one a window each.
  const throttledWritesRecorded = new LRUCache<string, number>({ max: 10_000 });
  return async (koa, next) => {
    if (!isApiPath(koa.path)) return next();
    // The operation as the router will match it: what is public, and which credentials it takes, is the route's, not the raw path's.
    const operation = match(koa.method, koa.path);
    const identified = await identify(koa, options, publicOrigin, operation);
    const caller = identified.caller;
    koa.state.caller = caller;
    const limit = await options.limiter.hit(caller ? caller.rateKey : `ip:${koa.ip}`);
    koa.set({ 'X-RateLimit-Limit': String(limit.limit), 'X-RateLimit-Remaining': String(limit.remaining) });
    let refusal = identified.refusal;
    if (!limit.allowed) {
      refusal = new TooManyRequestsError(limit.retryAfter);
      const windowEnd = Math.floor(Date.now() / 1000) + limit.retryAfter;
      if (caller && throttledWritesRecorded.get(caller.rateKey) === windowEnd) throw refusal;
      if (caller) throttledWritesRecorded.set(caller.rateKey, windowEnd);
    }
    if (refusal) {
      // A write refused to a known caller is the operation's to answer, so that its audit entry records the refusal and why.
      if (!operation || !caller || !AUDITED_METHODS.has(koa.method)) throw refusal;
      koa.state.refusal = refusal;
    }
    // Filters are short; a long query is a mistake or an attack, and it would be parsed and logged.
    if (Buffer.byteLength(koa.querystring) > MAX_QUERY_BYTES) throw new UriTooLongError();
    // No record has an undecodable id, and the router would pass such a path parameter on undecoded.
    if (!isDecodable(koa.path)) throw new NotFoundError();
    return next();
  };
}

/**
 * API answers can hold secrets (a new key's secret, a two-factor secret, recovery codes, the CSRF
 * token): no browser or proxy may keep one, errors included. Set before anything answers, so an error
 * keeps it; an operation whose contract declares its own caching (a QR code) sets that instead.
 */
function apiAnswersNotStored(): Koa.Middleware {
  return (koa, next) => {
    if (isApiPath(koa.path)) koa.set('Cache-Control', 'no-store');
    return next();
  };
}

/** How a connection the client dropped shows: nothing the service did wrong. */
const CLIENT_WENT_AWAY = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

export function createHttpApp<Scope>(options: HttpAppOptions<Scope>): Koa {
  const app = new Koa();
  // What fails once the middleware has answered (a streamed body, a connection reset while an answer
  // lingers) reaches Koa's error event, whose default prints a stack to stderr: a JSON line instead,
  // and a client that went away is no error of ours.
  app.on('error', (error: NodeJS.ErrnoException & { status?: number; expose?: boolean }, koa?: Koa.Context) => {
    // As Koa's own handler: an error meant for the client was its answer.
    if (error.status === 404 || error.expose) return;
    const details = { err: error, request_id: koa?.state.requestId as string | undefined };
    if (CLIENT_WENT_AWAY.has(error.code ?? '')) options.logger.debug(details, 'the client closed the connection before the answer was complete');
    else options.logger.error(details, 'sending the answer failed');
  });
  // Behind N proxies, the client is the N-th address from the end of X-Forwarded-For: entries before
  // it are whatever the client chose to send.
  app.proxy = (options.trustProxyHops ?? 0) > 0;
  app.maxIpsCount = options.trustProxyHops ?? 0;
  app.use(requestLogging(options.logger, options.observeRequest));
  // Outside the error handler: it sees every answer, errors included, as it is about to be sent.
  app.use(lingeringClose(options.linger ?? DEFAULT_LINGER));
  app.use(apiAnswersNotStored());
  app.use(errorMiddleware());
  // The probes, the reference and the pages live outside /api; API requests need not walk them.
  const probes = probesMiddleware(options);
  const reference = referenceMiddleware();
  app.use((koa, next) => (isApiPath(koa.path) ? next() : probes(koa, () => reference(koa, () => options.pages(koa, next)))));
  const routes = contractRoutes(options.contract, options.handlers, options.scopes);
  app.use(apiGate(options, routes.match));
  app.use(routes.middleware);
  return app;
}
