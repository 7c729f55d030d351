// The console's one HTTP client: the project's client package signed in with the session cookie,
// wrapped for TanStack Query by openapi-react-query. Every request is the API an integrator calls.
import { createSessionClient } from '@payment-collection/client';
import createQueryClient from 'openapi-react-query';

let csrfToken: string | undefined;

/** Set from `GET /api/auth/me` once signed in; sent as X-CSRF-Token on every unsafe request. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export const api = createSessionClient({ baseUrl: '/api', csrfToken: () => csrfToken });
export const $api = createQueryClient(api);
