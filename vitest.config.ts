// Three projects: the service's suites (test/), which `npm test` runs on SQLite and again on
// PostgreSQL; the suites whose subject does not depend on the database (`ONCE`: pure modules, what a
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

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one file fewer than the cores, so one file at a time on CI's two: most files
    // wait on sockets, timers and child processes, and a second file in parallel uses the idle core.
    maxWorkers: Math.max(2, availableParallelism()),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'service', include: ['test/**/*.test.ts'], exclude: ONCE } },
      { extends: true, test: { name: 'once', include: ONCE } },
      'tools/stripe-standin',
    ],
  },
});
