// One Knex configuration for both databases: SQLite (embedded default) and PostgreSQL (production).
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import knex, { type Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type Database from 'better-sqlite3';
import { SqliteFastPath, registerFastPath } from './sqlite-fast.js';

export type Db = Knex;
export type Executor = Knex | Knex.Transaction;

export const DEFAULT_DATABASE_URL = 'sqlite:./data/payments.sqlite';

/**
 * The pg driver, loaded only for PostgreSQL (an embedded instance never pays for it). timestamptz is
 * kept as text in the session's time zone (UTC, set below) so its six fractional digits survive; pg's
 * default parser would give a Date with milliseconds only. COUNT(*) and SUM over bigint arrive as
 * int8 text and are converted where they are read.
 */
function loadPg(): void {
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (value: string) => value);
}

interface SqliteConnection {
  pragma(sql: string): unknown;
  prepare(sql: string): unknown;
}

/**
 * Knex prepares every statement afresh on better-sqlite3; preparing cost more than running the query
 * (measured in the bench). Knex sends the same SQL text with different bindings, so statements are
 * kept per connection, a bounded number of them. Knex never changes a statement's modes, so reuse
 * is safe, and SQLite re-prepares a statement by itself after a schema change.
 */
function cachePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const statements = new LRUCache<string, object>({ max: 500 });
  conn.prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = prepare(sql) as object;
      statements.set(sql, statement);
    }
    return statement;
  };
}

export function isPostgres(db: Executor): boolean {
  return db.client.config.client === 'pg';
}

export function knexConfig(databaseUrl: string, fastPath?: SqliteFastPath): Knex.Config {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(resolve(filename)), { recursive: true });
    return {
      // better-sqlite3 runs each statement synchronously on the calling thread: no thread-pool hop per
      // query, which with one connection was where requests spent their time (measured in the bench).
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        // Knex opens SQLite with a rollback journal, a short busy timeout and foreign keys off.
        afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
          try {
            for (const pragma of ['journal_mode = WAL', 'synchronous = FULL', 'busy_timeout = 10000', 'foreign_keys = ON']) conn.pragma(pragma);
            cachePreparedStatements(conn);
            fastPath?.adoptWriter(conn as unknown as Database.Database);
            done(null, conn);
          } catch (error) {
            done(error as Error, conn);
          }
        },
      },
    };
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    loadPg();
    return {
      client: 'pg',
      connection: { connectionString: databaseUrl, options: '-c TimeZone=UTC' },
      pool: { min: 0, max: Number(process.env.DATABASE_POOL_MAX ?? 10) },
    };
  }
  throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://..., got ${JSON.stringify(databaseUrl)}`);
}

export function connect(databaseUrl: string): Db {
  const filename = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined;
  // An in-memory database is private to its connection, so it cannot have a second, reading one.
  const fastPath = filename && filename !== ':memory:' ? new SqliteFastPath(filename) : undefined;
  const db = knex(knexConfig(databaseUrl, fastPath));
  if (fastPath) registerFastPath(db, fastPath);
  return db;
}
