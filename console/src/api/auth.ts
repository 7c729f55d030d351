// Sessions (issue 25: POST /api/auth/login, /logout, /password, GET /api/auth/me). Their operations are
// not yet in this branch's openapi.yaml, so these calls go through the same client typed loosely, here
// only: once they are generated, replace `loose` with `api` and these types with the generated ones.
import { api, setCsrfToken } from './client.js';

export interface Me {
  user: { _id: string; email: string; name: string | null; two_factor_enabled: boolean };
  business: { business_id: number; name: string };
  role: string;
  permissions: string[];
  two_factor_setup_required: boolean;
  csrf_token: string;
}

export interface SignIn {
  email: string;
  password: string;
  totp_code?: string;
}

export type SignInResult =
  | { kind: 'signed-in'; me: Me }
  | { kind: 'two-factor' }
  | { kind: 'refused'; message: string }
  | { kind: 'invalid'; message: string; errors: Record<string, string[]> };

interface LooseAnswer {
  data?: { data: unknown };
  error?: { message?: string; errors?: Record<string, string[]>; two_factor_required?: boolean };
  response: Response;
}

interface LooseClient {
  GET(path: string, init?: object): Promise<LooseAnswer>;
  POST(path: string, init: { body?: unknown }): Promise<LooseAnswer>;
}

const loose = api as unknown as LooseClient;

/** The signed-in member, or null when no session is live (401): TanStack Query keeps no undefined. */
export async function fetchMe(): Promise<Me | null> {
  const { data, response } = await loose.GET('/auth/me');
  if (response.status === 401) {
    setCsrfToken(undefined);
    return null;
  }
  if (!data) throw new Error(`GET /api/auth/me answered ${response.status}`);
  const me = data.data as Me;
  setCsrfToken(me.csrf_token);
  return me;
}

export async function signIn(body: SignIn): Promise<SignInResult> {
  const { data, error, response } = await loose.POST('/auth/login', { body });
  if (data) {
    const me = data.data as Me;
    setCsrfToken(me.csrf_token);
    return { kind: 'signed-in', me };
  }
  if (response.status === 401 && error?.two_factor_required) return { kind: 'two-factor' };
  if (response.status === 422) return { kind: 'invalid', message: error?.message ?? 'Check the form.', errors: error?.errors ?? {} };
  return { kind: 'refused', message: error?.message ?? `Signing in failed (HTTP ${response.status}).` };
}

export async function signOut(): Promise<void> {
  await loose.POST('/auth/logout', {});
  setCsrfToken(undefined);
}

export async function changePassword(body: {
  current_password: string;
  password: string;
}): Promise<{ ok: true } | { ok: false; message: string; errors: Record<string, string[]> }> {
  const { data, error, response } = await loose.POST('/auth/password', { body });
  if (data) return { ok: true };
  return { ok: false, message: error?.message ?? `Changing the password failed (HTTP ${response.status}).`, errors: error?.errors ?? {} };
}
