// Stripe's API over HTTP, as the SDK calls it: the secret key and API version of each request, its
// form body checked against Stripe's description (what does not match is refused as Stripe refuses
// it and recorded as a violation), Idempotency-Key replays, the operation itself (api.ts), the
// expansions asked for, and the answer checked against the description too.
import type Router from '@koa/router';
import type Koa from 'koa';
import qs from 'qs';
import { HANDLERS, NotImplemented, checkSupported, type ApiCall } from './api.js';
import type { StandinCore } from './core.js';
import { StripeApiError, invalidRequest } from './errors.js';
import { expand } from './expand.js';
import { sendJson, rawBodyOf } from './http.js';
import { STRIPE_OPERATIONS, type StripeOperation } from './operations.js';
import { newId } from './state.js';
import { isVersion, refusedAtVersion, requestVersion, takeNewerParams } from './versions.js';

const QS_OPTIONS = { depth: 10, arrayLimit: 100, parameterLimit: 2000, allowPrototypes: false } as const;
const TEST_KEY = /^sk_test_[0-9A-Za-z_]{1,247}$/;

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

function apiRoute(core: StandinCore, operation: StripeOperation): Koa.Middleware {
  const { spec, violations, requests, accounts } = core;
  const key = `${operation.method} ${operation.path}`;
  const method = operation.method.toUpperCase();
  return async (ctx) => {
    core.catchUp();
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
    const body = operation.method === 'post' ? (qs.parse(rawBodyOf(ctx), QS_OPTIONS) as Record<string, unknown>) : {};
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
      sendJson(ctx, saved.status, saved.body);
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
      const call: ApiCall = {
        ctx: core.context(account, { id: requestId, idempotency_key: idempotencyKey ?? null }),
        version,
        path: ctx.params,
        params,
        pageUrl: (sessionId) => core.pageUrl(sessionId),
      };
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
    sendJson(ctx, status, answer);
  };
}

/** A route for each operation the stand-in serves (operations.ts). */
export function apiRoutes(router: Router, core: StandinCore): void {
  for (const operation of STRIPE_OPERATIONS) {
    router[operation.method](operation.path.replace(/\{(\w+)\}/g, ':$1'), apiRoute(core, operation));
  }
}

/** Any other request: Stripe's 404 for a URL it does not know, recorded as a violation. */
export function unrecognizedRequest(core: StandinCore): Koa.Middleware {
  return (ctx) => {
    core.violations.push({ method: ctx.method, path: ctx.path, problems: ['no such operation in the stand-in (see tools/stripe-standin/src/operations.ts)'] });
    sendJson(ctx, 404, {
      error: {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${ctx.method}: ${ctx.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
      },
    });
  };
}
