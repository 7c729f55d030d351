// What counting requests looks like to the rooms that limit them (the API, the payer pages); the
// implementations live in server/ratelimit/.
export interface RateLimitResult {
  limit: number;
  remaining: number;
  allowed: boolean;
  /** Seconds until the window resets, for Retry-After. */
  retryAfter: number;
}

/** A fixed window: `limit` hits per `seconds`, windows aligned to multiples of `seconds` since the epoch. */
export interface RateLimitWindow {
  limit: number;
  seconds: number;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'database' | 'redis';
  /** Counts one hit in `bucket`: in one-second windows with the limiter's own limit unless `window` is given. */
  hit(bucket: string, now?: number, window?: RateLimitWindow): Promise<RateLimitResult>;
  /**
   * Reads `bucket`'s count without adding to it: `allowed` says whether one more hit would be, for a
   * limit on outcomes (a decline) that is checked before the attempt and counted after it.
   */
  peek(bucket: string, now: number, window: RateLimitWindow): Promise<RateLimitResult>;
  close(): Promise<void>;
}
