// A read-only connection to the embedded database in a worker thread, for the reads that proved long
// (sqlite.ts decides which). better-sqlite3 runs a statement on the thread that calls it: on the main
// thread, one business's page of 100 rows or capped count held every other request and the probes for
// as long as SQLite worked. In a worker the main thread only posts the statement and reads the rows back.
// The worker is plain JavaScript evaluated from this text, so it runs the same from the sources (tsx,
// vitest) and from the build, and requires the driver by the path this module resolves.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const connection = new Database(workerData.filename);
for (const pragma of workerData.pragmas) connection.pragma(pragma);
connection.pragma('query_only = ON');
const statements = new Map();
function prepared(sql) {
  let statement = statements.get(sql);
  if (!statement) {
    statement = connection.prepare(sql);
    if (statement.reader) statement.raw(true);
    if (statements.size >= workerData.statements) statements.delete(statements.keys().next().value);
    statements.set(sql, statement);
  }
  return statement;
}
parentPort.on('message', ({ id, sql, bindings }) => {
  try {
    const statement = prepared(sql);
    const values = bindings.map((value) => (value instanceof Uint8Array ? Buffer.from(value) : value));
    if (!statement.reader) {
      statement.run(...values);
      parentPort.postMessage({ id, columns: [], rows: [], ms: 0 });
      return;
    }
    const started = performance.now();
    const rows = statement.all(...values);
    const ms = performance.now() - started;
    parentPort.postMessage({ id, columns: statement.columns().map((column) => column.name), rows, ms });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

interface Answer {
  id: number;
  columns?: string[];
  rows?: unknown[][];
  ms?: number;
  error?: { message: string; code?: string };
}

/** A read's rows as arrays of values, its column names, and how long SQLite took over it in the worker. */
export interface ThreadRead {
  columns: string[];
  rows: unknown[][];
  ms: number;
}

interface Waiting {
  resolve(answer: ThreadRead): void;
  reject(error: unknown): void;
}

/** An error from the worker's connection, with SQLite's code as the driver gives it on the main thread. */
class SqliteReadError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

export class SqliteReaderThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private lastId = 0;

  constructor(
    private readonly filename: string,
    private readonly pragmas: readonly string[],
  ) {}

  read(sql: string, bindings: readonly unknown[]): Promise<ThreadRead> {
    const worker = (this.worker ??= this.start());
    const id = (this.lastId += 1);
    return new Promise((resolve, reject) => {
      // The worker keeps the process alive only while it owes an answer.
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, sql, bindings });
    });
  }

  private start(): Worker {
    const worker = new Worker(WORKER, { eval: true, workerData: { driver, filename: this.filename, pragmas: this.pragmas, statements: 500 } });
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = this.waiting.get(answer.id);
      if (!waiting) return;
      this.settled(answer.id);
      if (answer.error) waiting.reject(new SqliteReadError(answer.error.message, answer.error.code));
      else waiting.resolve({ columns: answer.columns!, rows: answer.rows!.map(withBuffers), ms: answer.ms ?? 0 });
    });
    // A worker that died takes its unanswered reads with it; the next read starts another.
    const fail = (error: unknown) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, waiting] of this.waiting) {
        this.settled(id);
        waiting.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the database's reader thread stopped (exit code ${code})`)));
    return worker;
  }

  private settled(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

/** A blob crosses the thread as a Uint8Array; the store reads blobs as Buffers, as the driver gives them. */
function withBuffers(values: unknown[]): unknown[] {
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i];
    if (value instanceof Uint8Array && !Buffer.isBuffer(value)) values[i] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return values;
}
