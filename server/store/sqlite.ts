// The executor of the embedded database: two better-sqlite3 connections to one WAL file, one rule
// for every statement.
//  - A read outside a transaction runs on a read-only connection of its own: WAL gives it the last
//    committed state, it never waits for the writer, and no queue stands between it and SQLite.
//    A read whose statement once held the main thread longer than OFF_THREAD_AFTER_MS runs from then
//    on in a worker thread, on a read-only connection there (sqlite-reader-thread.ts), so a long page
//    or count of one business does not hold every other request; short reads stay on the main thread,
//    where they cost less than the trip to the worker and back. One slow run can be the machine's (a
//    garbage collection, another process on the core) rather than the read's, so a read that then runs
//    short in the worker BACK_ON_THREAD_AFTER_RUNS times in a row comes back.
//  - Everything that writes runs on the writer connection, in group commits: the writes and
//    transactions queued while the previous commit ran are run one after the other inside one
//    BEGIN IMMEDIATE ... COMMIT (one fsync for all of them), each in a savepoint of its own, so one
//    failing does not sink the others. A caller is answered only after that COMMIT, so every
//    acknowledged write is durable (synchronous = FULL).
//  - Statements are prepared once per connection and kept (SQLite re-prepares one by itself after a
//    schema change); rows are read as arrays and named here, which is cheaper than the driver
//    building each row object.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import knex, { type Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { compile, type Executor, type Query } from './executor.js';
import { SqliteReaderThread } from './sqlite-reader-thread.js';

type Statement = Database.Statement<unknown[], unknown>;

/** Set on every connection: Knex's and the driver's defaults are a rollback journal, a short busy timeout and no foreign keys. */
export const SQLITE_PRAGMAS = ['journal_mode = WAL', 'synchronous = FULL', 'busy_timeout = 10000', 'foreign_keys = ON'];

const builder = knex({ client: 'better-sqlite3', useNullAsDefault: true });

/**
 * A read whose statement took longer than this on the main thread runs in the reader thread from then
 * on. Above the cost of a read by key (well under a millisecond) and of the trip to the worker, below
 * a page of a hundred rows or a count over thousands of index entries, which several requests at once
 * would add up to the stall the service is held to (a few tens of milliseconds).
 */
export const OFF_THREAD_AFTER_MS = 1;

/**
 * How many runs in a row under half OFF_THREAD_AFTER_MS in the reader thread bring a read back to the
 * main thread: a read by key sent there by one slow run would otherwise pay the trip on every request
 * for the life of the process. Half, so that a read near the line does not go back and forth.
 */
export const BACK_ON_THREAD_AFTER_RUNS = 8;

/** better-sqlite3 takes neither booleans nor Dates; store them as Knex's SQLite dialect does. */
function sqliteBindings(bindings: readonly unknown[]): unknown[] {
  return bindings.map((value) => (typeof value === 'boolean' ? Number(value) : value instanceof Date ? value.valueOf() : value));
}

interface Prepared {
  statement: Statement;
  /** Column names of a statement that returns rows, read in raw mode and named here. */
  columns: string[];
}

/** A connection's statements, prepared once and kept (a bounded number). */
class Statements {
  private readonly cache = new LRUCache<string, Prepared>({ max: 500 });

  constructor(readonly connection: Database.Database) {}

  get(sql: string): Prepared {
    let prepared = this.cache.get(sql);
    if (!prepared) {
      const statement = this.connection.prepare(sql);
      if (statement.reader) statement.raw(true);
      prepared = { statement, columns: statement.reader ? statement.columns().map((column) => column.name) : [] };
      this.cache.set(sql, prepared);
    }
    return prepared;
  }

  all<Row>(sql: string, bindings: readonly unknown[]): Row[] {
    const prepared = this.get(sql);
    if (!prepared.statement.reader) {
      prepared.statement.run(...sqliteBindings(bindings));
      return [];
    }
    const rows = prepared.statement.all(...sqliteBindings(bindings)) as unknown[][];
    return rows.map((values) => named<Row>(columnsFor(prepared, values), values));
  }

  run(sql: string, bindings: readonly unknown[]): number {
    const prepared = this.get(sql);
    if (prepared.statement.reader) return prepared.statement.all(...sqliteBindings(bindings)).length;
    return prepared.statement.run(...sqliteBindings(bindings)).changes;
  }

  clear(): void {
    this.cache.clear();
  }
}

/** SQLite re-prepares a statement after a schema change, and a `select *` may then return other columns. */
function columnsFor(prepared: Prepared, values: unknown[]): string[] {
  if (values.length !== prepared.columns.length) prepared.columns = prepared.statement.columns().map((column) => column.name);
  return prepared.columns;
}

/** Like the driver's own rows: a repeated column name keeps its last value. */
function named<Row>(columns: string[], values: unknown[]): Row {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i += 1) row[columns[i]!] = values[i];
  return row as Row;
}

function open(filename: string, readOnly: boolean): Database.Database {
  const connection = new Database(filename);
  for (const pragma of SQLITE_PRAGMAS) if (!readOnly || !pragma.startsWith('journal_mode')) connection.pragma(pragma);
  // query_only rather than the driver's readonly flag, which SQLite refuses on a WAL database whose
  // shared-memory file does not exist yet.
  if (readOnly) connection.pragma('query_only = ON');
  return connection;
}

/** Statements on the writer inside one transaction (or savepoint) of the group commit under way. */
class SqliteTransaction implements Executor {
  readonly dialect = 'sqlite';
  readonly sql = builder;

  constructor(
    private readonly writer: Statements,
    private readonly depth: number,
  ) {}

  async all<Row>(query: Query): Promise<Row[]> {
    const { sql, bindings } = compile(query);
    return this.writer.all<Row>(sql, bindings);
  }

  async first<Row>(query: Query): Promise<Row | undefined> {
    return (await this.all<Row>(query))[0];
  }

  async run(query: Query): Promise<number> {
    const { sql, bindings } = compile(query);
    return this.writer.run(sql, bindings);
  }

  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return inSavepoint(this.writer.connection, `tx${this.depth}`, () => work(new SqliteTransaction(this.writer, this.depth + 1)));
  }
}

async function inSavepoint<T>(connection: Database.Database, name: string, work: () => T | Promise<T>): Promise<T> {
  connection.exec(`SAVEPOINT ${name}`);
  try {
    const value = await work();
    connection.exec(`RELEASE ${name}`);
    return value;
  } catch (error) {
    // A failed statement can end the whole transaction by itself (e.g. SQLITE_FULL); then there is nothing to roll back to.
    if (connection.inTransaction) {
      connection.exec(`ROLLBACK TO ${name}`);
      connection.exec(`RELEASE ${name}`);
    }
    throw error;
  }
}

interface Job {
  run: (tx: SqliteTransaction) => unknown;
  /**
   * A transaction gets a savepoint of its own; a single statement needs none, because SQLite undoes
   * a failing statement by itself and leaves the rest of the transaction as it was.
   */
  savepoint: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class SqliteExecutor implements Executor {
  readonly dialect = 'sqlite';
  readonly sql: Knex = builder;
  private writerStatements: Statements | undefined;
  private readerStatements: Statements | undefined;
  /** Whether a statement only reads, learnt once per SQL text. */
  private readonly readOnly = new LRUCache<string, boolean>({ max: 2_000 });
  /** The reads that proved long on the main thread, by SQL text, with how many short runs in a row they have had since. */
  private readonly long = new LRUCache<string, { shortRuns: number }>({ max: 2_000 });
  private readonly readerThread: SqliteReaderThread;
  private queue: Job[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(readonly filename: string) {
    mkdirSync(dirname(resolve(filename)), { recursive: true });
    this.readerThread = new SqliteReaderThread(
      filename,
      SQLITE_PRAGMAS.filter((pragma) => !pragma.startsWith('journal_mode')),
    );
  }

  /** Opened on first use, once migrations have created the file. */
  private get writer(): Statements {
    if (this.closed) throw new Error('the database is closed');
    this.writerStatements ??= new Statements(open(this.filename, false));
    return this.writerStatements;
  }

  private get reader(): Statements {
    if (this.closed) throw new Error('the database is closed');
    this.readerStatements ??= new Statements(open(this.filename, true));
    return this.readerStatements;
  }

  private isReadOnly(sql: string): boolean {
    let known = this.readOnly.get(sql);
    if (known === undefined) {
      known = this.writer.get(sql).statement.readonly;
      this.readOnly.set(sql, known);
    }
    return known;
  }

  async all<Row>(query: Query): Promise<Row[]> {
    const { sql, bindings } = compile(query);
    if (!this.isReadOnly(sql)) return this.enqueue(() => this.writer.all<Row>(sql, bindings), false);
    const long = this.long.get(sql);
    if (long) {
      if (this.closed) throw new Error('the database is closed');
      const { columns, rows, ms } = await this.readerThread.read(sql, sqliteBindings(bindings));
      long.shortRuns = ms < OFF_THREAD_AFTER_MS / 2 ? long.shortRuns + 1 : 0;
      if (long.shortRuns >= BACK_ON_THREAD_AFTER_RUNS) this.long.delete(sql);
      return rows.map((values) => named<Row>(columns, values));
    }
    const started = performance.now();
    const rows = this.reader.all<Row>(sql, bindings);
    if (performance.now() - started > OFF_THREAD_AFTER_MS) this.long.set(sql, { shortRuns: 0 });
    return rows;
  }

  async first<Row>(query: Query): Promise<Row | undefined> {
    return (await this.all<Row>(query))[0];
  }

  async run(query: Query): Promise<number> {
    const { sql, bindings } = compile(query);
    return this.enqueue(() => this.writer.run(sql, bindings), false);
  }

  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return this.enqueue((tx) => work(tx), true);
  }

  private enqueue<T>(run: (tx: SqliteTransaction) => T | Promise<T>, savepoint: boolean): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, savepoint, resolve: resolve as (value: unknown) => void, reject });
      this.flushing ??= new Promise<void>((done) => setImmediate(() => void this.flush().finally(done)));
    });
  }

  /** Commits what is queued, batch after batch, until the queue is empty. */
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
      try {
        const connection = this.writer.connection;
        connection.exec('BEGIN IMMEDIATE');
        try {
          for (const [index, job] of batch.entries()) {
            try {
              const tx = new SqliteTransaction(this.writer, 0);
              outcomes.push({ ok: true, value: job.savepoint ? await inSavepoint(connection, `job${index}`, () => job.run(tx)) : job.run(tx) });
            } catch (error) {
              // An I/O error or a full disk ends the whole transaction: nothing of this batch was committed.
              if (!connection.inTransaction) throw error;
              outcomes.push({ ok: false, error });
            }
          }
          connection.exec('COMMIT');
        } catch (error) {
          if (connection.inTransaction) connection.exec('ROLLBACK');
          throw error;
        }
        batch.forEach((job, index) => {
          const outcome = outcomes[index]!;
          if (outcome.ok) job.resolve(outcome.value);
          else job.reject(outcome.error);
        });
      } catch (error) {
        for (const job of batch) job.reject(error);
      }
    }
    this.flushing = undefined;
  }

  /** Waits for the writes under way, then closes both connections. */
  async close(): Promise<void> {
    await this.flushing;
    this.closed = true;
    await this.readerThread.close();
    this.readerStatements?.connection.close();
    this.writerStatements?.connection.close();
    this.readerStatements = undefined;
    this.writerStatements = undefined;
  }
}
