// Requests per API key per second (fixed one-second windows), counted where every instance can see
// them: PostgreSQL, or Redis when REDIS_URL is set. An SQLite deployment is a single process on a
// single machine, so it counts in memory and spares its one writer a write per request. A caller
// may ask for its own window (a limit per so many seconds) per hit: the payer pages count attempts
// over minutes in the same store.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { RateLimiter, RateLimitResult, RateLimitWindow } from './limiter.js';
import type { Executor } from '../store/executor.js';
import { countRequest, deleteWindowsEndedBefore, readCount, uncountRequest } from '../store/rate-limits.js';

/** The window holding `now`: its start in Unix seconds (the key it is counted under) and its end in ms. */
function windowAt(now: number, seconds: number): { start: number; end: number } {
  const start = Math.floor(now / 1000 / seconds) * seconds;
  return { start, end: (start + seconds) * 1000 };
}

function judge(limit: number, count: number, now: number, windowEnd: number): RateLimitResult {
  return { limit, remaining: Math.max(0, limit - count), allowed: count <= limit, retryAfter: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
}

/** A count read without a hit: allowed while one more hit would be. */
function judgePeek(limit: number, count: number, now: number, windowEnd: number): RateLimitResult {
  return { ...judge(limit, count, now, windowEnd), allowed: count < limit };
}

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly windows = new Map<string, { end: number; count: number }>();

  constructor(private readonly limit: number) {}

  async hit(bucket: string, now = Date.now(), { limit, seconds }: RateLimitWindow = { limit: this.limit, seconds: 1 }): Promise<RateLimitResult> {
    const { end } = windowAt(now, seconds);
    const current = this.windows.get(bucket);
    const count = current?.end === end ? current.count + 1 : 1;
    this.windows.set(bucket, { end, count });
    // Forget buckets whose window has ended once the map grows, so memory stays bounded by active keys.
    if (this.windows.size > 10_000) for (const [key, value] of this.windows) if (value.end <= now) this.windows.delete(key);
    return judge(limit, count, now, end);
  }

  async peek(bucket: string, now: number, { limit, seconds }: RateLimitWindow): Promise<RateLimitResult> {
    const { end } = windowAt(now, seconds);
    const current = this.windows.get(bucket);
    return judgePeek(limit, current?.end === end ? current.count : 0, now, end);
  }

  async giveBack(bucket: string, now: number, { seconds }: RateLimitWindow): Promise<void> {
    const { end } = windowAt(now, seconds);
    const current = this.windows.get(bucket);
    if (current?.end === end && current.count > 0) current.count -= 1;
  }

  async close(): Promise<void> {}
}

export class DatabaseRateLimiter implements RateLimiter {
  readonly kind = 'database';
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly db: Executor,
    private readonly limit: number,
  ) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), 10_000);
    this.sweeper.unref();
  }

  async hit(bucket: string, now = Date.now(), { limit, seconds }: RateLimitWindow = { limit: this.limit, seconds: 1 }): Promise<RateLimitResult> {
    const { start, end } = windowAt(now, seconds);
    return judge(limit, await countRequest(this.db, bucket, start, seconds), now, end);
  }

  async peek(bucket: string, now: number, { limit, seconds }: RateLimitWindow): Promise<RateLimitResult> {
    const { start, end } = windowAt(now, seconds);
    return judgePeek(limit, await readCount(this.db, bucket, start), now, end);
  }

  async giveBack(bucket: string, now: number, { seconds }: RateLimitWindow): Promise<void> {
    await uncountRequest(this.db, bucket, windowAt(now, seconds).start);
  }

  /** Deletes windows that ended over a minute ago. Any instance may sweep: ended windows are worthless and the delete is idempotent. */
  async sweep(now = Date.now()): Promise<number> {
    return deleteWindowsEndedBefore(this.db, Math.floor(now / 1000) - 60);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

const GIVE_BACK = "if (tonumber(redis.call('get', KEYS[1]) or '0') > 0) then return redis.call('decr', KEYS[1]) end return 0";

export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly redis: Redis;

  constructor(
    redisUrl: string,
    private readonly limit: number,
  ) {
    // Loaded only when Redis is configured, so other deployments do not pay for it at start-up.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  }

  /** Resolves when Redis answers (readiness). */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async hit(bucket: string, now = Date.now(), { limit, seconds }: RateLimitWindow = { limit: this.limit, seconds: 1 }): Promise<RateLimitResult> {
    const { start, end } = windowAt(now, seconds);
    const key = `ratelimit:${bucket}:${start}`;
    const [[, count] = []] =
      (await this.redis
        .multi()
        .incr(key)
        .pexpire(key, seconds * 1000 + 1_000)
        .exec()) ?? [];
    return judge(limit, Number(count), now, end);
  }

  async peek(bucket: string, now: number, { limit, seconds }: RateLimitWindow): Promise<RateLimitResult> {
    const { start, end } = windowAt(now, seconds);
    return judgePeek(limit, Number((await this.redis.get(`ratelimit:${bucket}:${start}`)) ?? 0), now, end);
  }

  async giveBack(bucket: string, now: number, { seconds }: RateLimitWindow): Promise<void> {
    // A plain DECR would make a key whose window has expired again, at -1 and without an expiry.
    await this.redis.eval(GIVE_BACK, 1, `ratelimit:${bucket}:${windowAt(now, seconds).start}`);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}

export interface RateLimitConfig {
  perSecond: number;
  store: 'auto' | 'memory' | 'database' | 'redis';
  redisUrl: string | undefined;
}

export function createRateLimiter(db: Executor, config: RateLimitConfig): RateLimiter {
  const store = config.store !== 'auto' ? config.store : config.redisUrl ? 'redis' : db.dialect === 'postgres' ? 'database' : 'memory';
  if (store === 'redis') {
    if (!config.redisUrl) throw new Error('RATE_LIMIT_STORE=redis needs REDIS_URL');
    return new RedisRateLimiter(config.redisUrl, config.perSecond);
  }
  return store === 'database' ? new DatabaseRateLimiter(db, config.perSecond) : new MemoryRateLimiter(config.perSecond);
}
