// Who is signed in (GET /api/auth/me), and the one-time links an e-mail carries (an invitation or a new
// owner's account link, a password reset), opened by POST with the token in the body.
import { queryOptions, type QueryKey } from '@tanstack/react-query';
import { fetchMe, openAccountLink, openPasswordReset, type AccountLinkResult, type PasswordResetResult } from '../api/auth.js';

/**
 * The signed-in member, or null when no session is live. Its data is the member itself, not the API's
 * envelope (fetchMe also keeps the CSRF token): nothing else reads GET /auth/me.
 */
export function meQuery() {
  return queryOptions({ queryKey: ['get', '/auth/me'] as const, queryFn: fetchMe, staleTime: 60_000, retry: false });
}

// Reading a link does not use it; it is read once per visit (a retry or a refetch would only repeat the answer).
const ONCE = { retry: false, staleTime: Infinity } as const;

// Keyed as QueryKey: the page that opens either kind of link takes both alike.
export function accountLinkQuery(token: string) {
  return queryOptions<AccountLinkResult, Error, AccountLinkResult, QueryKey>({
    queryKey: ['post', '/auth/account-links/open', { token }],
    queryFn: () => openAccountLink(token),
    ...ONCE,
  });
}

export function passwordResetQuery(token: string) {
  return queryOptions<PasswordResetResult, Error, PasswordResetResult, QueryKey>({
    queryKey: ['post', '/auth/password-resets/open', { token }],
    queryFn: () => openPasswordReset(token),
    ...ONCE,
  });
}
