// Sessions, two-factor sign-in, one-time account links and password resets (POST /api/auth/login, /logout,
// /password, /totp, /account-links, /password-resets, GET /api/auth/me), through the console's one client: every body and answer is typed by
// openapi.yaml's generated paths.
import type { components } from '@payment-collection/client';
import { api, setCsrfToken } from './client.js';

export type Me = components['schemas']['Me'];
export type SignIn = components['schemas']['LoginRequest'];
export type ValidationErrors = components['schemas']['ValidationError']['errors'];

export type SignInResult =
  | { kind: 'signed-in'; me: Me }
  | { kind: 'two-factor' }
  | { kind: 'refused'; message: string }
  | { kind: 'invalid'; message: string; errors: ValidationErrors };

export type Outcome<T> = { ok: true; data: T } | { ok: false; message: string; errors: ValidationErrors };

/** The message and field errors of a refused answer, whichever of the declared error bodies it is. */
function refusal(error: unknown, status: number, what: string): { message: string; errors: ValidationErrors } {
  const body = (error ?? {}) as { message?: unknown; errors?: unknown };
  return {
    message: typeof body.message === 'string' ? body.message : `${what} failed (HTTP ${status}).`,
    errors: typeof body.errors === 'object' && body.errors !== null ? (body.errors as ValidationErrors) : {},
  };
}

/** The signed-in member, or null when no session is live (401): TanStack Query keeps no undefined. */
export async function fetchMe(): Promise<Me | null> {
  const { data, response } = await api.GET('/auth/me');
  if (response.status === 401) {
    setCsrfToken(undefined);
    return null;
  }
  if (!data) throw new Error(`GET /api/auth/me answered ${response.status}`);
  setCsrfToken(data.data.csrf_token);
  return data.data;
}

export async function signIn(body: SignIn): Promise<SignInResult> {
  const { data, error, response } = await api.POST('/auth/login', { body });
  if (data) {
    setCsrfToken(data.data.csrf_token);
    return { kind: 'signed-in', me: data.data };
  }
  if (response.status === 401 && error && 'two_factor_required' in error && error.two_factor_required === true) return { kind: 'two-factor' };
  const { message, errors } = refusal(error, response.status, 'Signing in');
  if (response.status === 422) return { kind: 'invalid', message, errors };
  return { kind: 'refused', message };
}

export async function signOut(): Promise<void> {
  await api.POST('/auth/logout');
  setCsrfToken(undefined);
}

export async function changePassword(body: components['schemas']['PasswordChangeRequest']): Promise<Outcome<{ other_sessions_ended: number }>> {
  const { data, error, response } = await api.POST('/auth/password', { body });
  if (data) return { ok: true, data: { other_sessions_ended: data.data.other_sessions_ended } };
  return { ok: false, ...refusal(error, response.status, 'Changing the password') };
}

export type TotpSetup = components['schemas']['TotpSetupEnvelope']['data'];

/** A new TOTP secret for the signed-in member (not on until confirmed with a code). */
export async function startTotp(): Promise<Outcome<TotpSetup>> {
  const { data, error, response } = await api.POST('/auth/totp');
  if (data) return { ok: true, data: data.data };
  return { ok: false, ...refusal(error, response.status, 'Setting up two-factor sign-in') };
}

/** Turns two-factor sign-in on with a code from the app; answers the recovery codes, shown once. */
export async function confirmTotp(code: string): Promise<Outcome<{ recovery_codes: string[] }>> {
  const { data, error, response } = await api.POST('/auth/totp/confirm', { body: { code } });
  if (data) return { ok: true, data: { recovery_codes: data.data.recovery_codes } };
  return { ok: false, ...refusal(error, response.status, 'Turning two-factor sign-in on') };
}

export type AccountLink = components['schemas']['AccountLink'];

export type AccountLinkResult = { kind: 'open'; link: AccountLink } | { kind: 'gone'; message: string } | { kind: 'refused'; message: string };

/** What a one-time account link (a new owner's, an invitation's) is for; the token goes in the body, never in an API URL. */
export async function openAccountLink(token: string): Promise<AccountLinkResult> {
  const { data, error, response } = await api.POST('/auth/account-links/open', { body: { token } });
  if (data) return { kind: 'open', link: data.data };
  const { message } = refusal(error, response.status, 'Opening the link');
  return { kind: response.status === 410 ? 'gone' : 'refused', message };
}

export type AcceptedAccountLink = components['schemas']['AccountLinkAcceptedEnvelope']['data'];

/** Uses the link: the holder joins its business (and signs in afterwards, through `signIn`). */
export async function acceptAccountLink(body: components['schemas']['AccountLinkAcceptRequest']): Promise<Outcome<AcceptedAccountLink> & { gone?: boolean }> {
  const { data, error, response } = await api.POST('/auth/account-links/accept', { body });
  if (data) return { ok: true, data: data.data };
  return { ok: false, gone: response.status === 410, ...refusal(error, response.status, 'Setting up the account') };
}

/** Turns two-factor sign-in off: the current password and a code from the app (or a recovery code). */
export async function disableTotp(body: components['schemas']['TotpDisableRequest']): Promise<Outcome<{ two_factor_enabled: boolean }>> {
  const { data, error, response } = await api.DELETE('/auth/totp', { body });
  if (data) return { ok: true, data: data.data };
  return { ok: false, ...refusal(error, response.status, 'Turning two-factor sign-in off') };
}

/** Ten new recovery codes in place of the old ones: the current password and a code from the app (or a recovery code). */
export async function regenerateRecoveryCodes(body: components['schemas']['TotpDisableRequest']): Promise<Outcome<{ recovery_codes: string[] }>> {
  const { data, error, response } = await api.POST('/auth/totp/recovery-codes', { body });
  if (data) return { ok: true, data: data.data };
  return { ok: false, ...refusal(error, response.status, 'Making new recovery codes') };
}

/** Asks for a password-reset link by e-mail; the answer is the same whether or not the e-mail has an account. */
export async function requestPasswordReset(email: string): Promise<Outcome<{ requested: true }>> {
  const { data, error, response } = await api.POST('/auth/password-resets', { body: { email } });
  if (data) return { ok: true, data: data.data };
  return { ok: false, ...refusal(error, response.status, 'Asking for a reset link') };
}

export type PasswordReset = components['schemas']['PasswordResetEnvelope']['data'];

export type PasswordResetResult = { kind: 'open'; reset: PasswordReset } | { kind: 'gone' | 'refused'; message: string };

/** Whose password a reset link sets, while it works; the token goes in the body, never in an API URL. */
export async function openPasswordReset(token: string): Promise<PasswordResetResult> {
  const { data, error, response } = await api.POST('/auth/password-resets/open', { body: { token } });
  if (data) return { kind: 'open', reset: data.data };
  const { message } = refusal(error, response.status, 'Opening the link');
  return { kind: response.status === 410 ? 'gone' : 'refused', message };
}

export type CompletedPasswordReset = components['schemas']['PasswordResetDoneEnvelope']['data'];

/** Sets the new password through the link (signing no one in: the member signs in next). */
export async function completePasswordReset(
  body: components['schemas']['PasswordResetCompleteRequest'],
): Promise<Outcome<CompletedPasswordReset> & { gone?: boolean }> {
  const { data, error, response } = await api.POST('/auth/password-resets/complete', { body });
  if (data) return { ok: true, data: data.data };
  return { ok: false, gone: response.status === 410, ...refusal(error, response.status, 'Setting the new password') };
}
