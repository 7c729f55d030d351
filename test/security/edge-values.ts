// The edge suite's requests (edges.test.ts), derived from openapi.yaml so that a new operation,
// parameter or field is covered without anyone adding it: every operation (the public ones too), the
// boundary values of each parameter and body field read from its schema (years 0001 and 9999, the
// extremes of each integer and its schema's bounds and one past them, empty, very long and non-ASCII
// text, deep nesting), every field at its low or high extreme at once, and every combination of the
// enum query parameters with the extreme date ranges.
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from '../../server/http/body.js';
import { dereferencedSpec } from '../support/contract.js';
import { apiPath, HTTP_METHODS, propertiesOf, types, type HttpMethod, type Parameter, type Schema } from './spec.js';

export interface EdgeOperation {
  operationId: string;
  method: HttpMethod;
  template: string;
  pathParams: string[];
  query: Parameter[];
  headers: Parameter[];
  body?: { schema: Schema; example: Record<string, unknown> };
}

interface RawOperation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema: Schema; example?: Record<string, unknown> }> };
}

/** Every operation of openapi.yaml, whatever its security: sign-in and the account links included. */
export async function edgeOperations(): Promise<EdgeOperation[]> {
  const document = (await dereferencedSpec()) as { paths: Record<string, Record<string, unknown> & { parameters?: Parameter[] }> };
  const operations: EdgeOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const raw = item[method.toLowerCase()] as RawOperation | undefined;
      if (!raw) continue;
      const parameters = [...(item.parameters ?? []), ...(raw.parameters ?? [])];
      const json = raw.requestBody?.content?.['application/json'];
      if (json && !json.example) throw new Error(`${method} ${template}: the request body has no example to build requests from`);
      operations.push({
        operationId: raw.operationId,
        method,
        template,
        pathParams: [...template.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!),
        query: parameters.filter((p) => p.in === 'query'),
        headers: parameters.filter((p) => p.in === 'header'),
        body: json ? { schema: json.schema, example: json.example! } : undefined,
      });
    }
  }
  return operations;
}

/** JSON text spliced into a body where this value stands: nesting deeper than a value can be built. */
class RawJson {
  constructor(readonly text: string) {}
}

export interface Edge {
  label: string;
  /** For a body field, the JSON value (or raw JSON text); for a parameter or header, its text. */
  value: unknown;
}

const nested = (depth: number) => new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const NON_ASCII = 'Ünïcødé 中文 😀 \u202e e\u0301 \u00a0';
/** Text far past every maxLength the contract sets, and still well inside the 1 MiB body. */
const LONG = 'x'.repeat(100_000);
/** A query string is refused past 4096 bytes (414): long, and within it. */
const LONG_QUERY = 'x'.repeat(3_000);

/**
 * The first and last days a range can name (alone, as a month, as the longest report by day, and all
 * of them), and a year 0000 that ISO 8601 writes and PostgreSQL has not.
 */
export const EXTREME_RANGES = [
  '0001-01-01,0001-01-01',
  '9999-12-31,9999-12-31',
  '9999-12-01,9999-12-31',
  '9998-11-27,9999-12-31',
  '0001-01-01,9999-12-31',
  '0000-01-01,0000-12-31',
];

const FORMAT_EDGES: Record<string, string[]> = {
  date: ['0001-01-01', '9999-12-31', '0000-01-01', '10000-01-01'],
  'date-time': ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999Z', '0000-01-01T00:00:00Z', '10000-01-01T00:00:00Z', '9999-12-31T23:59:60+14:00'],
  // And the year 10000 that once came after 9999-12-31.
  'date-range': [...EXTREME_RANGES, '9999-12-31,10000-01-01'],
  email: [`${'x'.repeat(250)}@example.com`, 'ü@例え.jp'],
  'http-url': [`https://example.com/${'x'.repeat(3_000)}`, 'javascript:alert(1)', 'http://[::1]:0/'],
};

function numberEdges(schema: Schema, text: boolean): Edge[] {
  const values: [string, number | string][] = [
    ['zero', 0],
    ['minus one', -1],
    ['2^31 - 1', 2 ** 31 - 1],
    ['2^31', 2 ** 31],
    ['the largest safe integer', Number.MAX_SAFE_INTEGER],
    ['the smallest safe integer', -Number.MAX_SAFE_INTEGER],
    ['2^63', '9223372036854775808'],
    ['1e308', '1e308'],
    ['-1e308', '-1e308'],
    ['a fraction', 1.5],
  ];
  if (schema.minimum !== undefined) values.push(['the minimum', schema.minimum], ['one below the minimum', schema.minimum - 1]);
  if (schema.maximum !== undefined) values.push(['the maximum', schema.maximum], ['one past the maximum', schema.maximum + 1]);
  return values.map(([label, value]) => ({ label, value: text ? String(value) : typeof value === 'string' ? new RawJson(value) : value }));
}

function stringEdges(schema: Schema, text: boolean): Edge[] {
  const edges: Edge[] = [
    { label: 'empty', value: '' },
    { label: 'blank', value: '   ' },
    { label: 'non-ASCII', value: NON_ASCII },
    { label: 'very long', value: text ? LONG_QUERY : LONG },
  ];
  if (schema.maxLength !== undefined) {
    edges.push({ label: 'at maxLength', value: 'x'.repeat(schema.maxLength) }, { label: 'one past maxLength', value: 'x'.repeat(schema.maxLength + 1) });
    edges.push({ label: 'astral characters to maxLength', value: '😀'.repeat(schema.maxLength) });
  }
  if (schema.minLength !== undefined && schema.minLength > 1) edges.push({ label: 'one short of minLength', value: 'x'.repeat(schema.minLength - 1) });
  for (const value of schema.enum ?? []) edges.push({ label: `enum ${String(value)}`, value });
  if (schema.enum) edges.push({ label: 'not one of the enum', value: 'not-one-of-them' });
  for (const value of FORMAT_EDGES[schema.format ?? ''] ?? []) edges.push({ label: `${schema.format} ${value.slice(0, 40)}`, value });
  // A header cannot carry them; a query string can (%00).
  edges.push({ label: 'NUL and control characters', value: 'a\u0000b\u0007\u001b[31m' });
  return edges;
}

/** The schema's single type, through oneOf (the first) and allOf. */
function typeOf(schema: Schema): string {
  return types(schema)[0] ?? (schema.oneOf?.[0] ? typeOf(schema.oneOf[0]) : schema.allOf?.[0] ? typeOf(schema.allOf[0]) : 'string');
}

/** The boundary values of one body field. */
export function bodyEdges(schema: Schema): Edge[] {
  const type = typeOf(schema);
  // Nested past the body's limits, a field is refused with the whole body: that is once an operation (bodyShapeRequests).
  const edges: Edge[] = [
    { label: 'null', value: null },
    // The body itself is the first level.
    { label: 'nested as deep as a body may go', value: nested(MAX_BODY_DEPTH - 1) },
  ];
  if (type === 'integer' || type === 'number') return [...edges, ...numberEdges(schema, false), { label: 'a numeric string', value: '1' }];
  if (type === 'boolean') return [...edges, { label: 'true', value: true }, { label: 'false', value: false }, { label: 'the string true', value: 'true' }];
  if (type === 'array') {
    const items = schema.items ? bodyEdges(schema.items).filter((edge) => !(edge.value instanceof RawJson)) : [];
    const many = (length: number) => Array.from({ length }, () => items.at(-1)?.value ?? 'x');
    return [
      ...edges,
      { label: 'empty list', value: [] },
      // Within the body's limit on values whatever else the example holds, and past it.
      { label: 'many items', value: many(MAX_BODY_VALUES - 50) },
      { label: 'more items than a body may hold', value: many(MAX_BODY_VALUES + 1) },
      ...items.map((edge) => ({ label: `one item: ${edge.label}`, value: [edge.value] })),
    ];
  }
  if (type === 'object') return [...edges, { label: 'empty object', value: {} }, { label: 'an unknown member', value: { unknown: 'x' } }];
  return [...edges, ...stringEdges(schema, false), { label: 'a list', value: ['x'] }];
}

/** The boundary values of a path, query or header parameter, as text. */
export function parameterEdges(parameter: Parameter): Edge[] {
  if (parameter.in === 'path') {
    return ['', 'x'.repeat(2_000), NON_ASCII, '0'.repeat(24), '%00'].map((value) => ({ label: JSON.stringify(value.slice(0, 20)), value }));
  }
  const type = typeOf(parameter.schema);
  if (parameter.in === 'header') {
    // A header's value is bytes: Latin-1 is what non-ASCII text can be there.
    const latin1 = (text: string) => [...text].map((character) => (character.codePointAt(0)! > 0xff ? 'ÿ' : character)).join('');
    return stringEdges(parameter.schema, true)
      .filter((edge) => !edge.label.startsWith('NUL'))
      .map((edge) => ({ label: edge.label, value: latin1(String(edge.value)) }));
  }
  if (type === 'integer' || type === 'number')
    return [...numberEdges(parameter.schema, true), { label: 'not a number', value: 'abc' }, { label: 'empty', value: '' }];
  if (type === 'boolean') return ['true', 'false', '1', 'yes', ''].map((value) => ({ label: value || 'empty', value }));
  return stringEdges(parameter.schema, true);
}

const LOW = ['one below the minimum', 'the smallest safe integer', 'date 0001', 'date-time 0001', 'date-range 0001-01-01,0001', 'enum ', 'empty', 'false'];
const HIGH = [
  'one past the maximum',
  '2^63',
  'date 9999',
  'date-time 9999',
  'date-range 9999-12-31,9999',
  'one past maxLength',
  'very long',
  'many items',
  'an unknown member',
  'true',
];

/**
 * One field at its low and high extremes, for the callers that see every operation at its edges at
 * once: an enum at its first and last value, never nested past the body's limit (which would refuse
 * the whole body before any field is looked at).
 */
export function extremesOf(edges: Edge[]): { low: Edge; high: Edge } {
  const enums = edges.filter((edge) => edge.label.startsWith('enum '));
  const find = (labels: string[]) => labels.map((label) => edges.find((edge) => edge.label.startsWith(label))).find(Boolean) ?? edges[0]!;
  return enums.length > 0 ? { low: enums[0]!, high: enums.at(-1)! } : { low: find(LOW), high: find(HIGH) };
}

export interface EdgeRequest {
  operation: EdgeOperation;
  /** What is at its edge, for the failure list. */
  label: string;
  pathAndQuery: string;
  headers: Record<string, string>;
  /** JSON text. */
  body?: string;
}

export interface Overrides {
  path?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
}

/** The operation with its valid example, real ids and what `overrides` changes, as one request. */
export function requestOf(operation: EdgeOperation, ids: Record<string, string>, label: string, overrides: Overrides = {}): EdgeRequest {
  const path = apiPath(operation.template, { ...ids, ...overrides.path });
  const query = new URLSearchParams(overrides.query).toString();
  let body: string | undefined;
  if (operation.body) {
    const raws: string[] = [];
    const value = { ...operation.body.example, ...overrides.body };
    body = JSON.stringify(value, (_key, item: unknown) => (item instanceof RawJson ? `\u0000raw${raws.push(item.text) - 1}\u0000` : item));
    body = body.replace(/"\\u0000raw(\d+)\\u0000"/g, (_, index: string) => raws[Number(index)]!);
  }
  return { operation, label, pathAndQuery: `${path}${query ? `?${query}` : ''}`, headers: overrides.headers ?? {}, body };
}

/** Each parameter and body field of the operation at each of its edges, the rest valid: the one caller that sees them all. */
export function fieldEdgeRequests(operation: EdgeOperation, ids: Record<string, string>): EdgeRequest[] {
  const requests: EdgeRequest[] = [];
  for (const name of operation.pathParams)
    for (const edge of parameterEdges({ name, in: 'path', schema: { type: 'string' } }))
      requests.push(requestOf(operation, ids, `{${name}} ${edge.label}`, { path: { [name]: String(edge.value) } }));
  for (const parameter of [...operation.query, ...operation.headers])
    for (const edge of parameterEdges(parameter)) {
      const where = parameter.in === 'query' ? 'query' : 'headers';
      requests.push(requestOf(operation, ids, `${parameter.name} ${edge.label}`, { [where]: { [parameter.name]: String(edge.value) } }));
    }
  for (const [field, schema] of Object.entries(operation.body ? propertiesOf(operation.body.schema) : {}))
    for (const edge of bodyEdges(schema)) requests.push(requestOf(operation, ids, `body.${field} ${edge.label}`, { body: { [field]: edge.value } }));
  if (operation.body) {
    // The shapes a body may not have, refused before any field is looked at: in a list where the body has one.
    const fields = Object.entries(propertiesOf(operation.body.schema));
    const [list] = fields.find(([, schema]) => typeOf(schema) === 'array') ?? fields[0]!;
    const shapes: [string, Record<string, unknown>][] = [
      ['nested one past the body depth limit', { [list]: nested(MAX_BODY_DEPTH) }],
      ['nested 100,000 deep', { [list]: nested(100_000) }],
      ['holding one value more than a body may', { [list]: Array.from({ length: MAX_BODY_VALUES }, () => 0) }],
      ['holding 200,000 values', { [list]: new RawJson(`[${'0,'.repeat(199_999)}0]`) }],
      ['with 50,000 members no operation has', Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`unknown_${i}`, 0]))],
    ];
    for (const [label, body] of shapes) requests.push(requestOf(operation, ids, `body.${list} ${label}`, { body }));
  }
  return requests;
}

/** The operation as its example, then with every field at its low extreme, then at its high one: what every caller sends. */
export function extremeRequests(operation: EdgeOperation, ids: Record<string, string>): EdgeRequest[] {
  const sides = (['low', 'high'] as const).map((side) => {
    const overrides: Required<Pick<Overrides, 'query' | 'body'>> = { query: {}, body: {} };
    for (const parameter of operation.query) overrides.query[parameter.name] = String(extremesOf(parameterEdges(parameter))[side].value);
    for (const [field, schema] of Object.entries(operation.body ? propertiesOf(operation.body.schema) : {}))
      overrides.body[field] = extremesOf(bodyEdges(schema))[side].value;
    return requestOf(operation, ids, `every field at its ${side} extreme`, overrides);
  });
  return [requestOf(operation, ids, 'its example'), ...sides];
}

/** Every combination of the operation's enum query parameters (each value, and absent) with each extreme date range. */
export function enumDateRequests(operation: EdgeOperation, ids: Record<string, string>): EdgeRequest[] {
  const ranges = operation.query.filter((parameter) => parameter.schema.format === 'date-range');
  if (ranges.length === 0) return [];
  let combinations: Record<string, string>[] = [{}];
  for (const parameter of operation.query.filter((p) => p.schema.enum))
    combinations = combinations.flatMap((combination) => [
      combination,
      ...parameter.schema.enum!.map((value) => ({ ...combination, [parameter.name]: String(value) })),
    ]);
  return ranges.flatMap((range) =>
    EXTREME_RANGES.flatMap((dates) =>
      combinations.map((combination) => {
        const query = { ...combination, [range.name]: dates };
        return requestOf(operation, ids, new URLSearchParams(query).toString(), { query });
      }),
    ),
  );
}
