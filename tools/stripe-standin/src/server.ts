// A local stand-in for Stripe's API (the operations in operations.ts), its Checkout hosted pages and
// its webhooks, for tests and newcomers: the official SDK talks to it on 127.0.0.1, every request is
// checked against Stripe's own OpenAPI description (the vendored subset), and what does not match is
// refused as Stripe would and recorded in `violations`, so a test can assert there were none.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import qs from 'qs';
import { HANDLERS, NotImplemented, checkSupported, type ApiCall } from './api.js';
import { knownEmail, submitPayment, submitSetup, type PayerForm } from './checkout.js';
import { StripeApiError, invalidRequest } from './errors.js';
import { expand } from './expand.js';
import { NO_REQUEST, Webhooks, checkTarget, type EventRequest, type StripeEventRecord, type Violation } from './events.js';
import { STRIPE_OPERATIONS, type StripeOperation } from './operations.js';
import { checkoutPage, closedPage, controlPage, notFoundPage } from './pages.js';
import { expireSession, settle, type Context } from './payments.js';
import { StripeSpec } from './spec.js';
import { Accounts, newId, now, type Account, type ForwardTarget } from './state.js';
import { isVersion, refusedAtVersion, requestVersion, takeNewerParams } from './versions.js';

export type { ForwardTarget, StripeEventRecord, Violation };

export interface RecordedRequest {
  method: string;
  path: string;
  secretKey: string;
  params: unknown;
  idempotencyKey?: string;
}

export interface StripeStandin {
  /** http://127.0.0.1:<port> */
  url: string;
  /** For `new Stripe(secretKey, standin.sdkOptions)`. */
  sdkOptions: { host: string; port: number; protocol: 'http' };
  /** Where this account's events go (like `stripe listen --forward-to`); null: nowhere. */
  forward(secretKey: string, target: ForwardTarget | null): void;
  /** While on, events are recorded but not sent until deliver() is called for them. */
  holdWebhooks(on: boolean): void;
  /** The account's events, oldest first, with the results of their deliveries. */
  events(secretKey: string): StripeEventRecord[];
  /** Sends an event now (again, or for the first time when held); the receiver's HTTP status. */
  deliver(eventId: string): Promise<number>;
  /** The bank's later answer for a processing PaymentIntent (FPX "confirms later"); resolves once its events are forwarded. */
  settle(paymentIntentId: string, outcome: 'succeeded' | 'failed'): Promise<void>;
  /** Resolves once every event made so far that is to be forwarded has been sent. */
  idle(): Promise<void>;
  requests: RecordedRequest[];
  violations: Violation[];
  close(): Promise<void>;
}

export interface StripeStandinOptions {
  /** 0 (the default): a free port. */
  port?: number;
  /** The forward target of every account not given its own (the CLI's --forward-to and --webhook-secret). */
  forwardTo?: ForwardTarget;
  hold?: boolean;
}

const QS_OPTIONS = { depth: 10, arrayLimit: 100, parameterLimit: 2000, allowPrototypes: false } as const;
const TEST_KEY = /^sk_test_[0-9A-Za-z_]{1,247}$/;

function json(ctx: Koa.Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  // Stripe answers pretty-printed JSON.
  ctx.body = JSON.stringify(body, null, 2);
}

function html(ctx: Koa.Context, status: number, page: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = page;
}

/** The secret key of the request (Bearer, or Basic with the key as user name), or Stripe's 401. */
function secretKeyOf(ctx: Koa.Context): string {
  const header = ctx.get('authorization');
  const [scheme, credentials = ''] = header.split(' ', 2);
  const key =
    scheme?.toLowerCase() === 'basic'
      ? Buffer.from(credentials, 'base64').toString('utf8').split(':')[0]!
      : scheme?.toLowerCase() === 'bearer'
        ? credentials
        : '';
  if (TEST_KEY.test(key)) return key;
  ctx.set('WWW-Authenticate', 'Bearer realm="Stripe"');
  throw new StripeApiError(401, {
    type: 'invalid_request_error',
    message:
      key === ''
        ? "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/."
        : `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`,
  });
}

/** Params in one order whatever order they came in, to tell a replay from a different request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function formOf(ctx: Koa.Context): Record<string, string> {
  const raw = (ctx.request as unknown as { rawBody?: string }).rawBody ?? '';
  return Object.fromEntries(new URLSearchParams(raw));
}

export async function startStripeStandin(options: StripeStandinOptions = {}): Promise<StripeStandin> {
  const spec = StripeSpec.load();
  const violations: Violation[] = [];
  const requests: RecordedRequest[] = [];
  const accounts = new Accounts();
  const webhooks = new Webhooks(spec, violations, options.forwardTo ? checkTarget(options.forwardTo) : null, options.hold ?? false);
  const deferred: (() => void)[] = [];
  let baseUrl = '';

  function context(account: Account, request: EventRequest): Context {
    return {
      account,
      request,
      emit: (type, object, previous) => void webhooks.emit(account, type, object, request, previous),
      later: (step) => {
        deferred.push(() => step(context(account, NO_REQUEST)));
        setImmediate(runDeferred);
      },
    };
  }

  function runDeferred(): void {
    while (deferred.length > 0) deferred.shift()!();
  }

  /** What Stripe would have done by now: deferred steps, and sessions whose expires_at has passed. */
  function catchUp(): void {
    runDeferred();
    for (const account of accounts.all()) {
      for (const session of account.all('checkout.session')) {
        if (session.status === 'open' && session.expires_at <= now()) expireSession(context(account, NO_REQUEST), session);
      }
    }
  }

  const pageUrl = (sessionId: string) => `${baseUrl}/c/pay/${sessionId}`;

  function apiRoute(operation: StripeOperation): Koa.Middleware {
    const key = `${operation.method} ${operation.path}`;
    const method = operation.method.toUpperCase();
    return async (ctx) => {
      catchUp();
      const secretKey = secretKeyOf(ctx);
      const account = accounts.forKey(secretKey);
      const header = ctx.get('stripe-version') || undefined;
      if (header !== undefined && !isVersion(header)) throw invalidRequest(`Invalid Stripe API version: ${header}`);
      const version = requestVersion(header, account.apiVersion);
      account.apiVersion ??= version;
      if (operation.method === 'post' && ctx.request.length && !ctx.is('application/x-www-form-urlencoded')) {
        violations.push({ method, path: ctx.path, problems: [`a body of type ${ctx.get('content-type')}: Stripe takes form-encoded bodies`] });
        throw invalidRequest('Invalid request: the body must be form-encoded (application/x-www-form-urlencoded).');
      }
      const raw = (ctx.request as unknown as { rawBody?: string }).rawBody ?? '';
      const body = operation.method === 'post' ? (qs.parse(raw, QS_OPTIONS) as Record<string, unknown>) : {};
      const idempotencyKey = ctx.get('idempotency-key') || undefined;

      const newer = takeNewerParams(spec.document, key, version, body);
      const checked = spec.checkRequest(operation, {
        path: ctx.params,
        query: qs.parse(ctx.querystring, QS_OPTIONS) as Record<string, unknown>,
        body: newer.rest,
      });
      const params = { ...checked.params, ...newer.newer };
      requests.push({ method, path: ctx.path, secretKey, params, ...(idempotencyKey ? { idempotencyKey } : {}) });
      const problems = [...newer.problems, ...checked.problems];
      if (problems.length > 0) {
        violations.push({ method, path: ctx.path, problems: problems.map((problem) => problem.message) });
        throw invalidRequest(problems[0]!.message, problems[0]!.param);
      }

      const fingerprint = canonical(body);
      const saved = idempotencyKey ? account.idempotency.get(idempotencyKey) : undefined;
      if (saved && operation.method === 'post') {
        if (saved.method !== method || saved.path !== ctx.path) {
          throw new StripeApiError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${saved.method} ${saved.path}' vs '${method} ${ctx.path}'). Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          });
        }
        if (saved.params !== fingerprint) {
          throw new StripeApiError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          });
        }
        ctx.set('Idempotent-Replayed', 'true');
        ctx.set('Idempotency-Key', idempotencyKey!);
        json(ctx, saved.status, saved.body);
        return;
      }

      const requestId = newId('req_', 14);
      ctx.set('Request-Id', requestId);
      ctx.set('Stripe-Version', version);
      let status = 200;
      let answer: unknown;
      try {
        const refused = refusedAtVersion(key, version, params);
        if (refused) {
          violations.push({ method, path: ctx.path, problems: [refused.body.message] });
          throw refused;
        }
        checkSupported(operation, params);
        const call: ApiCall = { ctx: context(account, { id: requestId, idempotency_key: idempotencyKey ?? null }), version, path: ctx.params, params, pageUrl };
        const object = HANDLERS[key]!(call);
        const expansions = (params.expand as string[] | undefined) ?? [];
        // A list expands inside each of its items (`data.charge`), as Stripe does.
        answer =
          object.object === 'list'
            ? {
                ...object,
                data: object.data.map((item) =>
                  expand(
                    account,
                    spec,
                    item,
                    expansions.map((path) => path.replace(/^data\./, '')),
                  ),
                ),
              }
            : expand(account, spec, object, expansions);
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        if (error instanceof NotImplemented) violations.push({ method, path: ctx.path, problems: [error.body.message] });
        status = error.status;
        answer = { error: error.body };
      }
      if (idempotencyKey && operation.method === 'post')
        account.idempotency.set(idempotencyKey, { method, path: ctx.path, params: fingerprint, status, body: answer });
      const answerProblems = spec.checkResponse(operation, status, answer);
      if (answerProblems.length > 0) violations.push({ method, path: ctx.path, problems: answerProblems.map((problem) => `response: ${problem}`) });
      if (idempotencyKey) ctx.set('Idempotency-Key', idempotencyKey);
      json(ctx, status, answer);
    };
  }

  const router = new Router();
  for (const operation of STRIPE_OPERATIONS) {
    router[operation.method](operation.path.replace(/\{(\w+)\}/g, ':$1'), apiRoute(operation));
  }

  router.get('/c/pay/:session', (ctx) => {
    catchUp();
    const found = accounts.holding(ctx.params.session!);
    const session = found?.get('checkout.session', ctx.params.session!);
    if (!found || !session) return html(ctx, 404, notFoundPage());
    if (session.status !== 'open') return html(ctx, session.status === 'expired' ? 410 : 200, closedPage(session));
    html(ctx, 200, checkoutPage(session, found.sessionExtras.get(session.id)!.lines, knownEmail(found, session)));
  });

  router.post('/c/pay/:session', (ctx) => {
    catchUp();
    const found = accounts.holding(ctx.params.session!);
    const session = found?.get('checkout.session', ctx.params.session!);
    if (!found || !session) return html(ctx, 404, notFoundPage());
    if (session.status !== 'open') return html(ctx, session.status === 'expired' ? 410 : 200, closedPage(session));
    const form = formOf(ctx) as PayerForm;
    const act = context(found, NO_REQUEST);
    const submission = session.mode === 'setup' ? submitSetup(act, session, form) : submitPayment(act, session, form);
    if (submission.done) {
      ctx.status = 303;
      ctx.redirect(submission.redirect);
      return;
    }
    html(ctx, submission.status, checkoutPage(session, found.sessionExtras.get(session.id)!.lines, knownEmail(found, session), submission));
  });

  /** A control answers JSON to scripts and sends a browser back to the control page. */
  const controlAnswer = (ctx: Koa.Context, status: number, body: unknown) => {
    if (status < 400 && ctx.accepts('json', 'html') === 'html') {
      ctx.status = 303;
      ctx.redirect('/_standin/');
      return;
    }
    json(ctx, status, body);
  };

  router.get('/_standin/', (ctx) => {
    catchUp();
    html(
      ctx,
      200,
      controlPage(accounts.all(), (account) => webhooks.events(account), {
        hold: webhooks.hold,
        target: (account) => webhooks.target(account)?.url ?? 'nowhere',
      }),
    );
  });
  router.get('/_standin/events', (ctx) => {
    catchUp();
    const account = typeof ctx.query.account === 'string' ? ctx.query.account : undefined;
    json(ctx, 200, { data: webhooks.all().filter((record) => !account || record.account === account) });
  });
  router.get('/_standin/violations', (ctx) => json(ctx, 200, { data: violations }));
  router.get('/_standin/requests', (ctx) =>
    json(ctx, 200, { data: requests.map(({ secretKey, ...request }) => ({ ...request, account: accounts.forKey(secretKey).id })) }),
  );
  router.post('/_standin/events/:event/deliver', async (ctx) => {
    try {
      controlAnswer(ctx, 200, { status: await webhooks.deliver(ctx.params.event!) });
    } catch (error) {
      controlAnswer(ctx, 400, { error: (error as Error).message });
    }
  });
  router.post('/_standin/payment_intents/:intent/settle', async (ctx) => {
    catchUp();
    const outcome = formOf(ctx).outcome ?? ctx.query.outcome;
    try {
      if (outcome !== 'succeeded' && outcome !== 'failed') throw new Error('outcome must be succeeded or failed');
      await standin.settle(ctx.params.intent!, outcome);
      controlAnswer(ctx, 200, { settled: ctx.params.intent, outcome });
    } catch (error) {
      controlAnswer(ctx, 400, { error: (error as Error).message });
    }
  });

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof StripeApiError) return json(ctx, error.status, { error: error.body });
      console.error('stripe stand-in:', error);
      json(ctx, 500, { error: { type: 'api_error', message: `The Stripe stand-in failed: ${(error as Error).message}` } });
    }
  });
  app.use(bodyParser({ enableTypes: ['form'], formLimit: '1mb', onError: (_error, ctx) => ctx.throw(400, 'malformed form body') }));
  app.use(router.routes());
  app.use((ctx) => {
    if (ctx.path.startsWith('/c/')) return html(ctx, 404, notFoundPage());
    violations.push({ method: ctx.method, path: ctx.path, problems: ['no such operation in the stand-in (see tools/stripe-standin/src/operations.ts)'] });
    json(ctx, 404, {
      error: {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${ctx.method}: ${ctx.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
      },
    });
  });

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port ?? 0, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  const standin: StripeStandin = {
    url: baseUrl,
    sdkOptions: { host: '127.0.0.1', port, protocol: 'http' },
    forward(secretKey, target) {
      accounts.forKey(secretKey).forward = target ? checkTarget(target) : null;
    },
    holdWebhooks(on) {
      webhooks.hold = on;
    },
    events(secretKey) {
      catchUp();
      return webhooks.events(accounts.forKey(secretKey));
    },
    deliver: (eventId) => webhooks.deliver(eventId),
    async settle(paymentIntentId, outcome) {
      catchUp();
      const account = accounts.holding(paymentIntentId);
      const intent = account?.get('payment_intent', paymentIntentId);
      if (!account || !intent) throw new Error(`no PaymentIntent ${paymentIntentId}`);
      settle(context(account, NO_REQUEST), intent, outcome);
      await webhooks.idle();
    },
    async idle() {
      catchUp();
      await webhooks.idle();
    },
    requests,
    violations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return standin;
}
