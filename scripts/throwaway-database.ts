// A PostgreSQL database made for one run and dropped after it, on a server reached by an admin URL
// (such as postgres://postgres@127.0.0.1:5432/postgres): the test suites' databases and the bench's.
import pg from 'pg';

/** In a test run's database names, marks its migrated templates (test/support/database.ts). */
export const TEMPLATE_MARK = 'template_';

export interface ThrowawayDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Runs `work` on a connection of its own to the admin URL, closed afterwards. */
export async function asPostgresAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates the database `name` (letters, digits and underscores) beside the admin URL's. */
export async function createThrowawayDatabase(adminUrl: string, name: string): Promise<ThrowawayDatabase> {
  if (!/^\w+$/.test(name)) throw new Error(`not a database name for a throwaway database: ${name}`);
  await asPostgresAdmin(adminUrl, (client) => client.query(`create database "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asPostgresAdmin(adminUrl, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}
