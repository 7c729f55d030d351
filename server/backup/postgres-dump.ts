// PostgreSQL: every table read in one REPEATABLE READ snapshot, either by `pg_dump -Fc` on that
// snapshot (where Debian's postgresql-client is installed) or in this process as one JSON line per
// row (`row_to_json`), written back with `json_populate_recordset`. The schema comes from the
// migrations on a rows dump, from the dump itself with pg_dump.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import pg from 'pg';
import type { TableStats } from './archive.js';
import { BackupError } from './archive.js';
import { SEALED_COLUMNS, TableDigest, differences, isMigratorTable, sealedKeyIdsSql } from './digest.js';
import type { DumpFacts } from './sqlite-dump.js';

const FETCH_ROWS = 5_000;
const INSERT_ROWS = 2_000;
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC' });
  await client.connect();
  return client;
}

/** Whether `pg_dump` and `pg_restore` can be run here. */
export function hasPgDump(): boolean {
  return ['pg_dump', 'pg_restore'].every((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0);
}

async function tablesOf(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`);
  return rows.map((row) => row.name).filter((name) => !isMigratorTable(name));
}

/** Reads every row of every table (as `row_to_json` text) inside the client's open transaction. */
async function readTables(client: pg.Client, onRow?: (table: string, json: string) => void | Promise<void>): Promise<Record<string, TableStats>> {
  const tables: Record<string, TableStats> = {};
  for (const table of await tablesOf(client)) {
    const digest = new TableDigest();
    await client.query(`declare backup_rows no scroll cursor for select row_to_json(t)::text as r from ${quoted(table)} t`);
    for (;;) {
      const { rows } = await client.query<{ r: string }>(`fetch ${FETCH_ROWS} from backup_rows`);
      for (const { r } of rows) {
        digest.add(r);
        if (onRow) await onRow(table, r);
      }
      if (rows.length < FETCH_ROWS) break;
    }
    await client.query('close backup_rows');
    tables[table] = digest.stats;
  }
  return tables;
}

async function factsBesideTables(client: pg.Client): Promise<Omit<DumpFacts, 'tables'>> {
  const { rows } = await client.query<{ name: string }>('select name from knex_migrations order by id desc limit 1');
  if (!rows[0]) throw new BackupError('the database has no migrations recorded: it is not a database of this service');
  const { rows: columns } = await client.query<{ t: string; c: string }>(
    `select table_name as t, column_name as c from information_schema.columns where table_schema = current_schema()`,
  );
  const present = new Set(columns.map((row) => `${row.t}.${row.c}`));
  const sealedWith = new Set<string>();
  for (const [table, column] of SEALED_COLUMNS) {
    if (!present.has(`${table}.${column}`)) continue;
    for (const row of (await client.query<{ id: string }>(sealedKeyIdsSql(table, column))).rows) sealedWith.add(row.id);
  }
  return { lastMigration: rows[0].name, sealedWith: [...sealedWith].sort() };
}

/** A child process whose failure is an error naming it; `track` learns of it so that a signal can end it too. */
async function run(command: string, args: string[], track?: (child: ReturnType<typeof spawn>) => void): Promise<void> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  track?.(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new BackupError(`${command} failed (exit ${String(code)}): ${stderr.trim().slice(0, 2000)}`);
}

export interface PostgresDumpOptions {
  /** `pg_dump` on the snapshot, or rows as JSON lines read by this process. */
  method: 'pg_dump' | 'pg-rows';
  track?: (child: ReturnType<typeof spawn>) => void;
}

/** Dumps the database at `url` into `dest`, every table as of one snapshot, and says what the dump holds. */
export async function dumpPostgres(url: string, dest: string, options: PostgresDumpOptions): Promise<DumpFacts> {
  const client = await connect(url);
  try {
    await client.query('begin isolation level repeatable read read only');
    const facts = await factsBesideTables(client);
    if (options.method === 'pg_dump') {
      const { rows } = await client.query<{ id: string }>('select pg_export_snapshot() as id');
      // The snapshot lives while this transaction is open: pg_dump reads exactly what the counts below read.
      await run(
        'pg_dump',
        ['--format=custom', '--compress=0', `--snapshot=${rows[0]!.id}`, '--no-owner', '--no-privileges', `--file=${dest}`, `--dbname=${url}`],
        options.track,
      );
      const tables = await readTables(client);
      await client.query('commit');
      return { ...facts, tables };
    }
    const out = createWriteStream(dest, { mode: 0o600 });
    const write = async (line: string) => {
      if (!out.write(line)) await once(out, 'drain');
    };
    let current = '';
    const tables = await readTables(client, async (table, json) => {
      if (table !== current) {
        current = table;
        await write(`#${table}\n`);
      }
      await write(`${json}\n`);
    });
    // A table without rows still gets its line, so the restore knows of it.
    for (const table of Object.keys(tables)) if (tables[table]!.rows === 0) await write(`#${table}\n`);
    out.end();
    await once(out, 'finish');
    await client.query('commit');
    return { ...facts, tables };
  } finally {
    await client.end();
  }
}

/** Reads a rows dump, table by table: the counts and checksums it holds, and each batch to `onBatch` when given. */
export async function readRowsDump(file: string, onBatch?: (table: string, rows: string[]) => Promise<void>): Promise<Record<string, TableStats>> {
  const digests = new Map<string, TableDigest>();
  let table = '';
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length > 0 && onBatch) await onBatch(table, batch);
    batch = [];
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line.startsWith('#')) {
      await flush();
      table = line.slice(1);
      if (!digests.has(table)) digests.set(table, new TableDigest());
    } else if (line) {
      digests.get(table)!.add(line);
      batch.push(line);
      if (batch.length >= INSERT_ROWS) await flush();
    }
  }
  await flush();
  return Object.fromEntries([...digests].map(([name, digest]) => [name, digest.stats]));
}

/** Whether the database at `url` holds a business: a restore refuses to replace one without --force. */
export async function postgresHoldsData(url: string): Promise<boolean> {
  const client = await connect(url);
  try {
    const { rows } = await client.query(`select 1 from pg_tables where schemaname = current_schema() and tablename = 'businesses'`);
    return rows.length > 0 && ((await client.query('select 1 from businesses limit 1')).rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

/** Empties the schema of the database at `url`: tables, their triggers and functions. */
export async function emptySchema(url: string): Promise<void> {
  const client = await connect(url);
  try {
    await client.query('begin');
    const { rows } = await client.query<{ s: string }>('select current_schema() as s');
    const schema = quoted(rows[0]!.s);
    await client.query(`drop schema ${schema} cascade`);
    await client.query(`create schema ${schema}`);
    await client.query('commit');
  } finally {
    await client.end();
  }
}

/**
 * Loads a rows dump into the database at `url`, already migrated to the dump's schema, in one
 * transaction: the tables emptied, the rows inserted with triggers off (the counters come from the
 * dump), the sequences moved past the ids restored, and the counts and checksums read back and
 * compared with `expected` before the commit. Either all of it is there, or none.
 */
export async function loadRowsDump(url: string, file: string, expected: Record<string, TableStats>): Promise<void> {
  const client = await connect(url);
  try {
    await client.query('begin');
    await client.query(`set local session_replication_role = replica`);
    const tables = await tablesOf(client);
    if (tables.length > 0) await client.query(`truncate ${tables.map(quoted).join(', ')}`);
    await readRowsDump(file, async (table, rows) => {
      await client.query(`insert into ${quoted(table)} select * from json_populate_recordset(null::${quoted(table)}, $1::json)`, [`[${rows.join(',')}]`]);
    });
    const { rows: serials } = await client.query<{ t: string; c: string }>(
      `select table_name as t, column_name as c from information_schema.columns where table_schema = current_schema() and column_default like 'nextval(%'`,
    );
    for (const { t, c } of serials) {
      await client.query(`select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${quoted(c)}) from ${quoted(t)}), 0) + 1, false)`, [quoted(t), c]);
    }
    const problems = differences(expected, await readTables(client));
    if (problems.length > 0) throw new BackupError(`the restored tables differ from the manifest, so nothing was kept: ${problems.join('; ')}`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** Restores a `pg_dump -Fc` file into the database at `url` (empty) in one transaction. */
export async function restorePgDump(url: string, file: string, track?: (child: ReturnType<typeof spawn>) => void): Promise<void> {
  await run('pg_restore', ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', `--dbname=${url}`, file], track);
}

/** The counts and checksums of the tables of the database at `url`, and its facts, read in one snapshot. */
export async function describePostgres(url: string): Promise<DumpFacts> {
  const client = await connect(url);
  try {
    await client.query('begin isolation level repeatable read read only');
    const facts = await factsBesideTables(client);
    const tables = await readTables(client);
    await client.query('commit');
    return { ...facts, tables };
  } finally {
    await client.end();
  }
}

/** Runs `work` on a new empty database beside the one at `url`, dropped afterwards: where a verify restores. */
export async function withScratchDatabase<T>(url: string, work: (scratchUrl: string) => Promise<T>): Promise<T> {
  const base = new URL(url);
  const name = `${decodeURIComponent(base.pathname.slice(1)).replace(/\W/g, '_').slice(0, 30)}_verify_${process.pid}_${Date.now().toString(36)}`;
  const admin = await connect(url);
  try {
    await admin.query(`create database ${quoted(name)}`);
    const scratch = new URL(url);
    scratch.pathname = `/${name}`;
    try {
      return await work(scratch.toString());
    } finally {
      await admin.query(`drop database if exists ${quoted(name)} with (force)`);
    }
  } finally {
    await admin.end();
  }
}
