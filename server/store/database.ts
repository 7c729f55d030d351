// Opening the database DATABASE_URL names: the embedded SQLite file by default, PostgreSQL for
// production and several instances. Both are an Executor (executor.ts); migrations run through Knex's
// migrator on a connection of their own, before the service uses the database.
import knex, { type Knex } from 'knex';
import type { Executor } from './executor.js';
import { migrateLatest } from './migrate.js';
import { PostgresExecutor } from './postgres.js';
import { SQLITE_PRAGMAS, SqliteExecutor } from './sqlite.js';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/payments.sqlite';

export interface Database extends Executor {
  readonly url: string;
  /** Brings the schema up to date (instances started together take turns). Returns the migrations applied. */
  migrate(): Promise<string[]>;
  /** Resolves when the database answers a trivial query within `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
  /** Finishes the writes under way and closes every connection. */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL: the longest a statement may run (statement_timeout). */
  statementTimeoutMs?: number;
  /** PostgreSQL: connections in the pool. */
  poolMax?: number;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

function sqliteFilename(url: string): string | undefined {
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;
}

function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

export function assertDatabaseUrl(url: string): void {
  const filename = sqliteFilename(url);
  if (filename === ':memory:')
    throw new Error('DATABASE_URL sqlite::memory: is not supported: the service reads and writes on two connections, which an in-memory database cannot share');
  if (filename === undefined && !isPostgresUrl(url)) throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://..., got ${JSON.stringify(url)}`);
}

/** A Knex instance with a connection, for the migrator and for tools that inspect tables; never the service's data path. */
export function knexFor(url: string): Knex {
  assertDatabaseUrl(url);
  const filename = sqliteFilename(url);
  if (filename !== undefined) {
    return knex({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: { pragma(sql: string): unknown }, done: (error: Error | null, conn: unknown) => void) {
          try {
            for (const pragma of SQLITE_PRAGMAS) conn.pragma(pragma);
            done(null, conn);
          } catch (error) {
            done(error as Error, conn);
          }
        },
      },
    });
  }
  return knex({ client: 'pg', connection: { connectionString: url, options: '-c TimeZone=UTC' }, pool: { min: 0, max: 2 } });
}

/** The database behind `url`, ready to use once migrated. */
export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  assertDatabaseUrl(url);
  const filename = sqliteFilename(url);
  const executor =
    filename !== undefined
      ? new SqliteExecutor(filename)
      : new PostgresExecutor(url, { statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS, poolMax: options.poolMax ?? 10 });
  return Object.assign(executor, {
    url,
    async migrate() {
      const migrator = knexFor(url);
      try {
        return await migrateLatest(migrator);
      } finally {
        await migrator.destroy();
      }
    },
    async ping(timeoutMs: number) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)));
      try {
        await Promise.race([executor.first(executor.sql.raw('select 1 as one')), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
