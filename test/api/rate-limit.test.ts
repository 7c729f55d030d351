// Requests per API key per second, with the headers on every /api response and Retry-After on 429.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../server/rate-limits/limiter.js';
import { DatabaseRateLimiter, MemoryRateLimiter, RedisRateLimiter } from '../../server/rate-limits/backends.js';
import { knexFor, openDatabase, type Database } from '../../server/store/database.js';
import { assertErrorBody } from '../support/contract.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { REDIS_URL, redisAnswers } from '../support/redis.js';
import { raw, useService } from '../support/service.js';
import { sleep } from '../support/wait.js';

const LIMIT = 5;
const t = useService({ rateLimit: { perSecond: LIMIT } });

/** Waits for the start of a fresh one-second window, so a burst lands in one window. */
async function atWindowStart(): Promise<void> {
  const ms = Date.now() % 1000;
  await sleep(1000 - ms + 5);
}

/**
 * Runs `work` from the start of a window. Answered within that window, all of it landed there; a machine
 * too busy to answer in a second tries again in the next window (up to five), rather than testing two
 * windows at once.
 */
async function inOneWindow<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    await atWindowStart();
    const window = Math.floor(Date.now() / 1000);
    const result = await work();
    if (Math.floor(Date.now() / 1000) === window || attempt === 5) return result;
  }
}

describe('rate limit over HTTP', () => {
  it('lets a key make LIMIT requests per second; the next get 429 with Retry-After and conform to the spec', async () => {
    const answers = await inOneWindow(() => Promise.all(Array.from({ length: LIMIT + 3 }, () => t.a.client.GET('/payment-links'))));
    const statuses = answers.map((a) => a.response.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    const limited = answers.find((a) => a.response.status === 429)!;
    expect(limited.error).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.response.headers.get('x-ratelimit-remaining')).toBe('0');
    const remaining = answers
      .filter((a) => a.response.status === 200)
      .map((a) => Number(a.response.headers.get('x-ratelimit-remaining')))
      .sort();
    expect(remaining).toEqual([0, 1, 2, 3, 4]);
  });

  it('counts each key on its own and starts again in the next second', async () => {
    const refused = await inOneWindow(async () => {
      for (let i = 0; i < LIMIT; i += 1) await t.a.client.GET('/payment-links');
      return (await t.a.client.GET('/payment-links')).response.status;
    });
    expect(refused).toBe(429);
    expect((await t.b.client.GET('/payment-links')).response.status).toBe(200);
    await atWindowStart();
    expect((await t.a.client.GET('/payment-links')).response.status).toBe(200);
  });

  it('puts X-RateLimit-Limit and X-RateLimit-Remaining on every /api response, errors included', async () => {
    await atWindowStart();
    const unknownPath = await raw(`${t.apiUrl}/nowhere`, { key: t.b.key });
    const wrongMethod = await raw(`${t.apiUrl}/payment-links`, { key: t.b.key, method: 'PATCH' });
    const anonymous = await raw(`${t.apiUrl}/payment-links`);
    for (const answer of [unknownPath, wrongMethod, anonymous]) {
      expect(answer.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      await assertErrorBody(answer.status, answer.contentType, answer.body);
    }
    expect(unknownPath.status).toBe(404);
    expect(wrongMethod.status).toBe(405);
    expect(anonymous.status).toBe(401);
  });

  it('counts requests without a valid key per client address, so guessing keys is limited too', async () => {
    await atWindowStart();
    const guesses = await Promise.all(
      Array.from({ length: LIMIT + 2 }, (_, i) => raw(`${t.apiUrl}/payment-links`, { key: `sk_${String(i).padStart(43, 'x')}` })),
    );
    expect(guesses.filter((g) => g.status === 401)).toHaveLength(LIMIT);
    expect(guesses.filter((g) => g.status === 429)).toHaveLength(2);
  });
});

/** The same behaviour from every store, driven with explicit clocks. */
function limiterContract(name: string, make: () => Promise<{ limiter: RateLimiter; done: () => Promise<void> }>) {
  describe(`${name} rate limiter`, () => {
    it('allows LIMIT per window and reports what remains', async () => {
      const { limiter, done } = await make();
      try {
        const bucket = `key:${Math.random()}`;
        const at = 1_800_000_000_250;
        const results = [];
        for (let i = 0; i < 4; i += 1) results.push(await limiter.hit(bucket, at));
        expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
        ]);
        expect(results[3]!.retryAfter).toBe(1);
        expect((await limiter.hit(bucket, at + 750)).allowed).toBe(true);
        expect(await limiter.hit(`key:other-${Math.random()}`, at)).toMatchObject({ allowed: true, remaining: 2 });
      } finally {
        await done();
      }
    });

    it('counts in a longer window when a hit asks for one, told apart from one-second windows', async () => {
      const { limiter, done } = await make();
      try {
        const bucket = `page-link:${Math.random()}`;
        const window = { limit: 2, seconds: 600 };
        // 1,800,000,000 s is a multiple of 600: the window runs to 1,800,000,600 s.
        const at = 1_800_000_000_250;
        const results = [await limiter.hit(bucket, at, window), await limiter.hit(bucket, at + 1_000, window), await limiter.hit(bucket, at + 299_000, window)];
        expect(results.map((r) => [r.allowed, r.remaining, r.limit])).toEqual([
          [true, 1, 2],
          [true, 0, 2],
          [false, 0, 2],
        ]);
        expect(results[2]!.retryAfter).toBe(301);
        expect((await limiter.hit(bucket, at + 599_000, window)).allowed).toBe(false);
        expect(await limiter.hit(bucket, at + 599_750, window)).toMatchObject({ allowed: true, remaining: 1 });
        expect(await limiter.hit(`key:${Math.random()}`, at + 299_000)).toMatchObject({ allowed: true, remaining: 2, limit: 3 });
      } finally {
        await done();
      }
    });

    it('peeks at a window without counting: allowed while one more hit would be', async () => {
      const { limiter, done } = await make();
      try {
        const bucket = `page-declines:${Math.random()}`;
        const window = { limit: 2, seconds: 600 };
        const at = 1_800_000_000_250;
        const peek = async (when: number) => {
          const result = await limiter.peek(bucket, when, window);
          return [result.allowed, result.remaining];
        };
        expect(await peek(at)).toEqual([true, 2]);
        expect(await peek(at)).toEqual([true, 2]);
        await limiter.hit(bucket, at + 1_000, window);
        expect(await peek(at + 2_000)).toEqual([true, 1]);
        await limiter.hit(bucket, at + 3_000, window);
        const full = await limiter.peek(bucket, at + 4_000, window);
        expect(full).toMatchObject({ allowed: false, remaining: 0, limit: 2 });
        expect(full.retryAfter).toBe(596);
        // The next window starts from nothing.
        expect(await peek(at + 600_000)).toEqual([true, 2]);
      } finally {
        await done();
      }
    });
  });
}

limiterContract('memory', async () => ({ limiter: new MemoryRateLimiter(3), done: async () => {} }));

limiterContract('database', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-limit-'));
  const database: TestDatabase = await createTestDatabase(dir);
  const db: Database = openDatabase(database.url);
  await db.migrate();
  const limiter = new DatabaseRateLimiter(db, 3);
  return {
    limiter,
    done: async () => {
      await limiter.close();
      await db.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('database rate limiter sweep', () => {
  it('deletes windows that ended over a minute ago and keeps a long window that is still running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payments-limit-'));
    const database = await createTestDatabase(dir);
    const db = openDatabase(database.url);
    const sql = knexFor(database.url);
    const limiter = new DatabaseRateLimiter(db, 3);
    try {
      await db.migrate();
      const at = 1_800_000_000_250;
      const long = { limit: 2, seconds: 600 };
      await limiter.hit('key:short', at);
      await limiter.hit('page-link:long', at, long);
      await limiter.hit('page-link:long', at, long);
      expect(await limiter.sweep(at + 30_000)).toBe(0);
      expect(await limiter.sweep(at + 120_000)).toBe(1);
      expect((await sql('rate_limit_windows').select('bucket')).map((row: { bucket: string }) => row.bucket)).toEqual(['page-link:long']);
      expect((await limiter.hit('page-link:long', at + 120_000, long)).allowed).toBe(false);
      expect(await limiter.sweep(at + 600_000 + 61_000)).toBe(1);
    } finally {
      await limiter.close();
      await sql.destroy();
      await db.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const redisReachable = await redisAnswers();
if (!redisReachable) console.warn(`!! Redis rate limiter tests SKIPPED: no Redis at ${REDIS_URL}`);
describe.skipIf(!redisReachable)('redis', () => {
  limiterContract('redis', async () => {
    const limiter = new RedisRateLimiter(REDIS_URL, 3);
    return { limiter, done: () => limiter.close() };
  });
});
