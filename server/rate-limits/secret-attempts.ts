// Attempts at a member's secrets (the password, a TOTP code, a recovery code), wherever one is
// checked: sign-in, turning two-factor off, changing the password, accepting an invitation with an
// existing account. Each attempt is counted before its secret is checked, by the shared limiter's
// atomic hit (across instances on PostgreSQL or Redis), and decided on the count that hit answered:
// of the attempts in flight together, no more than the limit are checked. One that passes is given
// back, so what stays counted are failures (and attempts still being checked).
//
// Three rules: per account from one client address, per client address, and a much higher ceiling
// per account from every address together, which a client the account signed in from before
// passes, so that whoever knows a member's e-mail cannot keep them out from where they sign in.
// Each rule's limit, once used up, gives way to longer windows with larger limits: delays grow
// (the window, four times it, 96 times it: 15 minutes, an hour, a day for the defaults) rather
// than the account locking.
import { createHash } from 'node:crypto';
import { clientOf, type RateLimiter, type RateLimitResult, type RateLimitWindow } from './limiter.js';
import type { Executor } from '../store/executor.js';
import { KNOWN_CLIENT_DAYS, hasSignedInFrom, noteSignInFrom } from '../store/sign-in-addresses.js';

export interface SignInLimits {
  /** Failed attempts at one account from one client address (LOGIN_FAILURES_PER_ACCOUNT, 10 per 15 minutes). */
  perAccount: RateLimitWindow;
  /** Failed attempts from one client address at any accounts (LOGIN_FAILURES_PER_ADDRESS, 50 per 15 minutes). */
  perAddress: RateLimitWindow;
  /** Failed attempts at one account from every address together (LOGIN_FAILURES_ACCOUNT_CEILING, 100 per 15 minutes). */
  accountCeiling: RateLimitWindow;
  /** Failed attempts at one account after which its member is e-mailed, once per ceiling window (LOGIN_FAILURES_NOTICE_AFTER, 10). */
  noticeAfter: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perAccount: { limit: 10, seconds: 900 },
  perAddress: { limit: 50, seconds: 900 },
  accountCeiling: { limit: 100, seconds: 900 },
  noticeAfter: 10,
};

/** Each rule's window and limit, then two longer windows with larger limits. */
const GROWTH: readonly (readonly [limit: number, seconds: number])[] = [
  [1, 1],
  [2, 4],
  [4, 96],
];

function tiers(window: RateLimitWindow): RateLimitWindow[] {
  return GROWTH.map(([limit, seconds]) => ({ limit: window.limit * limit, seconds: window.seconds * seconds }));
}

/** The account as the buckets name it: its e-mail as sign-in matches it, hashed (short: a bucket's name has 80 characters). */
function accountKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);
}

/**
 * Refused (and counted all the same: hammering on does not shorten the wait; `audit` only for the
 * first refusal of a client at an account each minute), or counted and to be checked: `passed` gives
 * it back; `failed` keeps it and answers whether the member is to be told of the failures now (once
 * per ceiling window, once they reach `noticeAfter`).
 */
export type SecretAttempt =
  { kind: 'throttled'; retryAfter: number; audit: boolean } | { kind: 'counted'; passed(): Promise<void>; failed(): Promise<boolean> };

const longestWait = (results: readonly RateLimitResult[]) => Math.max(...results.filter((r) => !r.allowed).map((r) => r.retryAfter));

export class SecretAttemptLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly db: Executor,
    private readonly limits: SignInLimits,
    /** Told of every wrong secret (the metrics count them). */
    private readonly onFailure: () => void = () => {},
  ) {}

  async attempt(account: { email: string; userId: string | undefined }, address: string, now: number): Promise<SecretAttempt> {
    const key = accountKey(account.email);
    const client = clientOf(address);
    const rule = (bucket: string, window: RateLimitWindow) => tiers(window).map((tier) => ({ bucket: `${bucket}:${tier.seconds}`, window: tier }));
    const buckets = {
      local: [...rule(`secret:ac:${key}:${client}`, this.limits.perAccount), ...rule(`secret:c:${client}`, this.limits.perAddress)],
      ceiling: rule(`secret:a:${key}`, this.limits.accountCeiling),
    };
    const all = [...buckets.local, ...buckets.ceiling];
    const results = await Promise.all(all.map(({ bucket, window }) => this.limiter.hit(bucket, now, window)));
    const local = results.slice(0, buckets.local.length);
    const ceiling = results.slice(buckets.local.length);
    const refused = async (retryAfter: number): Promise<SecretAttempt> => {
      const audit = await this.limiter.hit(`secret:r:${key}:${client}`, now, { limit: 1, seconds: 60 });
      return { kind: 'throttled', retryAfter, audit: audit.allowed };
    };
    if (local.some((result) => !result.allowed)) return refused(longestWait(local));
    // Asked for an unknown e-mail too (no user has the empty id), so that both take the same time.
    if (ceiling.some((result) => !result.allowed)) {
      const since = new Date(now - KNOWN_CLIENT_DAYS * 86_400_000);
      if (!(await hasSignedInFrom(this.db, account.userId ?? '', client, since))) return refused(longestWait(ceiling));
    }
    const [first] = ceiling;
    const noticeDue = !first!.allowed || first!.limit - first!.remaining >= this.limits.noticeAfter;
    return {
      kind: 'counted',
      passed: async () => {
        await Promise.all(all.map(({ bucket, window }) => this.limiter.giveBack(bucket, now, window)));
      },
      failed: async () => {
        this.onFailure();
        if (!noticeDue) return false;
        const notice = await this.limiter.hit(`secret:n:${key}`, now, { limit: 1, seconds: this.limits.accountCeiling.seconds });
        return notice.allowed;
      },
    };
  }

  async signedInFrom(db: Executor, userId: string, address: string, now: number): Promise<void> {
    await noteSignInFrom(db, userId, clientOf(address), new Date(now));
  }
}
