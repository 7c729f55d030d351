// The one way store functions reach a database. Every store function builds its SQL with the
// executor's Knex query builder (`exec.sql`) and runs it through `all`, `first` or `run`; it never
// chooses a connection, a driver call or a transaction mode. How a statement runs is the
// executor's business, by one rule per database (see sqlite.ts and postgres.ts).
import type { Knex } from 'knex';

/** A statement as the drivers take it: SQL in the database's own placeholder syntax and its values. */
export interface CompiledQuery {
  sql: string;
  bindings: readonly unknown[];
}

/** A query built with `exec.sql`, or one compiled ahead of time (see prepared.ts). */
export type Query = Knex.QueryBuilder | Knex.Raw | CompiledQuery;

export type Dialect = 'sqlite' | 'postgres';

export interface Executor {
  readonly dialect: Dialect;
  /** Builds queries in this executor's dialect. Built queries do not run by themselves: pass them to the methods below. */
  readonly sql: Knex;
  /** Every row of a query (a SELECT, or a write with RETURNING). */
  all<Row = Record<string, unknown>>(query: Query): Promise<Row[]>;
  /** The first row, or undefined. */
  first<Row = Record<string, unknown>>(query: Query): Promise<Row | undefined>;
  /** Runs a write and resolves with the number of rows it changed, once it is durable. */
  run(query: Query): Promise<number>;
  /**
   * Runs `work` in one transaction: its statements commit together or not at all. Inside, `tx` is
   * the executor to use; a transaction opened on `tx` is a savepoint of the outer one.
   */
  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T>;
}

export function compile(query: Query): CompiledQuery {
  if ('toSQL' in query) {
    const native = query.toSQL().toNative();
    return { sql: native.sql, bindings: native.bindings };
  }
  return query;
}
