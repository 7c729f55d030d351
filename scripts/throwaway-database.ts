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

/**
 * Creates the database `name` (letters, digits and underscores) beside the admin URL's: empty, or a copy
 * of `template`. PostgreSQL copies a template only while no session is connected to it; the sessions of
 * whoever built it can take a moment to end after their pool closes, so a refusal for that (55006) is
 * tried again.
 */
export async function createThrowawayDatabase(adminUrl: string, name: string, template?: string): Promise<ThrowawayDatabase> {
  for (const each of [name, template ?? name]) if (!/^\w+$/.test(each)) throw new Error(`not a database name for a throwaway database: ${each}`);
  const create = template ? `create database "${name}" template "${template}"` : `create database "${name}"`;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await asPostgresAdmin(adminUrl, (client) => client.query(create));
      break;
    } catch (error) {
      if (!template || (error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asPostgresAdmin(adminUrl, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}
