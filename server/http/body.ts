// Reads JSON request bodies under /api. Problems with the body (not JSON, malformed, too large) are
// kept on ctx.state and raised by the API layer once the caller is authenticated, so an anonymous
// caller learns nothing but 401.
import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.js';

export const BODY_LIMIT = '1mb';

// co-body's parser (bourne) refuses `__proto__` members, a prototype-pollution vector: valid JSON,
// so the caller is told exactly that rather than that the body is not JSON.
const PROTO_MEMBER = /forbidden prototype property/;
export const PROTO_MESSAGE = 'The request body must not contain a "__proto__" member.';

const parseJson = parser(['POST', 'PUT', 'PATCH']);
/** A DELETE is read only where its operation declares a body (turning two-factor off takes a code). */
const parseDeleteJson = parser(['DELETE']);

function parser(parsedMethods: string[]) {
  return bodyParser({
    parsedMethods,
    enableTypes: ['json'],
    jsonLimit: BODY_LIMIT,
    // A body of `null`, `3` or `"text"` is read, then reported by validation as an empty input.
    jsonStrict: false,
    onError(error, ctx) {
      ctx.state.bodyError =
        (error as { status?: number }).status === 413
          ? new PayloadTooLargeError()
          : PROTO_MEMBER.test(error.message)
            ? new BadRequestError(PROTO_MESSAGE)
            : new BadRequestError();
    },
  });
}

function hasBody(ctx: Koa.Context): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

/**
 * Reads the JSON body of an API request. Only `application/json` is JSON here: openapi.yaml takes no
 * other media type, and a `+json` type such as application/merge-patch+json promises semantics
 * (a partial update) that PUT does not have, so it is a 415 rather than a body read another way.
 * A body that is not read is not drained to its end either: the answer closes the connection after
 * reading at most a bounded rest of it (linger.ts).
 */
export async function readJsonBody(ctx: Koa.Context, declaresBody = false): Promise<void> {
  if (!hasBody(ctx)) return;
  if (!ctx.is('application/json')) {
    ctx.state.bodyError = new UnsupportedMediaTypeError();
    return;
  }
  await (ctx.method === 'DELETE' && declaresBody ? parseDeleteJson : parseJson)(ctx, async () => {});
}

/** Whether the request came with a body the service has not read to its end. */
export function hasUnreadBody(ctx: Koa.Context): boolean {
  return hasBody(ctx) && !ctx.req.readableEnded;
}
