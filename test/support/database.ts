// The database a test runs on. By default an SQLite file in the test's own folder; when the suite
// runs against PostgreSQL (TEST_POSTGRES_URL, an admin URL such as
// postgres://postgres@127.0.0.1:5432/postgres), a database of its own with a unique name, dropped
// when the test is done, so runs never see each other's data.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createThrowawayDatabase } from '../../scripts/throwaway-database.js';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL;
/** Every database of one run shares this prefix, so the runner can drop leftovers of a crashed run. */
export const TEST_DATABASE_PREFIX = `payments_test_${process.env.TEST_RUN_ID ?? 'local'}_`;

export interface TestDatabase {
  url: string;
  kind: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

export async function createTestDatabase(dir: string): Promise<TestDatabase> {
  if (!TEST_POSTGRES_URL) return { url: `sqlite:${join(dir, 'test.sqlite')}`, kind: 'sqlite', drop: async () => {} };
  const database = await createThrowawayDatabase(TEST_POSTGRES_URL, `${TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`);
  return { ...database, kind: 'postgres' };
}
