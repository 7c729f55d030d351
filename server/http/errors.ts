// Errors are thrown as typed values anywhere below the HTTP layer and turned into responses in one
// place (errorMiddleware), so no handler ever writes an error status itself.
import type { FieldErrors } from '../domain/rules.js';
import { VALIDATION_MESSAGE } from './validation-errors.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { message: this.message };
  }
}

export class BadRequestError extends HttpError {
  constructor(message = 'The request body is not valid JSON.') {
    super(400, message);
  }
}

export class UnauthenticatedError extends HttpError {
  constructor() {
    super(401, 'Unauthenticated.');
  }
}

/** The caller is known but lacks the permission the operation (or the answer asked for) needs. */
export class ForbiddenError extends HttpError {
  constructor(readonly permission: string) {
    super(403, `This key or role lacks the ${permission} permission.`);
  }

  override body(): Record<string, unknown> {
    return { message: this.message, required_permission: this.permission };
  }
}

/** 403: the caller is known but this request is refused (a session's request without its CSRF token, from another origin). */
export class RequestRefusedError extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}

/** 403: the operation's `security` does not take the kind of credential the request came with. */
export class WrongCredentialError extends HttpError {
  constructor(readonly required: 'session' | 'api_key') {
    super(
      403,
      required === 'session'
        ? 'This operation is for a signed-in member only: an API key may not call it, whatever its permissions. Sign in to the console.'
        : 'This operation takes an API key, not a signed-in session.',
    );
  }

  override body(): Record<string, unknown> {
    return { message: this.message, required_credential: this.required };
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found.') {
    super(404, message);
  }
}

export class MethodNotAllowedError extends HttpError {
  constructor(method: string, allowed: string[]) {
    super(405, `The ${method} method is not supported for this route. Supported methods: ${allowed.join(', ')}.`, { Allow: allowed.join(', ') });
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor() {
    super(413, 'The request body must not be larger than 1 MiB.');
  }
}

export const MAX_QUERY_BYTES = 4096;

export class UriTooLongError extends HttpError {
  constructor() {
    super(414, `The query string must not be longer than ${MAX_QUERY_BYTES} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor() {
    super(415, 'The request body must be JSON (Content-Type application/json).');
  }
}

/** The 429 the API answers once a caller is over its limit. */
export class TooManyRequestsError extends HttpError {
  constructor(retryAfter: number) {
    super(429, 'Too Many Attempts.', { 'Retry-After': String(retryAfter) });
  }
}

export class ValidationError extends HttpError {
  constructor(readonly errors: FieldErrors) {
    super(422, VALIDATION_MESSAGE);
  }

  override body(): Record<string, unknown> {
    return { message: this.message, errors: this.errors };
  }
}

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Anything that is not one of ours is a 500 that discloses nothing. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpError) return { status: error.status, body: error.body(), headers: error.headers };
  return { status: 500, body: { message: 'Server Error.' }, headers: {} };
}
