// Failed sign-ins, counted in the shared limiter (so across instances on PostgreSQL or Redis): per
// account (the e-mail, hashed) and per client address, each over a window of minutes. Only failures
// count; a sign-in is refused with the window's remaining seconds once either count is used up.
import { createHash } from 'node:crypto';
import { clientOf, type RateLimiter, type RateLimitWindow } from '../rate-limiter.js';

export interface SignInLimits {
  /** Failed sign-ins per account per window (LOGIN_FAILURES_PER_ACCOUNT, 10 per 15 minutes). */
  perAccount: RateLimitWindow;
  /** Failed sign-ins per client address per window (LOGIN_FAILURES_PER_ADDRESS, 50 per 15 minutes). */
  perAddress: RateLimitWindow;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAccount: { limit: 10, seconds: 900 }, perAddress: { limit: 50, seconds: 900 } };

export class SignInLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: SignInLimits,
  ) {}

  private buckets(email: string, address: string): [string, RateLimitWindow][] {
    const account = createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 32);
    return [
      [`signin:account:${account}`, this.limits.perAccount],
      [`signin:address:${clientOf(address)}`, this.limits.perAddress],
    ];
  }

  async blocked(email: string, address: string, now: number): Promise<number | undefined> {
    const results = await Promise.all(this.buckets(email, address).map(([bucket, window]) => this.limiter.peek(bucket, now, window)));
    const refused = results.filter((result) => !result.allowed);
    return refused.length > 0 ? Math.max(...refused.map((result) => result.retryAfter)) : undefined;
  }

  async failed(email: string, address: string, now: number): Promise<void> {
    await Promise.all(this.buckets(email, address).map(([bucket, window]) => this.limiter.hit(bucket, now, window)));
  }
}
