// Response bodies written by functions compiled from the contract's response schemas
// (fast-json-stringify, as fastify does): a serializer that knows an answer's properties writes them
// without walking the object as JSON.stringify does. Only where a schema describes the answer in
// the words a serializer needs (objects, arrays, scalars, a oneOf of one type and null) is one
// compiled; any other schema is answered through JSON.stringify. An allOf is one of those others:
// the serializer would write the parts' properties part after part, which reorders the members of a
// list's Laravel paginator. The schema is first made as lenient as JSON.stringify: every scalar may
// be any scalar and is written as the scalar it is (an integer never truncated, a number never made
// a string), a property left out is left out (not refused), an object keeps properties its schema
// does not name, and an answer the serializer refuses anyway (an object where a scalar is declared)
// is written by JSON.stringify. So a serializer
// writes what JSON.stringify writes for an answer whose members come in the schema's order, which
// test/unit/serializers.test.ts checks on every response the contract declares.
import { createRequire } from 'node:module';

type FastJson = typeof import('fast-json-stringify').default;

// Loaded when the first serializer is compiled (an operation's first answer, or the warm-up after
// listening), not while the process starts: its module graph is a large part of the start-up's imports.
let fastJson: FastJson | undefined;
const loadFastJson = (): FastJson => (fastJson ??= createRequire(import.meta.url)('fast-json-stringify') as FastJson);

type Schema = Record<string, unknown>;

/** Keywords that only say what a value may be, which a serializer has no use for. */
const VALIDATION_ONLY = new Set([
  'description',
  'title',
  'example',
  'examples',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'enum',
  'const',
  'default',
  'readOnly',
  'writeOnly',
  'deprecated',
  'multipleOf',
  'externalDocs',
  'xml',
  'discriminator',
]);

const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

class NotSerializable extends Error {}

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type) && type.every((item) => typeof item === 'string')) return type as string[];
  throw new NotSerializable();
}

/** `oneOf: [{...one type...}, {type: null}]` (the contract's nullable formats), as that type or null. */
function nullableOneOf(schema: Schema): Schema | undefined {
  const choices = schema.oneOf;
  if (!Array.isArray(choices) || choices.length !== 2) return undefined;
  const nulls = choices.filter((choice: Schema) => choice.type === 'null' && Object.keys(choice).every((key) => key === 'type' || VALIDATION_ONLY.has(key)));
  const other = choices.find((choice: Schema) => !nulls.includes(choice)) as Schema | undefined;
  if (nulls.length !== 1 || !other) return undefined;
  const rest = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'oneOf'));
  return { ...rest, ...other, type: [...typesOf(other).filter((type) => type !== 'null'), 'null'] };
}

/** The serializer's schema for `schema`, as lenient as JSON.stringify; throws NotSerializable where it cannot be. */
function lenient(schema: Schema): Schema {
  if (typeof schema !== 'object' || schema === null) throw new NotSerializable();
  const nullable = nullableOneOf(schema);
  if (nullable) return lenient(nullable);
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALIDATION_ONLY.has(key) || key.startsWith('x-')) continue;
    switch (key) {
      case 'type': {
        const types = typesOf(schema).map((type) => (type === 'integer' ? 'number' : type));
        const composite = types.filter((type) => type === 'object' || type === 'array');
        if (composite.length === 1 && types.every((type) => type === composite[0] || type === 'null')) out.type = types.length === 1 ? composite[0] : types;
        // Whatever scalar an answer holds is written as the scalar it is, never turned into the declared one.
        else if (types.every((type) => SCALARS.has(type))) out.type = ['string', 'number', 'boolean', 'null'];
        else throw new NotSerializable();
        break;
      }
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([name, property]) => [name, lenient(property)]));
        break;
      case 'required':
        // A property missing from an answer is left out, as JSON.stringify leaves it out, not refused.
        break;
      case 'items':
        if (Array.isArray(value)) throw new NotSerializable();
        out.items = lenient(value as Schema);
        break;
      case 'additionalProperties':
        // false or absent: JSON.stringify writes every property, so the serializer does too.
        if (typeof value === 'object' && value !== null) out.additionalProperties = lenient(value as Schema);
        break;
      default:
        throw new NotSerializable();
    }
  }
  // No type (a `const`, say): written as JSON.stringify writes it.
  if (out.type === undefined) return {};
  const composite = [out.type].flat();
  if (composite.includes('object')) out.additionalProperties ??= true;
  if (composite.includes('array') && out.items === undefined) throw new NotSerializable();
  return out;
}

/** Writes a body as JSON, as JSON.stringify would. */
export type Serializer = (body: unknown) => string;

/** A serializer compiled from a response's JSON schema, or undefined where the schema is not one a serializer can follow. */
export function compileSerializer(schema: unknown): Serializer | undefined {
  if (schema === undefined) return undefined;
  let shaped: Schema;
  try {
    shaped = lenient(schema as Schema);
  } catch (error) {
    if (error instanceof NotSerializable) return undefined;
    throw error;
  }
  const serialize = loadFastJson()(shaped as unknown as Parameters<FastJson>[0]) as Serializer;
  return (body) => {
    try {
      return serialize(body);
    } catch {
      // An object where the schema has a scalar: JSON.stringify writes it as it is.
      return JSON.stringify(body);
    }
  };
}
