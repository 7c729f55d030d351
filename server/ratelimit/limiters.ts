// Requests per API key per second (fixed one-second windows), counted where every instance can see
// them: PostgreSQL, or Redis when REDIS_URL is set. An SQLite deployment is a single process on a
// single machine, so it counts in memory and spares its one writer a write per request.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { RateLimiter, RateLimitResult } from '../../shared/rate-limiter.js';
import type { Executor } from '../store/executor.js';
import { countRequest, deleteWindowsBefore } from '../store/rate-limits.js';

export function judge(limit: number, count: number, now: number): RateLimitResult {
  const windowEnd = (Math.floor(now / 1000) + 1) * 1000;
  return { limit, remaining: Math.max(0, limit - count), allowed: count <= limit, retryAfter: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
}

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly windows = new Map<string, { window: number; count: number }>();

  constructor(private readonly limit: number) {}

  async hit(bucket: string, now = Date.now()): Promise<RateLimitResult> {
    const window = Math.floor(now / 1000);
    const current = this.windows.get(bucket);
    const count = current?.window === window ? current.count + 1 : 1;
    this.windows.set(bucket, { window, count });
    // Forget buckets idle for a window once the map grows, so memory stays bounded by active keys.
    if (this.windows.size > 10_000) for (const [key, value] of this.windows) if (value.window < window) this.windows.delete(key);
    return judge(this.limit, count, now);
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
    // Any instance may sweep; old windows are worthless and the delete is idempotent.
    this.sweeper = setInterval(() => void deleteWindowsBefore(db, Math.floor(Date.now() / 1000) - 60).catch(() => {}), 10_000);
    this.sweeper.unref();
  }

  async hit(bucket: string, now = Date.now()): Promise<RateLimitResult> {
    return judge(this.limit, await countRequest(this.db, bucket, Math.floor(now / 1000)), now);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

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

  async hit(bucket: string, now = Date.now()): Promise<RateLimitResult> {
    const key = `ratelimit:${bucket}:${Math.floor(now / 1000)}`;
    const [[, count] = []] = (await this.redis.multi().incr(key).pexpire(key, 2_000).exec()) ?? [];
    return judge(this.limit, Number(count), now);
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
