// What counting requests looks like to the rooms that limit them (the API, the payer pages, the
// acquirers' notifications), and who counts as one client; the implementations live in server/ratelimit/.
import ipaddr from 'ipaddr.js';

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
  /**
   * Takes back one hit that was counted at `now` in `window` (nothing when that window has ended): an
   * attempt counted before it was checked, which turned out to be the rightful one.
   */
  giveBack(bucket: string, now: number, window: RateLimitWindow): Promise<void>;
  close(): Promise<void>;
}

/**
 * The client an address is counted as: an IPv4 address as it is (written as IPv4-mapped IPv6 too),
 * an IPv6 address by its /64, the block a single subscriber is handed whole and picks addresses from
 * at will.
 */
export function clientOf(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
