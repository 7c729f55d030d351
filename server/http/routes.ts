// The one way in from openapi.yaml to a handler. At start-up every operation of the contract's
// table becomes a route on @koa/router (and every handler must have an operation, every operation a
// handler). Per request: 401 for a secured operation without a valid key, 403 for a caller without
// the operation's permission (x-permission), then problems with the
// body (not JSON, too large), then the operation's own validators (422 with Laravel's texts), then
// the handler, under an Idempotency-Key when the request carries one.
import Router from '@koa/router';
import type Koa from 'koa';
import type { Actor } from '../domain/actors.js';
import type { IdempotentOutcome, IdempotentRequest } from '../domain/idempotent-requests.js';
import { reasonOf } from '../domain/audit-reasons.js';
import { laravelInput } from '../domain/input.js';
import type { Permission } from '../domain/permissions.js';
import type { FieldErrors } from '../domain/rules.js';
import { readJsonBody } from './body.js';
import { API_ROOT, type Contract, type ContractOperation, type ShapedRequest } from './contract.js';
import {
  ConflictError,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  UnauthenticatedError,
  ValidationError,
  toErrorResponse,
  type HttpError,
} from './errors.js';
import { responderFor, type ApiReply, type BodyRule, type Caller, type CallerBusiness, type Handler, type Handlers, type OperationId } from './operations.js';
import { parseQuery } from './query.js';
import { laravelErrors, mergeFieldErrors } from './validation-errors.js';

export type { IdempotentRequest };
/** What became of a request under an Idempotency-Key. */
export type IdempotentAnswer = IdempotentOutcome<ApiReply>;

/** The audit log's entry for a write, drafted by the router before anything of the request is read. */
export interface AuditDraft {
  businessId: number;
  actor: Actor;
  /** The operationId. */
  action: string;
  /** The ids in the path; the scope adds the id of what the write created. */
  targetIds: string[];
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/**
 * A write's audit entry as its request goes. The scope records it in the transaction that commits the
 * change (`pendingId`, `recordedId` once that committed); whatever did not record it (a refusal, a
 * failure, a replay) is recorded on its own by `settle`, so every write leaves exactly one event.
 */
export interface AuditTrail {
  draft: AuditDraft;
  /** What the change changed, noted by its use case (old and new values); recorded with the entry. */
  details?: Record<string, unknown>;
  pendingId?: string;
  recordedId?: string;
}

/** Where handlers get their scope (use cases and executor) from; provided by the composition root. */
export interface Scopes<Scope> {
  /** The scope of reads. */
  readonly plain: Scope;
  /**
   * Runs `work` so that its writes, its audit entry and the reply kept for retries of the key commit
   * together (or finds the kept reply to replay); with `atomicPhases`, each of its transactions
   * commits with the reply it makes true, the first with the audit entry.
   */
  idempotent(request: IdempotentRequest, trail: AuditTrail, work: (scope: Scope) => Promise<ApiReply>): Promise<IdempotentAnswer>;
  /**
   * A write without an Idempotency-Key: one transaction holds its changes and its audit entry; with
   * `atomicPhases`, the first of its own transactions records the entry.
   */
  write(trail: AuditTrail, atomicPhases: boolean, work: (scope: Scope) => Promise<ApiReply>): Promise<ApiReply>;
  /**
   * Records the trail's entry on its own, answered with `status` (and, for a refusal or a failure, the
   * `reason` the caller was told), unless a committed transaction holds it.
   */
  settle(trail: AuditTrail, status: number, reason?: string): Promise<void>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The methods openapi.yaml may use, in the order an Allow header lists them. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function runRules(rules: BodyRule[] | undefined, body: unknown): FieldErrors {
  return Object.assign({}, ...(rules ?? []).map((rule) => rule(body)));
}

/** `{payment_link_id}` in the contract's templates is `:payment_link_id` for the router. */
export function routerPath(template: string): string {
  return API_ROOT + template.replace(/\{([^{}]+)\}/g, ':$1');
}

/** Exact paths before templates, the most literal template first: the contract's own precedence. */
function bySpecificity(a: ContractOperation, b: ContractOperation): number {
  const literal = (operation: ContractOperation) => operation.path.replace(/\{[^{}]*\}/g, '').length;
  const templated = (operation: ContractOperation) => (operation.path.includes('{') ? 1 : 0);
  return templated(a) - templated(b) || literal(b) - literal(a);
}

export interface RawRequest {
  /** Path parameters, as the router decoded them. */
  params: Record<string, string>;
  querystring: string;
  headers: ShapedRequest['header'];
  body: unknown;
  /** The media type of the body, without parameters. */
  mediaType: string;
}

/**
 * The request as openapi-backend's validateRequest shapes it for its validators: path, query,
 * lower-cased headers, no cookies, and the body when there is one (or when it was sent as JSON).
 */
export function shapeRequest(raw: RawRequest): ShapedRequest {
  const request: ShapedRequest = { path: { ...raw.params }, query: parseQuery(raw.querystring), header: raw.headers, cookie: {} };
  if (typeof raw.body === 'object' || raw.mediaType === 'application/json') request.requestBody = raw.body;
  return request;
}

/** A body Koa would write as JSON: an object that is neither bytes nor a stream. */
function isJsonBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
}

/** What the router needs of the caller the gate found: the business, and what the caller may do. */
interface RoutedCaller {
  business: CallerBusiness;
  actor: Actor;
  permissions: ReadonlySet<Permission>;
}

/**
 * The permission check, the same for keys and members: keyed on what the caller holds alone, before
 * anything of the request is read. An answer in another media type may need one more permission
 * (the payments list as CSV needs `exports:read`), negotiated as the handler negotiates it.
 */
function assertPermitted(operation: ContractOperation, caller: RoutedCaller | undefined, accepts: (...types: string[]) => string | false): void {
  if (operation.permission === 'public') return;
  if (!caller) throw new UnauthenticatedError();
  if (operation.permission === 'authenticated') return;
  if (!caller.permissions.has(operation.permission)) throw new ForbiddenError(operation.permission);
  const types = Object.keys(operation.permissionByAccept);
  if (types.length === 0) return;
  const chosen = accepts('application/json', ...types);
  const further = chosen ? operation.permissionByAccept[chosen] : undefined;
  if (further && !caller.permissions.has(further)) throw new ForbiddenError(further);
}

function operationMiddleware<Scope>(operation: ContractOperation, handler: Handler<OperationId, Scope>, scopes: Scopes<Scope>): Koa.Middleware {
  const respond = responderFor<OperationId>(operation.statuses);
  const route = API_ROOT + operation.path;
  const idempotent = operation.method === 'POST' || operation.method === 'PUT';
  const audited = WRITES.has(operation.method);
  // Its use case records what it does, named for it (`team.member_role_changed`); the router records only what it refused.
  const successAuditedByUseCase = operation.auditedByUseCase;

  const answer = async (koa: Koa.Context, caller: RoutedCaller | undefined, trail: AuditTrail | undefined): Promise<ApiReply> => {
    // What the gate refused (a credential this operation does not take, a CSRF token, the rate limit), answered here to be audited.
    const refused = koa.state.refusal as HttpError | undefined;
    if (refused) throw refused;
    assertPermitted(operation, caller, (...types) => koa.accepts(...types));
    // Problems with the body wait until the caller is known to be authenticated and permitted.
    await readJsonBody(koa, operation.bodySchema !== undefined);
    const bodyError = koa.state.bodyError as HttpError | undefined;
    if (bodyError) throw bodyError;

    const body = laravelInput(koa.request.body);
    const request = shapeRequest({ params: koa.params, querystring: koa.querystring, headers: koa.headers, body, mediaType: koa.request.type.toLowerCase() });
    // An id in the path that breaks its schema (too long, say) names no record: the handler answers
    // it as it answers any id the business does not have, 404, as the contract says.
    const errors = operation.validate(request).filter((error) => !error.instancePath.startsWith('/path/'));
    const ruleErrors = runRules(handler.rules, body);
    if (errors.length > 0 || Object.keys(ruleErrors).length > 0) {
      throw new ValidationError(mergeFieldErrors(laravelErrors(errors, operation.bodySchema), ruleErrors, operation.bodySchema));
    }

    const input = {
      body: request.requestBody as never,
      path: request.path as never,
      query: request.query as never,
      rawQuery: koa.querystring,
      accepts: (...types: string[]) => koa.accepts(...types),
      business: caller?.business as CallerBusiness,
      caller: caller as Caller | undefined,
      client: {
        address: koa.ip,
        userAgent: koa.get('user-agent') || null,
        requestId: (koa.state.requestId as string | undefined) ?? null,
        sessionToken: koa.state.sessionToken as string | undefined,
      },
    };
    const work = (scope: Scope) => handler.handle(input, scope, respond);
    if (successAuditedByUseCase) return work(scopes.plain);
    const key = koa.get('idempotency-key');
    if (trail && idempotent && key) {
      const keyed = {
        businessId: trail.draft.businessId,
        key,
        method: operation.method,
        path: koa.path,
        body: request.requestBody,
        atomicPhases: handler.atomicPhases,
      };
      const outcome = await scopes.idempotent(keyed, trail, work);
      switch (outcome.kind) {
        case 'ran':
          return outcome.reply;
        case 'replay':
          return { ...outcome.reply, headers: { 'Idempotent-Replayed': 'true' } };
        case 'mismatch':
          throw new ValidationError({ idempotency_key: ['This idempotency key was already used with a different request.'] });
        case 'in_flight':
          throw new ConflictError('A request with this Idempotency-Key is still being processed. Retry it later.');
      }
    }
    if (trail) return scopes.write(trail, handler.atomicPhases ?? false, work);
    return work(scopes.plain);
  };

  return async (koa) => {
    koa.state.route = route;
    const caller = koa.state.caller as RoutedCaller | undefined;
    if (operation.secured && !caller) throw new UnauthenticatedError();
    // A write by a known caller is audited whatever comes of it, refusals included; a request without
    // a caller is not (it can do nothing, and a flood of them would flood the log).
    const trail: AuditTrail | undefined =
      audited && caller
        ? {
            draft: {
              businessId: caller.business.id,
              actor: caller.actor,
              action: operation.operationId,
              targetIds: Object.values(koa.params as Record<string, string>),
              clientAddress: koa.ip || null,
              userAgent: koa.get('user-agent') || null,
              requestId: (koa.state.requestId as string | undefined) ?? null,
            },
          }
        : undefined;
    let reply: ApiReply;
    try {
      reply = await answer(koa, caller, trail);
    } catch (error) {
      if (trail) {
        const response = toErrorResponse(error);
        await scopes.settle(trail, response.status, reasonOf(response.body));
      }
      throw error;
    }
    const succeeded = reply.status < 300;
    if (trail && !(succeeded && successAuditedByUseCase)) await scopes.settle(trail, reply.status, succeeded ? undefined : reasonOf(reply.body));
    koa.status = reply.status;
    if (reply.headers) koa.set(reply.headers);
    if (isJsonBody(reply.body) && !koa.response.get('Content-Type')) {
      // As Koa would label and write the object, by the serializer compiled from the answer's schema where
      // there is one. Koa is handed the text, not the object: an object makes it test for a fetch Response,
      // and the first such test loads Node's fetch, which the service itself never needs.
      koa.type = 'application/json';
      koa.body = (operation.serializerFor(reply.status) ?? JSON.stringify)(reply.body);
    } else {
      koa.body = reply.body;
    }
  };
}

function assertOneHandlerEach(contract: Contract, handlers: Record<string, unknown>): void {
  const operationIds = new Set(contract.operations.map((operation) => operation.operationId));
  const missing = [...operationIds].filter((id) => !Object.hasOwn(handlers, id));
  const unknown = Object.keys(handlers).filter((id) => !operationIds.has(id));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(
      `operations and handlers do not match: ${[missing.length && `no handler for ${missing.join(', ')}`, unknown.length && `no operation for ${unknown.join(', ')}`].filter(Boolean).join('; ')}`,
    );
  }
}

export interface ContractRoutes {
  middleware: Koa.Middleware;
  /** The operation a request would be routed to, as the router itself matches it (so a trailing slash matches nothing). */
  match(method: string, path: string): ContractOperation | undefined;
}

/** The API's routes, built once from the contract's operation table; unknown paths are 404, known paths with another method 405. */
export function contractRoutes<Scope>(contract: Contract, handlers: Handlers<Scope>, scopes: Scopes<Scope>): ContractRoutes {
  assertOneHandlerEach(contract, handlers);
  // Strict: `/api/auth/login/` is no route of the contract's, so no check can be skipped by spelling a path two ways.
  const router = new Router({ sensitive: true, strict: true });
  const byName = new Map(contract.operations.map((operation) => [operation.operationId, operation]));
  const methodsOf = new Map<string, string[]>();
  for (const operation of [...contract.operations].sort(bySpecificity)) {
    const handler = handlers[operation.operationId as OperationId] as Handler<OperationId, Scope>;
    const path = routerPath(operation.path);
    router.register(path, [operation.method], operationMiddleware(operation, handler, scopes), { name: operation.operationId });
    methodsOf.set(path, [...(methodsOf.get(path) ?? []), operation.method]);
  }
  const routes = router.routes();
  return {
    async middleware(koa, next) {
      await routes(koa as never, async () => {
        if (koa.state.route) return next();
        const matched = router.match(koa.path, koa.method);
        if (matched.path.length === 0) throw new NotFoundError();
        const allowed = new Set(matched.path.flatMap((layer) => methodsOf.get(String(layer.path)) ?? []));
        throw new MethodNotAllowedError(
          koa.method,
          METHODS.filter((method) => allowed.has(method)),
        );
      });
    },
    match(method, path) {
      const layer = router.match(path, method).pathAndMethod[0];
      return layer?.name ? byName.get(layer.name) : undefined;
    },
  };
}
