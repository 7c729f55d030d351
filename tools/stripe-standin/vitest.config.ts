// The stand-in's own suites. They need no database, so the repository's `npm test` runs them once (its
// PostgreSQL run selects the service's project only); `npm test` in this folder runs them alone.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'stripe-standin',
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
