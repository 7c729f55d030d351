// The typed client merchants install (@payment-collection/client): openapi-fetch over the types
// generated from openapi.yaml. Runs in Node.js 20+ and in browsers; the webhook and redirect
// verifiers, which need node:crypto, are entry points of their own (`@payment-collection/client/webhooks`,
// `@payment-collection/client/redirects`).
//
//   const payments = createPaymentsClient({ baseUrl: 'http://localhost:3000/api', apiKey });
//   const { data, error, response } = await payments.POST('/payment-links', { body: {...} });
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from '../generated/openapi.js';

export type { components, operations, paths };
export type PaymentLink = components['schemas']['PaymentLink'];
export type OpenPaymentLink = components['schemas']['OpenPaymentLink'];
export type Token = components['schemas']['Token'];
export type ValidationErrorBody = components['schemas']['ValidationError'];
export type ErrorBody = components['schemas']['Error'];
/** A 403: the key (or role) lacks `required_permission`. */
export type PermissionDeniedBody = components['schemas']['PermissionDenied'];
export { isPermission, PERMISSION_DESCRIPTIONS, PERMISSIONS, ROLE_DESCRIPTIONS, ROLE_PERMISSIONS, ROLES, type Permission, type Role } from './permissions.js';
export { FIELD_LIMITS } from './limits.js';
export type ApiKey = components['schemas']['ApiKey'];
/** A key as made: with its secret, shown this once. */
export type ApiKeyCreated = components['schemas']['ApiKeyCreated'];
export type AuditEvent = components['schemas']['AuditEvent'];

export type PaymentsClient = Client<paths, 'application/json'>;

export interface PaymentsClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The API base, e.g. `http://localhost:3000/api` (the seed's `{base_url}`). */
  baseUrl: string;
  /** The business's API key (`sk_...`, or a restricted `rk_...`). */
  apiKey: string;
}

/** A loop rather than /\/+$/, which is quadratic on a long run of slashes followed by anything else. */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end -= 1;
  return url.slice(0, end);
}

export function createPaymentsClient({ baseUrl, apiKey, headers, ...options }: PaymentsClientOptions): PaymentsClient {
  return createClient<paths>({
    ...options,
    baseUrl: withoutTrailingSlashes(baseUrl),
    headers: { Accept: 'application/json', Authorization: `Bearer ${apiKey}`, ...(headers as Record<string, string> | undefined) },
  });
}

/** A 422 body: `errors` maps each failing field to its messages. */
export function isValidationError(error: unknown): error is ValidationErrorBody {
  return typeof error === 'object' && error !== null && 'errors' in error && typeof (error as ValidationErrorBody).errors === 'object';
}

export interface SessionClientOptions extends Omit<ClientOptions, 'baseUrl' | 'credentials'> {
  /** The API base as the page sees it, e.g. `/api` for the merchant console served by the service. */
  baseUrl: string;
  /** The signed-in member's `csrf_token` (from `GET /api/auth/me`), sent on every unsafe request. */
  csrfToken(): string | undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A client for a page of the service's own origin signed in with the session cookie (the merchant
 * console): the cookie goes with every request, and POST, PUT, PATCH and DELETE carry `X-CSRF-Token`.
 */
export function createSessionClient({ baseUrl, csrfToken, headers, ...options }: SessionClientOptions): PaymentsClient {
  const client = createClient<paths>({
    ...options,
    baseUrl: withoutTrailingSlashes(baseUrl),
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...(headers as Record<string, string> | undefined) },
  });
  client.use({
    onRequest({ request }) {
      const token = csrfToken();
      if (!SAFE_METHODS.has(request.method) && token !== undefined) request.headers.set('X-CSRF-Token', token);
      return request;
    },
  });
  return client;
}
