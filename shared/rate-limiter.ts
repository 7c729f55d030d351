// What counting requests looks like to the rooms that limit them (the API, the payer pages); the
// implementations live in server/ratelimit/.
export interface RateLimitResult {
  limit: number;
  remaining: number;
  allowed: boolean;
  /** Seconds until the window resets, for Retry-After. */
  retryAfter: number;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'database' | 'redis';
  hit(bucket: string, now?: number): Promise<RateLimitResult>;
  close(): Promise<void>;
}
