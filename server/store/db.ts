// One Knex configuration for both databases: SQLite (embedded default) and PostgreSQL (production).
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import knex, { type Knex } from 'knex';
import pg from 'pg';

export type Db = Knex;
export type Executor = Knex | Knex.Transaction;

export const DEFAULT_DATABASE_URL = 'sqlite:./data/payments.sqlite';

// timestamptz arrives as text in the session's time zone (UTC, set below) so we keep its six
// fractional digits; pg's default parser would give a Date with milliseconds only.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (value) => value);
// COUNT(*) and SUM over bigint arrive as int8; keep them as text and convert where they are read.

export function isPostgres(db: Executor): boolean {
  return db.client.config.client === 'pg';
}

export function knexConfig(databaseUrl: string): Knex.Config {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(resolve(filename)), { recursive: true });
    return {
      client: 'sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        // Knex opens SQLite with a rollback journal, a 1 s busy timeout and foreign keys off.
        afterCreate(conn: { exec(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) {
          conn.exec(
            'PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON;',
            (err) => done(err, conn),
          );
        },
      },
    };
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return {
      client: 'pg',
      connection: { connectionString: databaseUrl, options: '-c TimeZone=UTC' },
      pool: { min: 0, max: Number(process.env.DATABASE_POOL_MAX ?? 10) },
    };
  }
  throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://..., got ${JSON.stringify(databaseUrl)}`);
}

export function connect(databaseUrl: string): Db {
  return knex(knexConfig(databaseUrl));
}
