// Requests for a password reset, counted in the shared limiter per client address (past its limit the
// client is told to wait: 429) and per account (past its limit no more e-mails go to that address
// this window, and the answer stays the one every request gets, so it tells nothing of the account).
// An unknown e-mail is counted like a member's.
import { createHash } from 'node:crypto';
import { clientOf, type RateLimiter, type RateLimitWindow } from './limiter.js';

export interface PasswordResetLimits {
  /** Reset e-mails per account (PASSWORD_RESETS_PER_ACCOUNT, 3 per hour). */
  perAccount: RateLimitWindow;
  /** Reset requests per client address (PASSWORD_RESETS_PER_ADDRESS, 10 per hour). */
  perAddress: RateLimitWindow;
}

/** The limits, and how long a reset link works (PASSWORD_RESET_LINK_MINUTES, 60). */
export interface PasswordResetSettings extends PasswordResetLimits {
  linkMinutes: number;
}

export const DEFAULT_PASSWORD_RESETS: PasswordResetSettings = {
  perAccount: { limit: 3, seconds: 3_600 },
  perAddress: { limit: 10, seconds: 3_600 },
  linkMinutes: 60,
};

export class PasswordResetLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: PasswordResetLimits,
  ) {}

  /** Counts a request: `retryAfter` when the client asked too often, `mayEmail` false when the account was sent enough this window. */
  async request(email: string, address: string, now: number): Promise<{ retryAfter?: number; mayEmail: boolean }> {
    const client = await this.limiter.hit(`reset:client:${clientOf(address)}`, now, this.limits.perAddress);
    if (!client.allowed) return { retryAfter: client.retryAfter, mayEmail: false };
    const key = createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 32);
    const account = await this.limiter.hit(`reset:account:${key}`, now, this.limits.perAccount);
    return { mayEmail: account.allowed };
  }
}
