// Operation handlers are typed from the generated OpenAPI types: a handler receives the validated
// body, path and query of its operation and must return that operation's 200 body, so the compiler
// catches a wrong shape. Errors are thrown (see errors.ts), never returned.
import type { operations } from '../../generated/openapi.js';
import type { FieldErrors } from '../domain/rules.js';
import type { Business } from '../store/businesses.js';
import type { Executor } from '../store/db.js';

export type OperationId = keyof operations;

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : undefined;
type Parameters<K extends OperationId> = operations[K]['parameters'];

export type RequestBody<K extends OperationId> = operations[K] extends { requestBody: infer R } ? JsonContent<NonNullable<R>> : undefined;
export type PathParams<K extends OperationId> = Parameters<K> extends { path: infer P } ? P : never;
export type QueryParams<K extends OperationId> = NonNullable<Parameters<K>['query']>;
export type SuccessBody<K extends OperationId> = JsonContent<operations[K]['responses'][200]>;

export interface OperationRequest<K extends OperationId> {
  body: RequestBody<K>;
  path: PathParams<K>;
  query: QueryParams<K>;
  /** The raw query string, for links that must keep it (paginator URLs). */
  rawQuery: string;
  business: Business;
  /**
   * Where the request's writes go: the database, or, under an Idempotency-Key, the transaction that
   * also stores the response, so a crash can never keep the write and lose the key's answer.
   */
  db: Executor;
}

/** A check the schema cannot express; it sees the raw body (possibly invalid) and reports field errors. */
export type BodyRule = (body: unknown) => FieldErrors;

export interface Operation<K extends OperationId> {
  handle(request: OperationRequest<K>): Promise<SuccessBody<K>>;
  rules?: BodyRule[];
}

export type Operations = { [K in OperationId]?: Operation<K> };
