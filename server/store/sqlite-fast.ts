// Fast paths for the embedded SQLite database, measured in the bench (docs: README, Performance).
// Knex still writes every statement; these only change how SQLite runs them:
//  - reads outside a transaction run as cached prepared statements on a read-only connection of their
//    own (WAL gives it the last committed state and it never blocks the writer);
//  - batchable writes are committed in groups on Knex's own single writer connection: one
//    BEGIN IMMEDIATE ... COMMIT (one fsync) for all writes queued meanwhile, each inside a savepoint,
//    run synchronously while no Knex transaction is open on that connection, so nothing can
//    interleave. Callers are answered only after the commit, so an acknowledged write is durable.
// PostgreSQL has none of this: it runs concurrent transactions and groups its own commits.
import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';

type Statement = Database.Statement<unknown[], unknown>;
/**
 * Reads run in raw mode and get their rows named here: better-sqlite3 builds a row object through
 * V8's C++ API one property at a time, which made a page of 15 payment links (225 values) cost
 * 70 us against 44 us as arrays named in JavaScript.
 */
type ReadStatement = { statement: Statement; columns: string[] };
type Job = { run: (writer: Database.Database) => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void };

export class SqliteFastPath {
  private readerConnection: Database.Database | undefined;
  private writer: Database.Database | undefined;
  private readonly readStatements = new LRUCache<string, ReadStatement>({ max: 500 });
  private queue: Job[] = [];
  private flushing = false;

  constructor(private readonly filename: string) {}

  /** Opened on first use, once migrations have created the file; query_only rather than readonly,
   *  which SQLite refuses on a WAL database whose shared-memory file does not exist yet. */
  private get reader(): Database.Database {
    if (!this.readerConnection) {
      this.readerConnection = new Database(this.filename);
      this.readerConnection.pragma('busy_timeout = 10000');
      this.readerConnection.pragma('query_only = ON');
    }
    return this.readerConnection;
  }

  /**
   * Knex's pool hands its one connection to afterCreate; the batcher writes on that same connection,
   * and when Knex closes it (db.destroy()), the reading connection closes with it.
   */
  adoptWriter(writer: Database.Database): void {
    this.writer = writer;
    const close = writer.close.bind(writer);
    writer.close = () => {
      this.close();
      return close();
    };
  }

  private statement(sql: string): ReadStatement {
    let read = this.readStatements.get(sql);
    if (!read) {
      const statement = this.reader.prepare(sql).raw(true);
      read = { statement, columns: statement.columns().map((column) => column.name) };
      this.readStatements.set(sql, read);
    }
    return read;
  }

  /** The names for a row of `read`; SQLite re-prepares a statement after a schema change (a migration
   *  run beside the service), and a `select *` may then return other columns than it was named with. */
  private columnsFor(read: ReadStatement, values: unknown[]): string[] {
    if (values.length !== read.columns.length) read.columns = read.statement.columns().map((column) => column.name);
    return read.columns;
  }

  read<Row>(sql: string, bindings: readonly unknown[]): Row[] {
    const read = this.statement(sql);
    return (read.statement.all(...sqliteBindings(bindings)) as unknown[][]).map((values) => namedRow<Row>(this.columnsFor(read, values), values));
  }

  readFirst<Row>(sql: string, bindings: readonly unknown[]): Row | undefined {
    const read = this.statement(sql);
    const values = read.statement.get(...sqliteBindings(bindings)) as unknown[] | undefined;
    return values && namedRow<Row>(this.columnsFor(read, values), values);
  }

  /** Queues a write to be committed with whatever else is queued; resolves after the commit. */
  write<T>(run: (writer: Database.Database) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const writer = this.writer;
    // A Knex transaction holds the connection across awaits; wait for it to end rather than write into it.
    if (!writer || writer.inTransaction) {
      setTimeout(() => this.flush(), 1);
      return;
    }
    const batch = this.queue;
    this.queue = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      writer.exec('BEGIN IMMEDIATE');
      batch.forEach((job, i) => {
        writer.exec(`SAVEPOINT job${i}`);
        try {
          outcomes.push({ ok: true, value: job.run(writer) });
          writer.exec(`RELEASE job${i}`);
        } catch (error) {
          writer.exec(`ROLLBACK TO job${i}`);
          writer.exec(`RELEASE job${i}`);
          outcomes.push({ ok: false, error });
        }
      });
      writer.exec('COMMIT');
      batch.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    } catch (error) {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      for (const job of batch) job.reject(error);
    }
    if (this.queue.length > 0) setImmediate(() => this.flush());
    else this.flushing = false;
  }

  close(): void {
    this.readerConnection?.close();
    this.readerConnection = undefined;
  }
}

/** Like better-sqlite3's own rows: a repeated column name keeps its last value. */
function namedRow<Row>(columns: string[], values: unknown[]): Row {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i += 1) row[columns[i]!] = values[i];
  return row as Row;
}

const fastPaths = new WeakMap<object, SqliteFastPath>();

export function registerFastPath(db: Knex, fastPath: SqliteFastPath): void {
  fastPaths.set(db, fastPath);
}

/** The fast path for this executor: none on PostgreSQL, none inside a transaction (its reads must see its writes). */
export function fastPathOf(db: Knex | Knex.Transaction): SqliteFastPath | undefined {
  if ((db as Knex.Transaction).isTransaction) return undefined;
  return fastPaths.get(db);
}

/** Knex's better-sqlite3 dialect passes booleans as 0/1 and Dates as epoch milliseconds; so do we. */
export function sqliteBindings(bindings: readonly unknown[]): unknown[] {
  return bindings.map((value) => (typeof value === 'boolean' ? Number(value) : value instanceof Date ? value.valueOf() : value));
}

/** Rows of a query built with Knex: through the fast path on SQLite, through Knex elsewhere. */
export async function selectRows<Row>(db: Knex | Knex.Transaction, query: Knex.QueryBuilder): Promise<Row[]> {
  const fast = fastPathOf(db);
  if (!fast) return (await query) as Row[];
  const { sql, bindings } = query.toSQL().toNative();
  return fast.read<Row>(sql, bindings);
}

export async function selectFirst<Row>(db: Knex | Knex.Transaction, query: Knex.QueryBuilder): Promise<Row | undefined> {
  const fast = fastPathOf(db);
  if (!fast) return (await query.first()) as Row | undefined;
  const { sql, bindings } = query.toSQL().toNative();
  return fast.readFirst<Row>(sql, bindings);
}

/** Runs a write built with Knex: grouped with others into one commit on SQLite, on its own through Knex elsewhere. */
export async function batchedWrite(db: Knex | Knex.Transaction, query: Knex.QueryBuilder): Promise<void> {
  const fast = fastPathOf(db);
  if (!fast) {
    await query;
    return;
  }
  const { sql, bindings } = query.toSQL().toNative();
  await fast.write((writer) => writer.prepare(sql).run(...sqliteBindings(bindings)));
}
