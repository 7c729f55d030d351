// Refusals by the rate limits, counted in one place: a limiter that tells `refused` the limit a hit
// was refused by. The limit is read from the bucket's prefix, never the rest (an address, a key,
// an account), so what is counted has one value per limit.
import type { RateLimiter, RateLimitResult, RateLimitWindow } from './limiter.js';

/** The limit of each bucket prefix whose refused hit is a refused request. */
const LIMITS: Record<string, string> = {
  ip: 'api',
  key: 'api',
  user: 'api',
  'page-ip': 'payer_forms',
  'page-card': 'payer_forms',
  'page-setups': 'payer_forms',
  'page-checkouts': 'payer_forms',
  'acquirer-ip': 'acquirer_notifications',
  reset: 'password_resets',
};

/**
 * A refused attempt at a member's secret hits `secret:r:...` once (to audit one refusal a minute),
 * allowed or not; the other `secret:` buckets count attempts, not refusals.
 */
const SECRET_REFUSED = 'secret:r:';

export function limitOf(bucket: string, result: RateLimitResult): string | undefined {
  if (bucket.startsWith(SECRET_REFUSED)) return 'member_secrets';
  if (result.allowed) return undefined;
  return LIMITS[bucket.slice(0, bucket.indexOf(':'))];
}

export function countingRefusals(limiter: RateLimiter, refused: (limit: string) => void): RateLimiter {
  return {
    kind: limiter.kind,
    async hit(bucket: string, now?: number, window?: RateLimitWindow) {
      const result = await limiter.hit(bucket, now, window);
      const limit = limitOf(bucket, result);
      if (limit) refused(limit);
      return result;
    },
    peek: (bucket, now, window) => limiter.peek(bucket, now, window),
    giveBack: (bucket, now, window) => limiter.giveBack(bucket, now, window),
    close: () => limiter.close(),
  };
}
