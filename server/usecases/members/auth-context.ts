// What the sign-in use cases are given and told, apart from them, so that the use cases' context and
// the use cases that check a member's secrets can name it without importing the sign-in workflow.
import type { SessionSettings } from '../../domain/sessions.js';
import type { Executor } from '../../store/executor.js';

/**
 * Refused (counted all the same; `audit` is false for the refusals of a flood after its first in a
 * minute, which need no row each), or counted before the secret is checked: `passed` gives the attempt
 * back, `failed` keeps it and answers whether the member is to be told of the failures now (once a window).
 */
export type SecretAttempt =
  { kind: 'throttled'; retryAfter: number; audit: boolean } | { kind: 'counted'; passed(): Promise<void>; failed(): Promise<boolean> };

/** The one throttle of every check of a password, TOTP code or recovery code (server/rate-limits/secret-attempts.ts). */
export interface SecretThrottle {
  /** Counts an attempt at the account's secrets from `address`, before they are checked. */
  attempt(account: { email: string; userId: string | undefined }, address: string, now: number): Promise<SecretAttempt>;
  /** Notes, in `db`'s transaction, a completed sign-in from `address`: later attempts from there pass the account's ceiling. */
  signedInFrom(db: Executor, userId: string, address: string, now: number): Promise<void>;
}

/** Password-reset requests per client address and per account (server/rate-limits/password-resets.ts). */
export interface PasswordResetThrottle {
  request(email: string, address: string, now: number): Promise<{ retryAfter?: number; mayEmail: boolean }>;
}

export interface AuthContext {
  sessions: SessionSettings;
  throttle: SecretThrottle;
  resets: PasswordResetThrottle;
  /** How long a password-reset link works (PASSWORD_RESET_LINK_MINUTES). */
  resetLinkMs: number;
}

/** Where a request comes from, for the audit log and the limits. */
export interface RequestMeta {
  address: string;
  userAgent: string | null;
  requestId: string | null;
}
