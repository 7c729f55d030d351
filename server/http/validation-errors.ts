// Turns Ajv errors from openapi-backend into Laravel 8's English validation messages, keyed the way
// Laravel keys them: body fields by name, query parameters by name with nesting as dots
// (`filter[created_at_between]` is `filter.created_at_between`), underscores shown as spaces in the sentence.
import type { ErrorObject } from 'ajv';
import type { FieldErrors } from '../domain/rules.js';
import { SEARCH_MIN_LENGTH } from '../domain/search-terms.js';

export const VALIDATION_MESSAGE = 'The given data was invalid.';

export function attributeName(field: string): string {
  return field.replace(/_/g, ' ');
}

interface SchemaLike {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, unknown>;
}

function typesOf(schema: unknown): string[] {
  const type = (schema as SchemaLike | undefined)?.type;
  return type === undefined ? [] : Array.isArray(type) ? type : [type];
}

/** The Laravel rule that a JSON Schema type stands for, most specific first. */
function typeMessage(attribute: string, types: string[]): string {
  if (types.includes('integer')) return `The ${attribute} must be an integer.`;
  if (types.includes('number')) return `The ${attribute} must be a number.`;
  if (types.includes('boolean')) return `The ${attribute} field must be true or false.`;
  if (types.includes('string')) return `The ${attribute} must be a string.`;
  return `The ${attribute} must be an array.`;
}

function formatMessage(attribute: string, format: string): string {
  switch (format) {
    case 'email':
      return `The ${attribute} must be a valid email address.`;
    case 'iso4217':
      return `The ${attribute} must be a valid ISO 4217 currency code.`;
    case 'date-time':
      return `The ${attribute} is not a valid date.`;
    case 'byte':
      return `The ${attribute} must be a valid base64 string.`;
    case 'card-last4':
      // Laravel's `digits:4`: one message whatever is wrong, a length or a letter.
      return `The ${attribute} must be 4 digits.`;
    case 'search-term':
      // Laravel's `min:3`; a shorter term is taken only as an amount ("15").
      return `The ${attribute} must be at least ${SEARCH_MIN_LENGTH} characters.`;
    default:
      return `The ${attribute} format is invalid.`;
  }
}

/** `filter[status]` as Laravel names it in errors: `filter.status`. */
function laravelQueryKey(key: string): string {
  return key.replace(/\[([^\][]*)\]/g, '.$1');
}

/** Where in the request an error sits, as a Laravel field key; null for the whole body. */
function fieldOf(error: ErrorObject): string | null {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [location, ...rest] = segments;
  if (error.keyword === 'required') rest.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') rest.push(String(error.params.additionalProperty));
  if (location === 'header') return rest[0]?.toLowerCase().replace(/-/g, '_') ?? null;
  if (location !== 'requestBody' && location !== 'query' && location !== 'path') return null;
  if (location === 'query') return rest.length ? rest.map(laravelQueryKey).join('.') : null;
  return rest.length ? rest.join('.') : null;
}

function messageFor(error: ErrorObject, attribute: string): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `The ${attribute} field is required.`;
    case 'type':
      return typeMessage(attribute, typesOf({ type: params.type as string | string[] }));
    case 'minLength':
      return params.limit === 1 ? `The ${attribute} field is required.` : `The ${attribute} must be at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `The ${attribute} must not be greater than ${String(params.limit)} characters.`;
    case 'minimum':
      return `The ${attribute} must be at least ${String(params.limit)}.`;
    case 'maximum':
      return `The ${attribute} must not be greater than ${String(params.limit)}.`;
    case 'pattern':
      return typesOf(error.parentSchema).includes('integer') ? typeMessage(attribute, ['integer']) : `The ${attribute} format is invalid.`;
    case 'format':
      return formatMessage(attribute, String(params.format));
    case 'enum':
    case 'const':
      return `The selected ${attribute} is invalid.`;
    case 'additionalProperties':
      return `The ${attribute} field is prohibited.`;
    case 'minItems':
      return `The ${attribute} must have at least ${String(params.limit)} ${params.limit === 1 ? 'item' : 'items'}.`;
    case 'maxItems':
      return `The ${attribute} must not have more than ${String(params.limit)} items.`;
    case 'uniqueItems':
      // Laravel's `distinct` names the repeated member; here the list as a whole.
      return `The ${attribute} field has a duplicate value.`;
    default:
      return `The ${attribute} is invalid.`;
  }
}

function isRequiredField(field: string, bodySchema: unknown, error: ErrorObject): boolean {
  return error.instancePath === `/requestBody/${field}` && ((bodySchema as SchemaLike | undefined)?.required ?? []).includes(field);
}

/** No body at all, or a body that is not a JSON object (`null`, `[]`, `3`). */
function isWholeBodyMissing(error: ErrorObject): boolean {
  if (error.instancePath === '/requestBody') return error.keyword === 'type';
  return error.instancePath === '' && error.keyword === 'required' && error.params.missingProperty === 'requestBody';
}

/**
 * Keywords a schema lists in `x-restates` say again, for tools that know neither the service's
 * custom formats nor its body rules, what the service checks with those (Currency's codes, DateRange's
 * shape, the bounds of an amount sent as text): the format's or the rule's own message reports it.
 */
function restatesOwnCheck(error: ErrorObject): boolean {
  const listed = (error.parentSchema as { 'x-restates'?: unknown } | undefined)?.['x-restates'];
  return Array.isArray(listed) && listed.includes(error.keyword);
}

/** Keywords after which Laravel stops judging a field: nothing else about it is worth saying. */
const DECISIVE = new Set(['required', 'type']);

/**
 * Maps Ajv errors to field errors. A body that is not a JSON object at all is reported the way Laravel
 * sees it: as an empty input, so every required field is missing.
 */
export function laravelErrors(errors: ErrorObject[], bodySchema?: unknown): FieldErrors {
  const decisive = new Map<string, string>();
  const others = new Map<string, string[]>();
  for (const error of errors) {
    if (restatesOwnCheck(error)) continue;
    const field = fieldOf(error);
    if (field === null) {
      if (isWholeBodyMissing(error)) {
        for (const name of (bodySchema as SchemaLike | undefined)?.required ?? []) {
          decisive.set(name, `The ${attributeName(name)} field is required.`);
        }
      }
      continue;
    }
    // Laravel checks `required` before the type: a required field sent as null (or as "", which
    // became null) is missing, not of the wrong type.
    const nullRequired = error.keyword === 'type' && error.data === null && isRequiredField(field, bodySchema, error);
    const message = nullRequired ? `The ${attributeName(field)} field is required.` : messageFor(error, attributeName(field));
    if (DECISIVE.has(error.keyword) || (error.keyword === 'minLength' && error.params.limit === 1)) {
      if (!decisive.has(field)) decisive.set(field, message);
    } else {
      const list = others.get(field) ?? [];
      if (!list.includes(message)) list.push(message);
      others.set(field, list);
    }
  }
  // A field may be named `__proto__` (an unknown query parameter): no prototype, so it stays a key.
  const result: FieldErrors = Object.create(null);
  for (const [field, message] of decisive) result[field] = [message];
  for (const [field, messages] of others) if (!decisive.has(field)) result[field] = messages;
  return orderFields(result, bodySchema);
}

/** Adds rule errors for fields the schema did not already reject. */
export function mergeFieldErrors(schemaErrors: FieldErrors, ruleErrors: FieldErrors, bodySchema?: unknown): FieldErrors {
  const merged: FieldErrors = Object.assign(Object.create(null), schemaErrors);
  for (const [field, messages] of Object.entries(ruleErrors)) if (!merged[field]) merged[field] = messages;
  return orderFields(merged, bodySchema);
}

/** Fields in the order the schema lists them (required ones first, as the seed's examples do). */
function orderFields(errors: FieldErrors, bodySchema: unknown): FieldErrors {
  const schema = bodySchema as SchemaLike | undefined;
  const order = [...(schema?.required ?? []), ...Object.keys(schema?.properties ?? {})];
  const rank = (field: string) => {
    const index = order.indexOf(field);
    return index === -1 ? order.length : index;
  };
  return Object.fromEntries(Object.entries(errors).sort(([a], [b]) => rank(a) - rank(b)));
}
