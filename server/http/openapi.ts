// The one way in from openapi.yaml to a handler: openapi-backend routes the request, runs the bearer
// security handler, validates against the spec with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 needs),
// and calls the operation. Validation failures become the seed's 422 body with Laravel texts.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { SPEC_PATH } from '../paths.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Options as AjvOptions } from 'ajv';
import type Koa from 'koa';
import { OpenAPIBackend, type Context, type Document, type OpenAPIRouter, type Operation as RouteOperation, type Request } from 'openapi-backend';
import { isCurrencyCode } from '../domain/currency.js';
import { isHttpUrl } from '../domain/urls.js';
import { parseDateRange } from '../domain/time.js';
import type { FieldErrors } from '../domain/rules.js';
import type { Caller } from '../store/api-keys.js';
import type { Db, Executor } from '../store/db.js';
import type { Business } from '../store/businesses.js';
import { MethodNotAllowedError, NotFoundError, UnauthenticatedError, ValidationError, type HttpError } from './errors.js';
import { withIdempotency, type ApiResponse } from './idempotency.js';
import type { BodyRule, Operation, OperationId, Operations } from './operations.js';
import { parseQuery } from './query.js';
import { laravelErrors, mergeFieldErrors } from './validation-errors.js';

export { SPEC_PATH };

/**
 * openapi-backend checks documents against the OpenAPI 3.0 meta-schema only
 * (openapistack/openapi-backend#532), which rejects any 3.1 document. `redocly lint` validates our
 * document in CI instead, so that one check is switched off and strict mode stays on for the rest.
 */
export class OpenAPI31Backend extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.document;
  }
}

const ajvInstances = new Map<string, InstanceType<typeof Ajv2020.default>>();

/**
 * The Ajv that openapi-backend compiles the spec's schemas with: JSON Schema 2020-12, every error at
 * once, and the formats named in openapi.yaml, whose rules live in small pure functions of the domain.
 * openapi-backend asks for a new instance per schema; one per set of options serves them all (the
 * dereferenced schemas carry no $id that could clash) and saved most of start-up.
 */
export function customizeAjv(_default: unknown, options: AjvOptions) {
  const signature = JSON.stringify(options);
  const existing = ajvInstances.get(signature);
  if (existing) return existing;
  const ajv = new Ajv2020.default({ ...options, strict: false, allErrors: true, verbose: true });
  addFormats.default(ajv, ['email']);
  ajv.addFormat('iso4217', isCurrencyCode);
  ajv.addFormat('http-url', isHttpUrl);
  ajv.addFormat('date-range', (value: string) => parseDateRange(value) !== null);
  ajvInstances.set(signature, ajv);
  return ajv;
}

export const API_ROOT = '/api';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * openapi-backend's router turns every path template into a new RegExp on every request, which was
 * a tenth of a request's time (measured in the bench). This matcher keeps its rules exactly (the
 * router's own normalisation, exact paths first, then templates by specificity, 404 before 405)
 * with the patterns compiled once.
 */
function precompileRoutes(router: OpenAPIRouter, operations: RouteOperation[]): void {
  const templates = operations
    .map((operation) => ({
      operation,
      pattern: new RegExp(`^${operation.path.split(/\{[^{}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
      specificity: operation.path.replace(/\{[^{}]*\}/g, '').length,
    }))
    .sort((a, b) => b.specificity - a.specificity);
  router.matchOperation = ((request: Request, strict?: boolean) => {
    const fail = (reason: string) => {
      if (strict) throw new Error(reason);
      return undefined;
    };
    const normalized = router.normalizeRequest(request);
    if (normalized.path !== API_ROOT && !normalized.path.startsWith(`${API_ROOT}/`)) return fail('404-notFound: no route matches request');
    const path = router.normalizePath(normalized.path);
    const exact = operations.find((operation) => operation.path === path && operation.method === normalized.method);
    if (exact) return exact;
    const matches = templates.filter((template) => template.pattern.test(path));
    if (matches.length === 0) return fail('404-notFound: no route matches request');
    return matches.find((template) => template.operation.method === normalized.method)?.operation ?? fail('405-methodNotAllowed: this method is not registered for the route');
  }) as OpenAPIRouter['matchOperation'];
}

function bodySchemaOf(context: Context): unknown {
  const body = context.operation?.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  return body?.content?.['application/json']?.schema;
}

function runRules(rules: BodyRule[] | undefined, body: unknown): FieldErrors {
  return Object.assign({}, ...(rules ?? []).map((rule) => rule(body)));
}

export interface ApiOptions {
  operations: Operations;
  /** Where Idempotency-Key records live. */
  db: Db;
}

export async function createApi({ operations, db }: ApiOptions): Promise<OpenAPIBackend> {
  const api = new OpenAPI31Backend({
    definition: parseYaml(readFileSync(SPEC_PATH, 'utf8')) as Document,
    apiRoot: API_ROOT,
    strict: true,
    // Quick mode dereferences the parsed document synchronously and compiles validators on demand;
    // the request validators are warmed below, the response validators (never used by the server,
    // only by the tests' own checker) are never built. Start-up was mostly spent building them.
    quick: true,
    coerceTypes: true,
    customizeAjv,
    handlers: {
      notFound: () => {
        throw new NotFoundError();
      },
      methodNotAllowed: (context: Context) => {
        const { path, method } = context.request;
        const allowed = METHODS.filter((candidate) => {
          try {
            return Boolean(api.router.matchOperation({ method: candidate, path, headers: {} }, true));
          } catch {
            return false;
          }
        });
        throw new MethodNotAllowedError(method.toUpperCase(), allowed);
      },
      unauthorizedHandler: () => {
        throw new UnauthenticatedError();
      },
      // Body errors (bad JSON, not JSON, too large) wait until the caller is known to be authenticated.
      postSecurityHandler: (context: Context, ctx: Koa.Context) => {
        const bodyError = ctx.state.bodyError as HttpError | undefined;
        if (context.security.authorized && bodyError) throw bodyError;
      },
      validationFail: (context: Context) => {
        const schema = bodySchemaOf(context);
        const operation = operations[context.operation.operationId as OperationId];
        const ruleErrors = runRules(operation?.rules, context.request.requestBody);
        throw new ValidationError(mergeFieldErrors(laravelErrors(context.validation.errors ?? [], schema), ruleErrors, schema));
      },
    },
    securityHandlers: {
      // The key was looked up once, before rate limiting (see app.ts); here the spec's rule is applied.
      bearerAuth: (_context: Context, ctx: Koa.Context) => (ctx.state.caller as Caller | undefined)?.business ?? false,
    },
  });

  for (const [operationId, operation] of Object.entries(operations) as [OperationId, Operation<OperationId>][]) {
    api.register(operationId, async (context: Context, ctx: Koa.Context): Promise<ApiResponse> => {
      const ruleErrors = runRules(operation.rules, context.request.requestBody);
      if (Object.keys(ruleErrors).length > 0) throw new ValidationError(mergeFieldErrors({}, ruleErrors, bodySchemaOf(context)));
      const business = context.security.bearerAuth as Business;
      const run = async (executor: Executor): Promise<ApiResponse> => ({
        status: 200,
        body: await operation.handle({
          body: context.request.requestBody,
          path: context.request.params as never,
          query: context.request.query as never,
          rawQuery: ctx.querystring,
          business,
          db: executor,
        }),
      });
      const key = ctx.get('idempotency-key');
      if (!key || (ctx.method !== 'POST' && ctx.method !== 'PUT')) return run(db);
      return withIdempotency(db, { businessId: business.id, key, method: ctx.method, path: ctx.path, body: context.request.requestBody }, run);
    });
  }
  await api.init();
  // The router rebuilds its operation list with lodash on every call, several times per request
  // (measured in the bench); the document never changes after init, so the list is built once.
  const routerOperations = api.router.getOperations();
  api.router.getOperations = () => routerOperations;
  precompileRoutes(api.router, routerOperations);
  // After validation openapi-backend parses again from the coerced query object; that path stays its own.
  const parseParsedQuery = api.router.parseRequestQuery.bind(api.router);
  api.router.parseRequestQuery = (request: Request) => (typeof request.query === 'string' ? parseQuery(request.query) : parseParsedQuery(request));
  const missing = api.getOperations().map((o) => o.operationId).filter((id) => !id || !(id in operations));
  if (missing.length > 0) throw new Error(`openapi.yaml operations without a handler: ${missing.join(', ')}`);
  for (const operation of routerOperations) api.validator.getRequestValidatorsForOperation(operation.operationId!);
  return api;
}
