// openapi.yaml, walked generically: the security suites take their paths, methods, fields and limits
// from here, so a new endpoint, field or bound is covered without anyone remembering to add it.
import { dereferencedSpec } from '../support/contract.js';

/** Every method a client can send: the spec's own, and the ones a path must refuse with 405. */
export const HTTP_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  maxLength?: number;
  minLength?: number;
  maximum?: number;
  minimum?: number;
  format?: string;
  /** Keywords that only restate, for tools, a check the service reports in its own words (a format or a rule). */
  'x-restates'?: string[];
  enum?: unknown[];
  pattern?: string;
  /** Sent, never shown back (a secret). */
  writeOnly?: boolean;
  /** A document of another media type carried as a string (a bank statement's CSV), read by the service, not stored as text. */
  contentMediaType?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
  items?: Schema;
  additionalProperties?: boolean | Schema;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  style?: string;
  schema: Schema;
  example?: unknown;
}

export interface SpecOperation {
  operationId: string;
  method: HttpMethod;
  template: string;
  pathParams: string[];
  query: Parameter[];
  headers: Parameter[];
  /** The JSON request body, with the spec's own example as a valid instance. */
  body?: { schema: Schema; example: Record<string, unknown> };
  /** The schema of `data` in the 200 envelope. */
  data: Schema;
  statuses: string[];
  /** The example body of each declared response, by status. */
  examples: Record<string, unknown>;
}

export interface SpecPath {
  template: string;
  pathParams: string[];
  operations: Partial<Record<HttpMethod, SpecOperation>>;
}

export interface Spec {
  paths: SpecPath[];
  operations: SpecOperation[];
}

interface RawOperation {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema: Schema; example?: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema: Schema; example?: unknown }> }>;
}

const loaded = new Map<string, Promise<Spec>>();

/**
 * The operations an API key may call; with `{ members: true }`, also those only a signed-in member
 * may call (the session and team operations), sign-in itself excepted.
 */
export function loadSpec(options: { members?: boolean } = {}): Promise<Spec> {
  const which = options.members ? 'members' : 'keys';
  if (!loaded.has(which)) loaded.set(which, readSpec(which === 'members'));
  return loaded.get(which)!;
}

async function readSpec(members: boolean): Promise<Spec> {
  const document = (await dereferencedSpec()) as { paths: Record<string, Record<string, unknown> & { parameters?: Parameter[] }> };
  const paths: SpecPath[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const pathParams = [...template.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!);
    const specPath: SpecPath = { template, pathParams, operations: {} };
    for (const method of HTTP_METHODS) {
      const raw = item[method.toLowerCase()] as RawOperation | undefined;
      // A member's own operations (sign-in, session, team) take no API key: test/api/auth.test.ts and team.test.ts cover them.
      const accepts = (scheme: string) => !raw?.security || raw.security.some((entry) => scheme in entry);
      if (!raw || !(accepts('bearerAuth') || (members && accepts('sessionCookie')))) continue;
      const parameters = [...(item.parameters ?? []), ...(raw.parameters ?? [])];
      const json = raw.requestBody?.content?.['application/json'];
      if (json && !json.example) throw new Error(`${method} ${template}: the request body has no example to build valid requests from`);
      const envelope = raw.responses['200']?.content?.['application/json']?.schema;
      specPath.operations[method] = {
        operationId: raw.operationId,
        method,
        template,
        pathParams,
        query: parameters.filter((p) => p.in === 'query'),
        headers: parameters.filter((p) => p.in === 'header'),
        body: json ? { schema: json.schema, example: json.example! } : undefined,
        data: envelope?.properties?.data ?? {},
        statuses: Object.keys(raw.responses),
        examples: Object.fromEntries(Object.entries(raw.responses).map(([status, response]) => [status, response.content?.['application/json']?.example])),
      };
    }
    if (Object.keys(specPath.operations).length > 0) paths.push(specPath);
  }
  return { paths, operations: paths.flatMap((p) => Object.values(p.operations)) };
}

/** `/payment-links/{payment_link_id}` with its parameters filled in, under /api. */
export function apiPath(template: string, values: Record<string, string>): string {
  return `/api${template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(value);
  })}`;
}

/** A query string; an object value `{filter: {limit: 5}}` is written as `filter[limit]=5`, the name the spec gives that parameter. */
export function queryString(values: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) parts.push(`${encodeURIComponent(`${name}[${key}]`)}=${encodeURIComponent(String(inner))}`);
    } else {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
    }
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface Filter {
  /** As sent and declared: `filter[reference]`. */
  name: string;
  /** The filter's own name: `reference`. */
  member: string;
  /** As a 422 names it: `filter.reference`. */
  errorKey: string;
  schema: Schema;
}

/** The operation's `filter[...]` query parameters. */
export function filtersOf(operation: SpecOperation): Filter[] {
  return operation.query.flatMap((parameter) => {
    const match = /^filter\[([^\][]+)\]$/.exec(parameter.name);
    return match ? [{ name: parameter.name, member: match[1]!, errorKey: `filter.${match[1]!}`, schema: parameter.schema }] : [];
  });
}

/** The properties of an object schema, through allOf. */
export function propertiesOf(schema: Schema): Record<string, Schema> {
  return Object.assign({}, schema.properties, ...(schema.allOf ?? []).map(propertiesOf));
}

export function types(schema: Schema): string[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

/**
 * The resource an operation works on: the first segment of its path, or, for a collection under a
 * record (`/payments/{payment_id}/refunds`, `/tokenizations/{token_id}/charges`), that collection.
 */
export function resourceOf(template: string): string {
  const segments = template.split('/').filter(Boolean);
  const nested = segments.length === 3 && segments[1]!.startsWith('{') && !['total-collection', 'top-collection'].includes(segments[2]!);
  return nested ? segments[2]! : segments[0]!;
}

/** Free text: a string with no format of its own beyond the storable-text rule every text field has. */
export function isFreeText(schema: Schema): boolean {
  return (!schema.format || schema.format === 'storable-text') && !schema.contentMediaType;
}

/** A maxLength the service enforces and reports as such (not one that restates a format). */
export function hasOwnMaxLength(schema: Schema): schema is Schema & { maxLength: number } {
  return typeof schema.maxLength === 'number' && !(schema['x-restates'] ?? []).includes('maxLength');
}
