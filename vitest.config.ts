// Four projects: the service's suites (test/), which `npm test` runs on SQLite and again on
// PostgreSQL, most of them two files at a time (`service`) and those bound to the clock after them,
// one at a time (`service-clock`); the suites whose subject does not depend on the database (`ONCE`: pure modules, what a
// browser renders, third-party and packaged clients, the console's serving), which run once, on the
// embedded default, since a second run on PostgreSQL would test the same code again and costs CI
// minutes (every workflow they drive is covered on both databases by api/, payer/, acquirers/ and the
// rest); and the Stripe stand-in's own (tools/stripe-standin/, its own config), which need no
// database. `npx vitest run <file>` finds a file in any of them.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export const ONCE = [
  'test/unit/**/*.test.ts',
  'test/contract/**/*.test.ts',
  'test/client-package/**/*.test.ts',
  'test/console/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/security/xss.test.ts',
];

/**
 * The service's suites whose tests hold the service to wall-clock windows (an expiry seconds ahead, a
 * session's lifetime, sign-in times compared, one-second rate windows, writes counted between kills of
 * a child process, every answer of the edge suite within 2 s): they run after the others, one file at a time, so no other file's work stretches
 * their windows. Every other file runs beside another (maxWorkers).
 */
export const CLOCK_BOUND = [
  'test/api/auth.test.ts',
  'test/api/auth-password-reset.test.ts',
  'test/api/lifecycle.test.ts',
  'test/api/rate-limit.test.ts',
  'test/security/edges.test.ts',
  'test/crash/**/*.test.ts',
  'test/deploy/**/*.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one file fewer than the cores, so one file at a time on CI's two: most files
    // wait on sockets, timers and child processes, and a second file in parallel uses the idle core.
    maxWorkers: Math.max(2, availableParallelism()),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'service', include: ['test/**/*.test.ts'], exclude: [...ONCE, ...CLOCK_BOUND] } },
      // A browser test visits several payer pages at two widths and runs axe on each: beside another
      // browser file on two cores one took 25-30 s where it takes 10-20 s alone, so these get longer.
      { extends: true, test: { name: 'once', include: ONCE, testTimeout: 90_000 } },
      'tools/stripe-standin',
      { extends: true, test: { name: 'service-clock', include: CLOCK_BOUND, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
