// The executor for PostgreSQL: a pg pool, one rule for every statement. A statement outside a
// transaction takes any pooled connection; a transaction holds one connection from BEGIN to COMMIT
// and nests as savepoints. PostgreSQL runs concurrent transactions and groups commits itself.
import { createRequire } from 'node:module';
import knex, { type Knex } from 'knex';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { compile, type Executor, type Query } from './executor.js';

let builder: Knex | undefined;

export interface PostgresOptions {
  /** Longest a statement may run before PostgreSQL cancels it, so no request can hold a connection for long. */
  statementTimeoutMs: number;
  poolMax: number;
}

/**
 * The pg driver, loaded only for PostgreSQL (an embedded instance never pays for it). timestamptz is
 * kept as text in the session's time zone (UTC) so its six fractional digits survive; pg's default
 * parser would give a Date with milliseconds only; a date as its text too. COUNT(*) and SUM over bigint arrive as int8 text
 * and are converted where they are read.
 */
function loadPg(): typeof import('pg') {
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (value: string) => value);
  // A date (a payment's local_day, a counter's day) as its text `YYYY-MM-DD`, as SQLite keeps it: pg's
  // default makes it a Date at midnight in the process's own zone, which is another day elsewhere.
  pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);
  return pg;
}

type Queryable = Pick<Pool, 'query'> | PoolClient;

async function execute(on: Queryable, query: Query): Promise<QueryResult> {
  const { sql, bindings } = compile(query);
  return on.query(sql, bindings as unknown[]);
}

class PostgresTransaction implements Executor {
  readonly dialect = 'postgres';
  readonly sql: Knex = builder!;

  constructor(
    private readonly client: PoolClient,
    private readonly depth: number,
  ) {}

  async all<Row>(query: Query): Promise<Row[]> {
    return (await execute(this.client, query)).rows as Row[];
  }

  async first<Row>(query: Query): Promise<Row | undefined> {
    return (await this.all<Row>(query))[0];
  }

  async run(query: Query): Promise<number> {
    return (await execute(this.client, query)).rowCount ?? 0;
  }

  async transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    const name = `tx${this.depth}`;
    await this.client.query(`SAVEPOINT ${name}`);
    try {
      const value = await work(new PostgresTransaction(this.client, this.depth + 1));
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      return value;
    } catch (error) {
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }
}

export class PostgresExecutor implements Executor {
  readonly dialect = 'postgres';
  readonly sql: Knex;
  readonly pool: Pool;

  constructor(
    readonly url: string,
    options: PostgresOptions,
  ) {
    const pg = loadPg();
    this.sql = builder ??= knex({ client: 'pg' });
    this.pool = new pg.Pool({ connectionString: url, options: '-c TimeZone=UTC', statement_timeout: options.statementTimeoutMs, max: options.poolMax });
    // An idle connection that the server drops (restart, failover) must not crash the process.
    this.pool.on('error', () => {});
  }

  async all<Row>(query: Query): Promise<Row[]> {
    return (await execute(this.pool, query)).rows as Row[];
  }

  async first<Row>(query: Query): Promise<Row | undefined> {
    return (await this.all<Row>(query))[0];
  }

  async run(query: Query): Promise<number> {
    return (await execute(this.pool, query)).rowCount ?? 0;
  }

  async transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      try {
        const value = await work(new PostgresTransaction(client, 0));
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
