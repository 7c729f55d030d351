// When a failed delivery is tried again: exponential backoff (x3) from a base, capped, with jitter
// so that many entries failing together (a receiver outage) do not come back in one burst. After the
// last attempt the entry is dead. With the defaults (30 s base, 6 h cap, 12 attempts) the 11 waits
// add up to 33 hours of backoff (6 growing ones, about 3 h, then 5 capped at 6 h), and jitter makes
// each wait half to all of its backoff: an entry dies 16.5 to 33 hours after its first attempt.

export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 30_000, capMs: 6 * 3_600_000, maxAttempts: 12 };

/** Delay before the attempt after `attempts` failed ones, between half and all of the backoff. */
export function retryDelayMs(attempts: number, policy: RetryPolicy, random = Math.random): number {
  const backoff = Math.min(policy.capMs, policy.baseMs * 3 ** Math.max(0, attempts - 1));
  return Math.round(backoff / 2 + (backoff / 2) * random());
}

/** When to try again after `attempts` attempts, or null when the schedule is spent. */
export function nextAttemptAt(attempts: number, policy: RetryPolicy, now = new Date(), random = Math.random): Date | null {
  if (attempts >= policy.maxAttempts) return null;
  return new Date(now.getTime() + retryDelayMs(attempts, policy, random));
}
