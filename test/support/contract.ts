// Checks responses against openapi.yaml with the same library and formats the server validates
// requests with: the status must be declared for the operation, the body must be JSON matching the
// declared schema, and declared headers must match too.
import type { Middleware } from 'openapi-fetch';
import { SetMatchType, type Operation } from 'openapi-backend';
import { customizeAjv, loadContract } from '../../server/http/contract.js';

// The same openapi-backend over the same document as the server's; response validators compile on first use.
const loaded = loadContract().then((contract) => contract.api);

export class ContractViolation extends Error {}

/** openapi.yaml with every $ref resolved, as the checker reads it (loaded once per test file). */
export async function dereferencedSpec(): Promise<unknown> {
  const spec = await loaded;
  return spec.definition;
}

export async function operationFor(method: string, path: string): Promise<Operation | undefined> {
  const spec = await loaded;
  return spec.router.matchOperation({ method, path: new URL(path, 'http://x').pathname, headers: {} }) || undefined;
}

export interface ObservedResponse {
  method: string;
  /** Request path, e.g. /api/payment-links/abc. */
  path: string;
  status: number;
  contentType: string | null;
  headers: Record<string, string>;
  body: unknown;
}

/** Throws a ContractViolation describing how the response departs from openapi.yaml. */
export async function assertConforms(observed: ObservedResponse): Promise<void> {
  const where = `${observed.method} ${observed.path} -> ${observed.status}`;
  const spec = await loaded;
  const operation = await operationFor(observed.method, observed.path);
  if (!operation) throw new ContractViolation(`${where}: no operation in openapi.yaml`);
  if (!operation.responses?.[String(observed.status)]) {
    throw new ContractViolation(`${where}: status not declared for ${operation.operationId}`);
  }
  const declaredTypes = Object.keys((operation.responses[String(observed.status)] as { content?: object }).content ?? {});
  const mediaType = observed.contentType?.split(';')[0]!.trim();
  if (!mediaType || !declaredTypes.includes(mediaType)) {
    throw new ContractViolation(`${where}: content type ${observed.contentType}, expected one of ${declaredTypes.join(', ')}`);
  }
  // Only JSON bodies have a schema worth checking (a CSV export is a string).
  const result = mediaType === 'application/json' ? spec.validateResponse(observed.body, operation, observed.status) : { valid: true, errors: [] };
  if (!result.valid)
    throw new ContractViolation(`${where}: body does not match the schema: ${JSON.stringify(result.errors)}\n${JSON.stringify(observed.body)}`);
  // Headers the spec marks required must be there; every declared header that is there must match.
  const declared = (operation.responses[String(observed.status)] as { headers?: Record<string, { required?: boolean }> }).headers ?? {};
  const present = new Set(Object.keys(observed.headers).map((name) => name.toLowerCase()));
  const missing = Object.entries(declared).filter(([name, header]) => header.required && !present.has(name.toLowerCase()));
  if (missing.length) throw new ContractViolation(`${where}: required headers missing: ${missing.map(([name]) => name).join(', ')}`);
  const headers = spec.validateResponseHeaders(observed.headers, operation, { statusCode: observed.status, setMatchType: SetMatchType.Any });
  if (!headers.valid) throw new ContractViolation(`${where}: headers do not match: ${JSON.stringify(headers.errors)}`);
}

/** Validates a value against a named schema of openapi.yaml (e.g. a webhook event). */
export async function assertSchema(name: string, value: unknown): Promise<void> {
  const spec = await loaded;
  const schema = (spec.definition.components?.schemas as Record<string, object>)[name];
  if (!schema) throw new ContractViolation(`no schema ${name} in openapi.yaml`);
  const validate = customizeAjv(undefined, {}).compile(schema);
  if (!validate(value)) throw new ContractViolation(`${name}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
}

/** The error body every non-422 error uses, for responses that belong to no operation (404 path, 405). */
export async function assertErrorBody(status: number, contentType: string | null, body: unknown): Promise<void> {
  const spec = await loaded;
  if (!contentType?.startsWith('application/json')) throw new ContractViolation(`${status}: content type ${contentType}`);
  const validate = customizeAjv(undefined, {}).compile((spec.definition.components?.schemas as Record<string, object>).Error!);
  if (!validate(body)) throw new ContractViolation(`${status}: body is not {message}: ${JSON.stringify(body)}`);
}

/** Plugged into every test client: no response reaches a test without being checked against the spec. */
export const conformance: Middleware = {
  async onResponse({ request, response }) {
    const text = await response.clone().text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // A body that is not JSON fails the content-type or schema check below.
    }
    await assertConforms({
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      contentType: response.headers.get('content-type'),
      headers: Object.fromEntries(response.headers.entries()),
      body,
    });
    return undefined;
  },
};
