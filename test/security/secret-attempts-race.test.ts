// Attempts at a member's secrets are counted before they are checked, by the limiter's atomic hit, in
// whichever store it counts in: 40 and 100 wrong passwords sent together at one account, 100 at as
// many accounts from one address, and 40 wrong TOTP codes sent with the right password get no more
// checks than the limit (each check answers 401; the rest 429 with Retry-After), on the memory, the
// database (SQLite, or PostgreSQL under TEST_POSTGRES_URL) and the Redis limiter (skipped without a
// Redis at TEST_REDIS_URL or 127.0.0.1:6379). Check-then-count let every request in flight through.
// Attempts that pass are given back in each store.
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimitConfig } from '../../server/rate-limits/backends.js';
import { PASSWORD, call, member, sessionCookieOf, signIn, totpCode } from '../support/members.js';
import { useService, type TestService } from '../support/service.js';
import { REDIS_URL, redisAnswers } from '../support/redis.js';
import { clearOfWindowEdge } from '../support/window-edge.js';

const redisReachable = await redisAnswers();
if (!redisReachable) console.warn(`!! Redis secret-attempt race tests SKIPPED: no Redis at ${REDIS_URL}`);

const PER_ACCOUNT = 10;
const PER_ADDRESS = 20;
const LIMITS = {
  perAccount: { limit: PER_ACCOUNT, seconds: 900 },
  perAddress: { limit: PER_ADDRESS, seconds: 900 },
  accountCeiling: { limit: 1_000, seconds: 900 },
};

/** An address of this run's own (a Redis outlives the run, and other runs may share it), sent as the proxy's X-Forwarded-For. */
const freshAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
/** The same, as an IPv6 address (counted by its /64, the longest name a bucket gets). */
const freshIpv6Address = () => `2001:db8:${randomInt(65_536).toString(16)}:${randomInt(65_536).toString(16)}:ffff:ffff:ffff:${randomInt(65_536).toString(16)}`;

async function burst(t: TestService, address: string, bodies: object[]): Promise<{ checked: number; throttled: number }> {
  await clearOfWindowEdge(900, 5);
  const answers = await Promise.all(bodies.map((body) => call(t, 'POST', '/api/auth/login', { body, headers: { 'X-Forwarded-For': address } })));
  for (const answer of answers) {
    expect([401, 429], JSON.stringify(answer.body)).toContain(answer.status);
    if (answer.status === 429) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  return { checked: answers.filter((a) => a.status === 401).length, throttled: answers.filter((a) => a.status === 429).length };
}

const wrongPasswords = (email: string, count: number) => Array.from({ length: count }, (_, i) => ({ email, password: `wrong-guess-${i}-abcdefg` }));

function raceSuite(store: RateLimitConfig['store']) {
  const t = useService({ rateLimit: { store, redisUrl: store === 'redis' ? REDIS_URL : undefined }, trustProxyHops: 1, signInLimits: LIMITS });

  it.each([40, 100])(
    `${store}: %i wrong passwords at one account sent together get at most ${PER_ACCOUNT} checks`,
    async (count) => {
      const { email } = await member(t, t.a.business.id, 'viewer');
      const { checked, throttled } = await burst(t, freshAddress(), wrongPasswords(email, count));
      expect(checked).toBeLessThanOrEqual(PER_ACCOUNT);
      expect(checked + throttled).toBe(count);
      // Checked ones, and no more, are the failures in the audit log.
      const failures = await t.sql('audit_events').where({ action: 'auth.login_failed', actor_label: email }).count({ count: '*' });
      expect(Number((failures[0] as { count: number | string }).count)).toBe(checked);
    },
    120_000,
  );

  it(`${store}: gives back an attempt that passed: more sign-ins than the limit, one after another, all get in`, async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const address = freshAddress();
    for (let i = 0; i < PER_ACCOUNT + 2; i++)
      expect((await call(t, 'POST', '/api/auth/login', { body: { email, password: PASSWORD }, headers: { 'X-Forwarded-For': address } })).status).toBe(200);
  }, 120_000);

  it(`${store}: 100 wrong passwords at 100 accounts from one address sent together get at most ${PER_ADDRESS} checks`, async () => {
    const bodies = Array.from({ length: 100 }, (_, i) => ({ email: `nobody-${i}-${randomInt(1e9)}@example.com`, password: 'wrong-guess-abcdefg' }));
    const { checked } = await burst(t, freshAddress(), bodies);
    expect(checked).toBeLessThanOrEqual(PER_ADDRESS);
  }, 120_000);

  it(`${store}: 40 wrong TOTP codes sent together with the right password, from an IPv6 address, get at most ${PER_ACCOUNT} checks`, async () => {
    const { email } = await member(t, t.a.business.id, 'viewer');
    const address = freshIpv6Address();
    const session = await signIn(t, email);
    const offer = await call(t, 'POST', '/api/auth/totp', { cookie: session.cookie, csrf: session.csrf });
    const secret: string = offer.body.data.secret;
    const confirmed = await call(t, 'POST', '/api/auth/totp/confirm', { cookie: session.cookie, csrf: session.csrf, body: { code: totpCode(secret) } });
    expect(confirmed.status).toBe(200);
    expect(sessionCookieOf(confirmed)).toBeTruthy();
    const good = new Set([-1, 0, 1, 2].map((steps) => totpCode(secret, steps)));
    const guesses: string[] = [];
    while (guesses.length < 40) {
      const guess = String(randomInt(1_000_000)).padStart(6, '0');
      if (!good.has(guess)) guesses.push(guess);
    }
    const answers = await burst(
      t,
      address,
      guesses.map((totp_code) => ({ email, password: PASSWORD, totp_code })),
    );
    expect(answers.checked).toBeLessThanOrEqual(PER_ACCOUNT);
    expect(answers.checked + answers.throttled).toBe(40);
  }, 120_000);
}

describe('memory limiter', () => raceSuite('memory'));
describe('database limiter', () => raceSuite('database'));
describe.skipIf(!redisReachable)('redis limiter', () => raceSuite('redis'));
