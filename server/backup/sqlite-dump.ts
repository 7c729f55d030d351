// SQLite: the dump is a copy of the database file made by SQLite's online backup API while the
// service keeps writing, and a restore puts such a copy in the database file's place.
import Database from 'better-sqlite3';
import type { TableStats } from './archive.js';
import { BackupError } from './archive.js';
import { SEALED_COLUMNS, TableDigest, isMigratorTable, sealedKeyIdsSql } from './digest.js';

export interface DumpFacts {
  tables: Record<string, TableStats>;
  lastMigration: string;
  sealedWith: string[];
}

/**
 * Copies the database `source` to `dest`, consistent as of one moment. The first step copies a few
 * pages; a write by another connection between steps restarts the copy, so every later step is asked
 * for every page at once: one step under one read transaction, which in WAL mode writers do not wait on.
 */
export async function snapshotSqlite(source: string, dest: string): Promise<void> {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    await db.backup(dest, { progress: ({ totalPages }) => totalPages + 1 });
  } finally {
    db.close();
  }
}

/** Rows checksummed between two turns of the event loop. */
const ROWS_PER_TURN = 2_000;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** What a copy of the database holds: its tables' counts and checksums, its last migration, the keys its secrets need. */
export async function describeSqlite(file: string): Promise<DumpFacts> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`the database in the backup fails SQLite's integrity check: ${String(integrity)}`);
    const names = (
      db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`).pluck().all() as string[]
    ).filter((name) => !isMigratorTable(name));
    const tables: Record<string, TableStats> = {};
    for (const name of names) {
      const digest = new TableDigest();
      let read = 0;
      for (const row of db
        .prepare(`select * from ${quoted(name)}`)
        .raw()
        .iterate()) {
        digest.add(JSON.stringify(row));
        // The service makes its scheduled backups on its own thread: requests get it back between batches.
        if (++read % ROWS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      tables[name] = digest.stats;
    }
    const lastMigration = db.prepare('select name from knex_migrations order by id desc limit 1').pluck().get() as string | undefined;
    if (!lastMigration) throw new BackupError('the database in the backup has no migrations recorded: it is not a database of this service');
    const sealedWith = new Set<string>();
    for (const [table, column] of SEALED_COLUMNS) {
      if (!names.includes(table)) continue;
      const has = db.prepare(`select 1 from pragma_table_info(?) where name = ?`).get(table, column);
      if (has) for (const id of db.prepare(sealedKeyIdsSql(table, column)).pluck().all() as string[]) sealedWith.add(id);
    }
    return { tables, lastMigration, sealedWith: [...sealedWith].sort() };
  } finally {
    db.close();
  }
}

/** Whether the SQLite database `file` holds a business: a restore refuses to replace one without --force. */
export function sqliteHoldsData(file: string): boolean {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    return false;
  }
  try {
    const has = db.prepare(`select 1 from sqlite_master where type = 'table' and name = 'businesses'`).get();
    return has !== undefined && db.prepare('select 1 from businesses limit 1').get() !== undefined;
  } finally {
    db.close();
  }
}
