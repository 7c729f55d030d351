// openapi.yaml as openapi-backend reads it: the one authority on the contract. It loads and
// dereferences the document, owns the operation table (operationIds, methods, paths) and compiles
// every request validator with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 needs). It is not the
// per-request dispatcher: routes.ts builds the routes once from its table, and each request runs
// the validators it compiled, through its public API. `redocly lint` validates the document itself
// (openapi-backend's own check knows OpenAPI 3.0 only; quick mode skips it).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { IncomingHttpHeaders } from 'node:http';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ErrorObject, Options as AjvOptions } from 'ajv';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { isCardLast4 } from '../domain/cards.js';
import { isSearchTerm } from '../domain/search-terms.js';
import { isCurrencyCode } from '../domain/currency.js';
import { isOperationAccess, isPermission, type OperationAccess, type Permission } from '../domain/permissions.js';
import { isStorableText } from '../domain/text.js';
import { parseDateRange } from '../domain/time.js';
import { isHttpUrl } from '../domain/urls.js';
import { PARSED_SPEC_PATH, SPEC_PATH } from '../file-locations.js';
import { compileSerializer, type Serializer } from './serializers.js';

export { SPEC_PATH };
export const API_ROOT = '/api';

const ajvInstances = new Map<string, InstanceType<typeof Ajv2020.default>>();

/** The custom formats openapi.yaml names, each a small pure function of the domain. */
export const CUSTOM_FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  iso4217: isCurrencyCode,
  'http-url': isHttpUrl,
  'date-range': (value) => parseDateRange(value) !== null,
  'storable-text': isStorableText,
  'card-last4': isCardLast4,
  'search-term': isSearchTerm,
};

/**
 * The Ajv that openapi-backend compiles the spec's schemas with: JSON Schema 2020-12, every error at
 * once, and the formats named in openapi.yaml, whose rules live in small pure functions of the domain.
 * openapi-backend asks for a new instance per schema; one per set of options serves them all (the
 * dereferenced schemas carry no $id that could clash) and saves most of start-up.
 */
export function customizeAjv(_default: unknown, options: AjvOptions) {
  const signature = JSON.stringify(options);
  const existing = ajvInstances.get(signature);
  if (existing) return existing;
  // validateSchema off: checking each schema against the 2020-12 meta-schema first compiles that meta-schema,
  // a large part of the first request's wait; the document's schemas are checked by `redocly lint` instead.
  const ajv = new Ajv2020.default({ ...options, strict: false, allErrors: true, verbose: true, validateSchema: false });
  addFormats.default(ajv, ['email', 'date', 'date-time', 'int32', 'int64', 'byte']);
  for (const [name, validate] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, validate);
  ajvInstances.set(signature, ajv);
  return ajv;
}

/** A request as openapi-backend's validators take it (see OpenAPIValidator.validateRequest). */
export interface ShapedRequest {
  path: Record<string, string>;
  query: Record<string, unknown>;
  header: IncomingHttpHeaders;
  cookie: Record<string, string>;
  requestBody?: unknown;
}

export interface ContractOperation {
  operationId: string;
  /** Upper case, e.g. GET. */
  method: string;
  /** The path template relative to the API root, e.g. /payment-links/{payment_link_id}. */
  path: string;
  /** Whether the operation needs a caller (the document's default security unless it says otherwise). */
  secured: boolean;
  /**
   * The credentials its `security` accepts: an API key (`bearerAuth`), a member's session
   * (`sessionCookie`), or both. The gate refuses the other kind with 403 before anything else.
   */
  credentials: { key: boolean; session: boolean };
  /** What the caller must hold (`x-permission`): a permission, or `authenticated` / `public`. */
  permission: OperationAccess;
  /**
   * A further permission an answer in another media type needs (`x-permission-by-accept`), e.g. the
   * payments list as CSV needs `exports:read`. Keyed by media type, in the order negotiated after JSON.
   */
  permissionByAccept: Readonly<Record<string, Permission>>;
  /**
   * `x-audit: use-case`: the operation's use case writes its own audit events (sign-in and team
   * changes, named for what they do), so the router drafts none for it.
   */
  auditedByUseCase: boolean;
  /** The JSON request body's schema, when the operation takes one. */
  bodySchema: unknown;
  /** The statuses the operation declares. */
  statuses: number[];
  /** Runs the operation's compiled validators; coerces query and path parameters in place, as openapi-backend does. */
  validate(request: ShapedRequest): ErrorObject[];
  /** The serializer compiled from the JSON schema of the answer with `status` (on first use), or undefined: JSON.stringify then. */
  serializerFor(status: number): Serializer | undefined;
  /** Compiles the validators and the serializers of its successful answers now rather than on the first request. */
  compile(): void;
}

/**
 * The request shaping in routes.ts copies the part of openapi-backend's that our parameters need:
 * query parameters in form style, each under its own name (`filter[status]` is one parameter),
 * simple path parameters, string headers. Anything
 * else in the document would be validated differently from openapi-backend, so it is refused here.
 */
export function unsupportedParameters(operation: Operation): string[] {
  const problems: string[] = [];
  for (const parameter of (operation.parameters ?? []) as unknown as Record<string, unknown>[]) {
    const where = `${operation.operationId}: parameter ${String(parameter.name)} (in ${String(parameter.in)})`;
    const schema = parameter.schema as { type?: unknown } | undefined;
    if (parameter.in === 'cookie') problems.push(`${where}: cookie parameters are not shaped`);
    if (parameter.content !== undefined) problems.push(`${where}: content parameters are not shaped`);
    if (parameter.explode === false) problems.push(`${where}: explode: false is not shaped`);
    if (parameter.in === 'query' && parameter.style !== undefined && parameter.style !== 'form')
      problems.push(`${where}: style ${String(parameter.style)} is not shaped (declare filter[x] parameters one by one)`);
    if (parameter.in === 'query' && (schema?.type === 'object' || (Array.isArray(schema?.type) && schema.type.includes('object'))))
      problems.push(`${where}: object query parameters are not shaped`);
    if (parameter.in === 'query' && (schema?.type === 'array' || (Array.isArray(schema?.type) && schema.type.includes('array'))))
      problems.push(`${where}: array query parameters are not shaped`);
    if (parameter.in === 'header' && schema?.type !== 'string') problems.push(`${where}: header parameters must be strings`);
    if (parameter.in === 'path' && parameter.style !== undefined && parameter.style !== 'simple')
      problems.push(`${where}: style ${String(parameter.style)} is not shaped`);
  }
  return problems;
}

function jsonBodySchema(operation: Operation): unknown {
  const body = operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  return body?.content?.['application/json']?.schema;
}

function jsonResponseSchema(operation: Operation, status: number): unknown {
  const response = (operation.responses as Record<string, { content?: Record<string, { schema?: unknown }> }> | undefined)?.[String(status)];
  return response?.content?.['application/json']?.schema;
}

/**
 * The access an operation declares. Every operation must name one, so that none is left open by
 * forgetting: start-up stops on an operation without a valid `x-permission`, and `public` is only
 * for operations that need no caller (no security).
 */
export function accessProblems(operation: Operation, secured: boolean): string[] {
  const where = `${operation.method.toUpperCase()} ${operation.path} (${operation.operationId ?? 'no operationId'})`;
  const declared = (operation as Record<string, unknown>)['x-permission'];
  const problems: string[] = [];
  if (declared === undefined) problems.push(`${where}: no x-permission`);
  else if (!isOperationAccess(declared)) problems.push(`${where}: x-permission ${JSON.stringify(declared)} is no permission`);
  else if ((declared === 'public') === secured) problems.push(`${where}: x-permission public must go with security: [] and only with it`);
  const audit = (operation as Record<string, unknown>)['x-audit'];
  if (audit !== undefined && audit !== 'use-case') problems.push(`${where}: x-audit ${JSON.stringify(audit)} is not use-case`);
  const byAccept = (operation as Record<string, unknown>)['x-permission-by-accept'];
  if (byAccept !== undefined) {
    if (typeof byAccept !== 'object' || byAccept === null || Array.isArray(byAccept)) problems.push(`${where}: x-permission-by-accept is not a map`);
    else
      for (const [type, permission] of Object.entries(byAccept))
        if (!isPermission(permission)) problems.push(`${where}: x-permission-by-accept ${type} is no permission`);
  }
  return problems;
}

export interface Contract {
  /** openapi-backend over openapi.yaml, for anything else that reads the contract (the tests' response checker). */
  readonly api: OpenAPIBackend;
  readonly operations: ContractOperation[];
}

/** The parsed form `npm run generate` keeps of a version of openapi.yaml. */
export interface ParsedSpec {
  source_sha256: string;
  document: Document;
}

export function specHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * openapi.yaml as a document. Parsing the YAML is a large part of start-up, so the JSON that
 * `npm run generate` wrote is used instead, but only while it was made from this very text: an
 * edited openapi.yaml is always read as it is now.
 */
export function readSpecDocument(specPath = SPEC_PATH, parsedPath = PARSED_SPEC_PATH): Document {
  const text = readFileSync(specPath, 'utf8');
  try {
    const parsed = JSON.parse(readFileSync(parsedPath, 'utf8')) as ParsedSpec;
    if (parsed.source_sha256 === specHash(text)) return parsed.document;
  } catch {
    // Not generated (or unreadable): the YAML itself is the answer.
  }
  // The YAML parser is loaded only here: the parsed copy spares every other start the module too.
  return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text) as Document;
}

export async function loadContract(definition: Document = readSpecDocument()): Promise<Contract> {
  const api = new OpenAPIBackend({
    definition,
    apiRoot: API_ROOT,
    strict: true,
    // Quick mode dereferences the parsed document synchronously, skips openapi-backend's OpenAPI 3.0
    // document check, and compiles validators on demand: the request validators are compiled
    // below, the response validators (used by the tests' checker only) when first asked for.
    quick: true,
    coerceTypes: true,
    customizeAjv,
  });
  await api.init();
  const problems = api.getOperations().flatMap(unsupportedParameters);
  if (problems.length > 0) throw new Error(`openapi.yaml uses parameters the request shaping does not handle:\n${problems.join('\n')}`);
  const defaultSecurity = (api.definition as { security?: unknown[] }).security ?? [];
  const isSecured = (operation: Operation) => (operation.security ?? defaultSecurity).length > 0;
  const credentialsOf = (operation: Operation) => {
    const schemes = new Set((operation.security ?? defaultSecurity).flatMap((requirement) => Object.keys(requirement as object)));
    return { key: schemes.has('bearerAuth'), session: schemes.has('sessionCookie') };
  };
  const accessIssues = api.getOperations().flatMap((operation) => accessProblems(operation, isSecured(operation)));
  if (accessIssues.length > 0) throw new Error(`openapi.yaml: every operation must declare the permission it needs:\n${accessIssues.join('\n')}`);
  const operations = api.getOperations().map((operation): ContractOperation => {
    if (!operation.operationId) throw new Error(`openapi.yaml: ${operation.method.toUpperCase()} ${operation.path} has no operationId`);
    // Compiled on first use (or by warmUp), so start-up does not wait for every operation's validators.
    let validators: ReturnType<typeof api.validator.getRequestValidatorsForOperation> | undefined;
    const compiled = () => (validators ??= api.validator.getRequestValidatorsForOperation(operation.operationId!) ?? []);
    const serializers = new Map<number, Serializer | undefined>();
    const serializerFor = (status: number) => {
      if (!serializers.has(status)) serializers.set(status, compileSerializer(jsonResponseSchema(operation, status)));
      return serializers.get(status);
    };
    const statuses = Object.keys(operation.responses ?? {}).map(Number);
    return {
      operationId: operation.operationId,
      method: operation.method.toUpperCase(),
      path: operation.path,
      secured: isSecured(operation),
      credentials: credentialsOf(operation),
      permission: (operation as Record<string, unknown>)['x-permission'] as OperationAccess,
      permissionByAccept: ((operation as Record<string, unknown>)['x-permission-by-accept'] ?? {}) as Record<string, Permission>,
      auditedByUseCase: (operation as Record<string, unknown>)['x-audit'] === 'use-case',
      bodySchema: jsonBodySchema(operation),
      statuses,
      validate(request) {
        const errors: ErrorObject[] = [];
        for (const validate of compiled()) if (!validate(request)) errors.push(...(validate.errors ?? []));
        return errors;
      },
      serializerFor,
      compile() {
        compiled();
        for (const status of statuses) if (status < 300) serializerFor(status);
      },
    };
  });
  return { api, operations };
}

/**
 * Compiles every operation's validators in the background once the server has started: after
 * `afterMs`, so the start-up's own work (the first requests, a demo key) does not wait behind it,
 * then one operation per turn of the event loop, so requests arriving meanwhile wait for one
 * compilation at most. An operation asked for before then compiles its own on first use.
 * Stops when `signal` aborts (the service is closing).
 */
export async function warmUp(contract: Contract, options: { afterMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  if (options.afterMs) await new Promise((resolve) => setTimeout(resolve, options.afterMs).unref());
  for (const operation of contract.operations) {
    await new Promise((resolve) => setImmediate(resolve));
    if (options.signal?.aborted) return;
    operation.compile();
  }
}
