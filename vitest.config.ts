// Two projects: the service's suites (test/), which `npm test` runs on SQLite and again on PostgreSQL,
// and the Stripe stand-in's own (tools/stripe-standin/, its own config), which need no database and
// run once. `npx vitest run <file>` finds a file in either.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [{ extends: true, test: { name: 'service', include: ['test/**/*.test.ts'] } }, 'tools/stripe-standin'],
  },
});
