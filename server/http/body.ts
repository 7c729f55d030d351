// Reads JSON request bodies under /api. Problems with the body (not JSON, malformed, too deep or too
// many values, too large) are kept on koa.state and raised by the API layer once the caller is authenticated, so an
// anonymous caller learns nothing but 401.
import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.js';

export const BODY_LIMIT = '1mb';

/**
 * How deep a body may nest arrays and objects, and how many values its arrays and objects may hold
 * in all: far past any body openapi.yaml describes (its longest lists are a key's permissions and an
 * endpoint's events), and few enough that nothing walking a body (trimming its strings, validating
 * it and writing an error for each value it refuses, keeping it under an Idempotency-Key) can run
 * out of stack or hold the event loop: a list of 200,000 wrong values held it for seconds.
 */
export const MAX_BODY_DEPTH = 32;
export const MAX_BODY_VALUES = 1_000;
export const DEPTH_MESSAGE = `The request body must not nest arrays and objects more than ${MAX_BODY_DEPTH} deep.`;
export const VALUES_MESSAGE = `The request body must not hold more than ${MAX_BODY_VALUES} values in its arrays and objects.`;

// A `__proto__` member is refused, as co-body's parser (bourne) refuses it: valid JSON, but a
// prototype-pollution vector, so the caller is told exactly that rather than that the body is not JSON.
export const PROTO_MESSAGE = 'The request body must not contain a "__proto__" member.';

// The body is read as text and parsed here rather than by co-body, so that its shape is known before
// JSON.parse sees it: parsing takes far longer per level nested than per element side by side, and
// a megabyte of nested arrays held the event loop for seconds.
const readText = reader(['POST', 'PUT', 'PATCH']);
/** A DELETE is read only where its operation declares a body (turning two-factor off takes a code). */
const readDeleteText = reader(['DELETE']);

function reader(parsedMethods: string[]) {
  return bodyParser({
    parsedMethods,
    enableTypes: ['text'],
    // Only bodies readJsonBody has found to be application/json come here.
    extendTypes: { text: ['application/json'] },
    textLimit: BODY_LIMIT,
    onError(error, koa) {
      koa.state.bodyError = (error as { status?: number }).status === 413 ? new PayloadTooLargeError() : new BadRequestError();
    },
  });
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Which limit JSON text breaks, if any: more than `limits.depth` arrays and objects inside one
 * another, or more than `limits.values` elements and members in all. One pass over the characters,
 * skipping strings, with no recursion and nothing built; it stops at the first limit passed. Text
 * that is not JSON may be counted wrongly; it is refused either way.
 */
export function shapeProblem(text: string, limits: { depth: number; values: number }): 'depth' | 'values' | undefined {
  let depth = 0;
  let values = 0;
  let inString = false;
  // Just inside an opening bracket: the next character that is not a space opens its first value, unless it closes it.
  let opened = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i += 1; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
      continue;
    }
    if (WHITESPACE.has(code)) continue;
    if (opened && code !== 0x5d && code !== 0x7d) values += 1;
    opened = false;
    if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      opened = true;
      if (depth > limits.depth) return 'depth';
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
    else if (code === 0x2c) values += 1;
    if (values > limits.values) return 'values';
  }
  return undefined;
}

/** Whether a parsed body has a `__proto__` member at any depth, walked without recursion. */
function hasProtoMember(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && Object.hasOwn(node, '__proto__')) return true;
    for (const item of Object.values(node)) pending.push(item);
  }
  return false;
}

/** The body's JSON, or the error that refuses it. A body of `null`, `3` or `"text"` is read, then reported by validation as an empty input. */
function parseBody(text: string): { body: unknown } | { error: BadRequestError } {
  if (text === '') return { body: text };
  const problem = shapeProblem(text, { depth: MAX_BODY_DEPTH, values: MAX_BODY_VALUES });
  if (problem) return { error: new BadRequestError(problem === 'depth' ? DEPTH_MESSAGE : VALUES_MESSAGE) };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: new BadRequestError() };
  }
  // A key can only be __proto__ if the text spells it, or writes a character of it as an escape.
  if ((text.includes('__proto__') || text.includes('\\u00')) && hasProtoMember(body)) return { error: new BadRequestError(PROTO_MESSAGE) };
  return { body };
}

function hasBody(koa: Koa.Context): boolean {
  const length = koa.get('content-length');
  return (length !== '' && length !== '0') || koa.get('transfer-encoding') !== '';
}

/**
 * Reads the JSON body of an API request. Only `application/json` is JSON here: openapi.yaml takes no
 * other media type, and a `+json` type such as application/merge-patch+json promises semantics
 * (a partial update) that PUT does not have, so it is a 415 rather than a body read another way.
 * A body that is not read is not drained to its end either: the answer closes the connection after
 * reading at most a bounded rest of it (linger.ts).
 */
export async function readJsonBody(koa: Koa.Context, declaresBody = false): Promise<void> {
  if (!hasBody(koa)) return;
  if (!koa.is('application/json')) {
    koa.state.bodyError = new UnsupportedMediaTypeError();
    return;
  }
  await (koa.method === 'DELETE' && declaresBody ? readDeleteText : readText)(koa, async () => {});
  if (koa.state.bodyError || typeof koa.request.body !== 'string') return;
  const parsed = parseBody(koa.request.body);
  if ('error' in parsed) {
    koa.state.bodyError = parsed.error;
    koa.request.body = undefined;
  } else {
    koa.request.body = parsed.body;
  }
}

/** Whether the request came with a body the service has not read to its end. */
export function hasUnreadBody(koa: Koa.Context): boolean {
  return hasBody(koa) && !koa.req.readableEnded;
}
