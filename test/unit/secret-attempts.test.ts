// The one throttle of every check of a member's secrets (server/rate-limits/secret-attempts.ts), over the
// memory limiter with a clock of its own: attempts counted before they are checked (of those in flight
// together no more than the limit go on), a passing one given back, delays that grow as limits are used
// up again, a limit per address across accounts, and the member told once a window. The ceiling per
// account and the addresses it lets through need the database: test/api/auth-lockout.test.ts.
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../server/rate-limits/backends.js';
import { SecretAttemptLimiter, type SecretAttempt, type SignInLimits } from '../../server/rate-limits/secret-attempts.js';
import type { RateLimitWindow } from '../../server/rate-limits/limiter.js';
import type { Executor } from '../../server/store/executor.js';

/** A day's start (so 15-minute, hour and day windows all begin here), plus a second. */
const DAY = 1_800_057_600_000;
const T0 = DAY + 1_000;

function throttle(limits: Partial<SignInLimits>): SecretAttemptLimiter {
  // Nothing here runs the ceiling up, the one rule that reads the database.
  const noDatabase = {} as Executor;
  return new SecretAttemptLimiter(new MemoryRateLimiter(100), noDatabase, {
    perAccount: { limit: 1_000, seconds: 900 },
    perAddress: { limit: 1_000, seconds: 900 },
    accountCeiling: { limit: 1_000_000, seconds: 900 },
    noticeAfter: 1_000,
    ...limits,
  });
}

const account = (email = 'member@example.com') => ({ email, userId: undefined });

async function fail(attempt: SecretAttempt): Promise<boolean> {
  if (attempt.kind !== 'counted') throw new Error(`throttled for ${attempt.retryAfter} s`);
  return attempt.failed();
}

describe('the secret-attempt throttle', () => {
  it('counts attempts before they are checked: of 40 in flight together, 10 go on', async () => {
    const limiter = throttle({ perAccount: { limit: 10, seconds: 900 } });
    const attempts = await Promise.all(Array.from({ length: 40 }, () => limiter.attempt(account(), '192.0.2.1', T0)));
    expect(attempts.filter((a) => a.kind === 'counted')).toHaveLength(10);
    expect(attempts.filter((a) => a.kind === 'throttled')).toHaveLength(30);
  });

  it('gives an attempt that passed back, so a member who signs in often is not held back', async () => {
    const limiter = throttle({ perAccount: { limit: 2, seconds: 900 } });
    for (let i = 0; i < 10; i++) {
      const attempt = await limiter.attempt(account(), '192.0.2.1', T0 + i);
      if (attempt.kind !== 'counted') throw new Error('throttled');
      await attempt.passed();
    }
    await fail(await limiter.attempt(account(), '192.0.2.1', T0 + 20));
  });

  it('holds one account back from one address, not another account, nor the account from another address', async () => {
    const limiter = throttle({ perAccount: { limit: 2, seconds: 900 } });
    for (let i = 0; i < 2; i++) await fail(await limiter.attempt(account(), '192.0.2.1', T0));
    expect(await limiter.attempt(account(' MEMBER@example.com '), '192.0.2.1', T0)).toMatchObject({ kind: 'throttled' });
    expect((await limiter.attempt(account('other@example.com'), '192.0.2.1', T0)).kind).toBe('counted');
    expect((await limiter.attempt(account(), '192.0.2.2', T0)).kind).toBe('counted');
  });

  it('holds an address back across accounts, an IPv6 /64 as one address', async () => {
    const limiter = throttle({ perAddress: { limit: 3, seconds: 900 } });
    for (let i = 0; i < 3; i++) await fail(await limiter.attempt(account(`m${i}@example.com`), `2001:db8:1:2::${i + 1}`, T0));
    expect(await limiter.attempt(account('m9@example.com'), '2001:db8:1:2:ffff::9', T0)).toMatchObject({ kind: 'throttled' });
    expect((await limiter.attempt(account('m9@example.com'), '2001:db8:1:3::1', T0)).kind).toBe('counted');
  });

  it('makes the wait grow as the limit is used up again, to the hour’s end and then the day’s, and lets at most 4 times the limit through in a day', async () => {
    const limiter = throttle({ perAccount: { limit: 2, seconds: 900 } });
    // Someone who tries again the moment they are let, all day.
    let now = T0;
    let failures = 0;
    const waits: number[] = [];
    while (now < DAY + 86_400_000) {
      const attempt = await limiter.attempt(account(), '192.0.2.1', now);
      if (attempt.kind === 'counted') {
        await attempt.failed();
        failures += 1;
      } else {
        waits.push(attempt.retryAfter);
        now += attempt.retryAfter * 1_000;
      }
    }
    expect(waits[0]).toBe(899);
    expect(waits[1]).toBe(3_600 - 900);
    expect(Math.max(...waits)).toBeGreaterThan(20 * 3_600);
    // Refusals count too, so someone who keeps trying gets fewer checks than the day's limit.
    expect(failures).toBeGreaterThanOrEqual(2);
    expect(failures).toBeLessThanOrEqual(8);
    // The next day starts afresh.
    await fail(await limiter.attempt(account(), '192.0.2.1', DAY + 86_400_000 + 1_000));
  });

  it('says to tell the member once a window, once failures reach the threshold', async () => {
    const limiter = throttle({ noticeAfter: 3 });
    const told: boolean[] = [];
    for (let i = 0; i < 10; i++) told.push(await fail(await limiter.attempt(account(), `192.0.2.${i + 1}`, T0 + i)));
    expect(told).toEqual([false, false, true, false, false, false, false, false, false, false]);
    // The next window, again once.
    const next: boolean[] = [];
    for (let i = 0; i < 5; i++) next.push(await fail(await limiter.attempt(account(), `192.0.2.${i + 1}`, T0 + 900_000 + i)));
    expect(next).toEqual([false, false, true, false, false]);
  });

  it('names its buckets within the 80 characters the database keeps, for the longest address and e-mail', async () => {
    const buckets: string[] = [];
    const memory = new MemoryRateLimiter(100);
    const recording = Object.assign(Object.create(memory) as MemoryRateLimiter, {
      hit: (bucket: string, now?: number, window?: RateLimitWindow) => {
        buckets.push(bucket);
        return memory.hit(bucket, now, window);
      },
    });
    const limiter = new SecretAttemptLimiter(recording, {} as Executor, {
      perAccount: { limit: 1, seconds: 86_400 },
      perAddress: { limit: 1_000, seconds: 86_400 },
      accountCeiling: { limit: 1_000, seconds: 86_400 },
      noticeAfter: 1,
    });
    const email = `${'x'.repeat(240)}@example.com`;
    await fail(await limiter.attempt(account(email), 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', T0));
    expect(await limiter.attempt(account(email), 'ffff:ffff:ffff:ffff::1', T0)).toMatchObject({ kind: 'throttled' });
    expect(buckets.length).toBeGreaterThan(9);
    expect(Math.max(...buckets.map((bucket) => bucket.length))).toBeLessThanOrEqual(80);
  });
});
