// What a handler is, typed from the generated OpenAPI types: it receives its operation's validated
// body, path and query, and answers through `respond`, which has one method per status that
// openapi.yaml declares for the operation (`respond.with200(...)`, `respond.with404(...)`), each
// taking that status's body. Answering with an undeclared status or a wrong body fails `tsc`.
// Handlers never throw HTTP errors; the statuses the HTTP layer produces itself (401, 405, 413, 414,
// 415, 422, 429, 500) are checked against the spec at start-up (see contract.ts).
import type { operations } from '../../generated/openapi.js';
import type { Actor, KeyHolder, SignedIn } from '../domain/actors.js';
import type { Permission } from '../domain/permissions.js';
import type { FieldErrors } from '../domain/rules.js';

/** The API's operations; the webhooks the service sends (operationIds ending in Webhook) are documented there too. */
export type OperationId = Exclude<keyof operations, `${string}Webhook`>;

/** The JSON body; undefined for a response without content, never for one whose content is not JSON (an image). */
type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : T extends { content: object } ? never : undefined;
/** An image the response declares (SVG as text or bytes, PNG as bytes), written as it is. */
type ImageContent<T> = T extends { content: { 'image/svg+xml': unknown } } | { content: { 'image/png': unknown } } ? string | Buffer : never;
/**
 * A response body: JSON as its schema says; where the response also declares text/csv, a stream of
 * it; where it declares an image, the image.
 */
type ReplyContent<T> = JsonContent<T> | (T extends { content: { 'text/csv': unknown } } ? NodeJS.ReadableStream : never) | ImageContent<T>;
type Parameters<K extends OperationId> = operations[K]['parameters'];
type Responses<K extends OperationId> = operations[K]['responses'];

/** The validated JSON body; undefined when the operation has none or its body is optional and was not sent. */
export type RequestBody<K extends OperationId> = operations[K] extends { requestBody?: infer R }
  ? JsonContent<NonNullable<R>> | (undefined extends R ? undefined : never)
  : undefined;
export type PathParams<K extends OperationId> = Parameters<K> extends { path: infer P } ? P : never;
export type QueryParams<K extends OperationId> = NonNullable<Parameters<K>['query']>;

/** The statuses openapi.yaml declares for an operation. */
export type DeclaredStatus<K extends OperationId> = Extract<keyof Responses<K>, number>;
export type ResponseBody<K extends OperationId, S extends DeclaredStatus<K>> = ReplyContent<Responses<K>[S]>;

/** One of the operation's declared responses. */
export type Reply<K extends OperationId, S extends DeclaredStatus<K> = DeclaredStatus<K>> =
  S extends DeclaredStatus<K> ? { status: S; body: ResponseBody<K, S>; headers?: Record<string, string> } : never;

/** Any reply, as the HTTP layer writes it. */
export interface ApiReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Responder<K extends OperationId> = {
  [S in DeclaredStatus<K> as `with${S}`]: (body: ResponseBody<K, S>, headers?: Record<string, string>) => Reply<K, S>;
};

/** Builds the responder of an operation from the statuses the spec declares for it. */
export function responderFor<K extends OperationId>(statuses: readonly number[]): Responder<K> {
  return Object.fromEntries(
    statuses.map((status) => [`with${status}`, (body: unknown, headers?: Record<string, string>) => ({ status, body, headers })]),
  ) as Responder<K>;
}

/** The business behind the request's API key. */
export interface CallerBusiness {
  id: number;
  name: string;
}

/**
 * Who is calling: the business acted on, who acts (a key or a signed-in member), what they may do,
 * and what the API limiter counts them by (their key, or their session).
 */
export interface Caller {
  business: CallerBusiness;
  actor: Actor;
  permissions: ReadonlySet<Permission>;
  rateKey: string;
  /** The member's session, when the caller signed in rather than holding a key. */
  signedIn?: SignedIn;
  /** The key, when the caller holds one. */
  key?: KeyHolder;
}

/** Where a request comes from: for the audit log, sign-in limits and the session a handler ends or renews. */
export interface RequestClient {
  address: string;
  userAgent: string | null;
  requestId: string | null;
  /** The session cookie's value, when the caller signed in with one. */
  sessionToken: string | undefined;
}

export interface OperationRequest<K extends OperationId> {
  body: RequestBody<K>;
  path: PathParams<K>;
  query: QueryParams<K>;
  /** The raw query string, for links that must keep it (paginator URLs). */
  rawQuery: string;
  /** Content negotiation on the Accept header: the first of `types` the caller prefers, or false. */
  accepts(...types: string[]): string | false;
  business: CallerBusiness;
  /** The caller; undefined only on a public operation called without credentials. */
  caller: Caller | undefined;
  client: RequestClient;
}

/** A check the schema cannot express; it sees the raw body (possibly invalid) and reports field errors. */
export type BodyRule = (body: unknown) => FieldErrors;

/**
 * An operation's handler. `scope` is what it works with (the use cases and their executor): the
 * HTTP layer passes the right one for the request, so a write under an Idempotency-Key can never
 * escape the transaction that also keeps its answer.
 */
export interface Handler<K extends OperationId, Scope> {
  rules?: BodyRule[];
  /**
   * The operation asks an acquirer, so under an Idempotency-Key it is not one transaction: its scope
   * is not a transaction, and its use case keeps the key's answer in each transaction of its own
   * (the pending record with a provisional answer, the settlement with the final one).
   */
  atomicPhases?: boolean;
  handle(request: OperationRequest<K>, scope: Scope, respond: Responder<K>): Promise<Reply<K>>;
}

export type Handlers<Scope> = { [K in OperationId]: Handler<K, Scope> };
export type SomeHandlers<Scope> = { [K in OperationId]?: Handler<K, Scope> };
