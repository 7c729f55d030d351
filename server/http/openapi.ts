// The one way in from openapi.yaml to a handler: openapi-backend routes the request, runs the bearer
// security handler, validates against the spec with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 needs),
// and calls the operation. Validation failures become the seed's 422 body with Laravel texts.
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Options as AjvOptions } from 'ajv';
import type Koa from 'koa';
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import { isCurrencyCode } from '../domain/currency.js';
import { isHttpUrl } from '../domain/urls.js';
import { parseDateRange } from '../domain/time.js';
import type { FieldErrors } from '../domain/rules.js';
import type { Caller } from '../store/api-keys.js';
import type { Db } from '../store/db.js';
import type { Business } from '../store/businesses.js';
import { MethodNotAllowedError, NotFoundError, UnauthenticatedError, ValidationError, type HttpError } from './errors.js';
import { withIdempotency, type ApiResponse } from './idempotency.js';
import type { BodyRule, Operation, OperationId, Operations } from './operations.js';
import { laravelErrors, mergeFieldErrors } from './validation-errors.js';

export const SPEC_PATH = new URL('../../openapi.yaml', import.meta.url);

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

/** Formats named in openapi.yaml whose rules live in small pure functions of the domain. */
export function customizeAjv(_default: unknown, options: AjvOptions) {
  const ajv = new Ajv2020.default({ ...options, strict: false, allErrors: true, verbose: true });
  addFormats.default(ajv, ['email']);
  ajv.addFormat('iso4217', isCurrencyCode);
  ajv.addFormat('http-url', isHttpUrl);
  ajv.addFormat('date-range', (value: string) => parseDateRange(value) !== null);
  return ajv;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

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
    definition: fileURLToPath(SPEC_PATH),
    apiRoot: '/api',
    strict: true,
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
      const run = async (): Promise<ApiResponse> => ({
        status: 200,
        body: await operation.handle({
          body: context.request.requestBody,
          path: context.request.params as never,
          query: context.request.query as never,
          rawQuery: ctx.querystring,
          business,
        }),
      });
      const key = ctx.get('idempotency-key');
      if (!key || (ctx.method !== 'POST' && ctx.method !== 'PUT')) return run();
      return withIdempotency(db, { businessId: business.id, key, method: ctx.method, path: ctx.path, body: context.request.requestBody }, run);
    });
  }
  await api.init();
  const missing = api.getOperations().map((o) => o.operationId).filter((id) => !id || !(id in operations));
  if (missing.length > 0) throw new Error(`openapi.yaml operations without a handler: ${missing.join(', ')}`);
  return api;
}
