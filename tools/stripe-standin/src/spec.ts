// Stripe's own OpenAPI description (the vendored subset) as the judge of every request the stand-in
// takes and every object it gives: requests are coerced from form strings by their schemas, then
// validated with Ajv; answers and event payloads are checked against the objects' schemas.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { EVENT_TYPE_SCHEMA, STRIPE_OBJECT_SCHEMAS, type StripeOperation } from './operations.js';

export const SUBSET_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'openapi', 'spec3.subset.json');

type Schema = { [key: string]: unknown };

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content: Record<string, { schema: Schema }> }>;
}

export interface SubsetDocument {
  info: { 'x-subset': { paths: string[]; sha256: string; captured: string } };
  paths: Record<string, Partial<Record<StripeOperation['method'], Operation>>>;
  components: { schemas: Record<string, Schema> };
}

/** What is wrong with a request, as Stripe says it: a message, and the parameter in bracket notation. */
export interface ParamProblem {
  message: string;
  param?: string;
}

const DOCUMENT_ID = 'stripe';
const COMPONENT_REF = '#/components/schemas/';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * OpenAPI 3.0 to the JSON Schema Ajv reads: `nullable` becomes an alternative of null (Ajv's own
 * `nullable` needs a `type` beside it, which Stripe's `anyOf`s lack), $refs point into the one
 * document registered with Ajv, and descriptions and x- extensions are dropped.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isPlainObject(node)) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    // A string `description` is an annotation; an object one is a property named description.
    if ((key === 'description' && typeof value === 'string') || key === 'nullable' || key.startsWith('x-')) continue;
    out[key] = key === '$ref' ? `${DOCUMENT_ID}${value as string}` : toJsonSchema(value);
  }
  return node.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

function formatsIn(node: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => formatsIn(item, found));
  else if (isPlainObject(node)) {
    if (typeof node.format === 'string') found.add(node.format);
    Object.values(node).forEach((value) => formatsIn(value, found));
  }
  return found;
}

/** ['line_items', '0', 'price_data'] -> line_items[0][price_data] */
function bracketed(segments: string[]): string {
  const [first, ...rest] = segments;
  return (first ?? '') + rest.map((segment) => `[${segment}]`).join('');
}

function segmentsOf(instancePath: string): string[] {
  return instancePath === '' ? [] : instancePath.slice(1).split('/');
}

function describe(error: ErrorObject): ParamProblem {
  const at = segmentsOf(error.instancePath);
  const param = bracketed(at);
  switch (error.keyword) {
    case 'additionalProperties': {
      const unknown = bracketed([...at, (error.params as { additionalProperty: string }).additionalProperty]);
      return { message: `Received unknown parameter: ${unknown}`, param: unknown };
    }
    case 'required': {
      const missing = bracketed([...at, (error.params as { missingProperty: string }).missingProperty]);
      return { message: `Missing required param: ${missing}.`, param: missing };
    }
    case 'type': {
      const type = (error.params as { type: string }).type;
      const shown = typeof error.data === 'string' ? `: ${error.data}` : '';
      return { message: `Invalid ${type}${shown}`, param };
    }
    case 'enum':
      return { message: `Invalid ${param}: must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`, param };
    default:
      return { message: `Invalid ${param}: ${error.message ?? error.keyword}`, param };
  }
}

/** Ajv's errors as Stripe words them; an `anyOf` says once what each of its alternatives wanted. */
function problemsOf(errors: ErrorObject[] | null | undefined): ParamProblem[] {
  if (!errors) return [];
  const alternatives = errors.filter((error) => error.keyword === 'anyOf');
  const inAlternative = (error: ErrorObject) => alternatives.some((anyOf) => error.schemaPath.startsWith(`${anyOf.schemaPath}/`));
  const problems = errors.filter((error) => error.keyword !== 'anyOf' && !inAlternative(error)).map(describe);
  for (const anyOf of alternatives) {
    if (alternatives.some((outer) => outer !== anyOf && anyOf.schemaPath.startsWith(`${outer.schemaPath}/`))) continue;
    const param = bracketed(segmentsOf(anyOf.instancePath));
    const wanted = errors.filter((error) => error.schemaPath.startsWith(`${anyOf.schemaPath}/`)).map((error) => describe(error).message);
    problems.push({ message: `Invalid ${param}: ${wanted.join('; or ')}`, param });
  }
  return problems;
}

function responseProblems(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? error.keyword}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
  );
}

interface CompiledOperation {
  path: ValidateFunction;
  query: ValidateFunction;
  body: ValidateFunction | undefined;
  bodySchema: Schema | undefined;
  querySchema: Schema;
  pathSchema: Schema;
  response: ValidateFunction;
  error: ValidateFunction;
}

export class StripeSpec {
  readonly document: SubsetDocument;
  private readonly ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
  private readonly components: Record<string, Schema>;
  private readonly operations = new Map<string, CompiledOperation>();
  private readonly objectValidators = new Map<string, ValidateFunction>();

  constructor(document: SubsetDocument) {
    this.document = document;
    this.components = toJsonSchema(document.components.schemas) as Record<string, Schema>;
    // Stripe's formats (unix-time, decimal) name no rule beyond the type beside them.
    for (const format of formatsIn(document)) this.ajv.addFormat(format, true);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: this.components } });
    for (const [kind, name] of Object.entries(STRIPE_OBJECT_SCHEMAS)) {
      this.objectValidators.set(kind, this.ajv.compile({ $ref: `${DOCUMENT_ID}${COMPONENT_REF}${name}` }));
    }
  }

  static load(path = SUBSET_PATH): StripeSpec {
    return new StripeSpec(JSON.parse(readFileSync(path, 'utf8')) as SubsetDocument);
  }

  /** The components an object of this kind may have expanded (its `x-expandableFields`). */
  expandableFields(object: string): readonly string[] {
    const name = STRIPE_OBJECT_SCHEMAS[object as keyof typeof STRIPE_OBJECT_SCHEMAS];
    return (name ? (this.document.components.schemas[name]?.['x-expandableFields'] as string[] | undefined) : undefined) ?? [];
  }

  private compiled({ method, path }: StripeOperation): CompiledOperation {
    const key = `${method} ${path}`;
    const existing = this.operations.get(key);
    if (existing) return existing;
    const operation = this.document.paths[path]?.[method];
    if (!operation) throw new Error(`${key} is not in the subset`);
    const parametersIn = (where: Parameter['in']): Schema => {
      const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === where);
      return {
        type: 'object',
        properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, toJsonSchema(parameter.schema)])),
        required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        additionalProperties: false,
      };
    };
    const bodySchema =
      method === 'post' ? (toJsonSchema(operation.requestBody?.content['application/x-www-form-urlencoded']?.schema ?? {}) as Schema) : undefined;
    const answer = (status: string) => toJsonSchema(operation.responses[status]!.content['application/json']!.schema) as Schema;
    const pathSchema = parametersIn('path');
    const querySchema = parametersIn('query');
    const compiled: CompiledOperation = {
      path: this.ajv.compile(pathSchema),
      query: this.ajv.compile(querySchema),
      body: bodySchema && this.ajv.compile(bodySchema),
      bodySchema,
      pathSchema,
      querySchema,
      response: this.ajv.compile(answer('200')),
      error: this.ajv.compile(answer('default')),
    };
    this.operations.set(key, compiled);
    return compiled;
  }

  private resolve(schema: Schema): Schema {
    let current = schema;
    while (typeof current.$ref === 'string') current = this.components[current.$ref.slice(`${DOCUMENT_ID}${COMPONENT_REF}`.length)] ?? {};
    return current;
  }

  /** A form value read as its schema says: "1000" is 1000 where an integer is wanted, "true" is true. */
  coerce(schema: Schema, value: unknown): unknown {
    const resolved = this.resolve(schema);
    if (Array.isArray(resolved.anyOf)) {
      for (const alternative of resolved.anyOf as Schema[]) {
        const coerced = this.coerce(alternative, value);
        if (coerced !== value) return coerced;
      }
      return value;
    }
    if (typeof value === 'string') {
      if (resolved.type === 'integer' && /^-?\d{1,16}$/.test(value)) return Number(value);
      if (resolved.type === 'number' && /^-?\d{1,16}(?:\.\d{1,16})?$/.test(value)) return Number(value);
      if (resolved.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
      return value;
    }
    if (Array.isArray(value))
      return resolved.type === 'array' && isPlainObject(resolved.items) ? value.map((item) => this.coerce(resolved.items as Schema, item)) : value;
    if (isPlainObject(value) && resolved.type === 'object') {
      const properties = (resolved.properties ?? {}) as Record<string, Schema>;
      const others = isPlainObject(resolved.additionalProperties) ? (resolved.additionalProperties as Schema) : undefined;
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => {
          const itemSchema = Object.hasOwn(properties, key) ? properties[key] : others;
          return [key, itemSchema ? this.coerce(itemSchema, item) : item];
        }),
      );
    }
    return value;
  }

  /**
   * A request's path parameters, query and form body, coerced and checked. The params handed on are
   * the query and body together, as Stripe reads them.
   */
  checkRequest(
    operation: StripeOperation,
    request: { path: Record<string, string>; query: Record<string, unknown>; body: Record<string, unknown> },
  ): { params: Record<string, unknown>; problems: ParamProblem[] } {
    const compiled = this.compiled(operation);
    const query = this.coerce(compiled.querySchema, request.query) as Record<string, unknown>;
    const problems: ParamProblem[] = [];
    if (!compiled.path(request.path)) problems.push(...problemsOf(compiled.path.errors));
    if (!compiled.query(query)) problems.push(...problemsOf(compiled.query.errors));
    let body: Record<string, unknown> = {};
    if (compiled.body && compiled.bodySchema) {
      body = this.coerce(compiled.bodySchema, request.body) as Record<string, unknown>;
      if (!compiled.body(body)) problems.push(...problemsOf(compiled.body.errors));
    } else if (Object.keys(request.body).length > 0) {
      problems.push({ message: `A ${operation.method.toUpperCase()} request takes no body`, param: Object.keys(request.body)[0] });
    }
    // Stripe names an unknown parameter before anything else wrong with the request.
    const unknownFirst = [...problems].sort((a, b) => Number(b.message.startsWith('Received unknown')) - Number(a.message.startsWith('Received unknown')));
    return { params: { ...query, ...body }, problems: unknownFirst };
  }

  /** What is wrong with an answer the stand-in gives: its 200 object, or its error. */
  checkResponse(operation: StripeOperation, status: number, body: unknown): string[] {
    const compiled = this.compiled(operation);
    const validate = status === 200 ? compiled.response : compiled.error;
    return validate(body) ? [] : responseProblems(validate.errors);
  }

  /** What is wrong with an object of a kind the stand-in makes (by its `object` field). */
  checkObject(object: unknown): string[] {
    const kind = isPlainObject(object) ? object.object : undefined;
    const validate = typeof kind === 'string' ? this.objectValidators.get(kind) : undefined;
    if (!validate) return [`an object of unknown kind ${String(kind)}`];
    return validate(object) ? [] : responseProblems(validate.errors).map((problem) => `${kind}${problem}`);
  }

  /** What is wrong with an event: its own fields, its type, and the object it carries. */
  checkEvent(event: { type: string; data: { object: unknown } }): string[] {
    const types = this.document.components.schemas[EVENT_TYPE_SCHEMA]?.enum as string[];
    return [
      ...this.checkObject(event),
      ...(types.includes(event.type) ? [] : [`event type ${event.type} is not one Stripe sends`]),
      ...this.checkObject(event.data.object).map((problem) => `data.object: ${problem}`),
    ];
  }
}
