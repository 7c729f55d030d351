// Making, verifying and restoring a backup of the database DATABASE_URL names. Each writes only in
// a work folder of its own and moves the result into place with one rename at the end, so a backup
// cut short (an error, SIGTERM, SIGINT) leaves the previous archive as it was and no file behind it,
// and a restore checks everything it can before it changes the database.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { knexFor } from '../store/database.js';
import { knownMigrations, migrateLatest, migrateUpTo } from '../store/migrate.js';
import { BackupError, encryptArchive, fsyncPath, openArchive, writeArchive, type Manifest } from './archive.js';
import { differences } from './digest.js';
import {
  describePostgres,
  dumpPostgres,
  emptySchema,
  hasPgDump,
  loadRowsDump,
  postgresHoldsData,
  readRowsDump,
  restorePgDump,
  withScratchDatabase,
} from './postgres-dump.js';
import { describeSqlite, snapshotSqlite, sqliteHoldsData, type DumpFacts } from './sqlite-dump.js';

export { BackupError, type Manifest } from './archive.js';

/** The steps of a backup, in order: the test seam (`hooks.at`) can fail or hold one. */
export const BACKUP_STEPS = ['dump', 'compress', 'encrypt', 'rename'] as const;
export type BackupStep = (typeof BACKUP_STEPS)[number];

export interface BackupHooks {
  /** Called as each step begins: what it throws fails the backup there. For failure-injection tests. */
  at?(step: BackupStep): void | Promise<void>;
}

const live = { dirs: new Set<string>(), children: new Set<ChildProcess>() };

/** Removes every work folder of a backup, verify or restore under way and ends their child processes: for a signal's handler. */
export function abandonBackupWork(): void {
  for (const child of live.children) child.kill('SIGTERM');
  for (const dir of live.dirs) rmSync(dir, { recursive: true, force: true });
  live.dirs.clear();
}

const track = (child: ChildProcess) => {
  live.children.add(child);
  child.once('close', () => live.children.delete(child));
};

async function inWorkDir<T>(parent: string, prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(parent, prefix));
  live.dirs.add(dir);
  try {
    return await work(dir);
  } finally {
    live.dirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

const sqliteFile = (url: string) => (url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined);

export type PostgresMethod = 'auto' | 'pg_dump' | 'pg-rows';

export interface CreateBackupOptions {
  databaseUrl: string;
  to: string;
  /** Encrypts the archive (scrypt + AES-256-GCM). */
  passphrase?: string | undefined;
  /** PostgreSQL: `pg_dump` where it is installed (`auto`), or always one way. */
  postgres?: PostgresMethod;
  service: { name: string; version: string };
  hooks?: BackupHooks;
}

/** Writes a backup of the database to `to`, replacing the file there only once the new one is whole. */
export async function createBackup(options: CreateBackupOptions): Promise<Manifest> {
  const to = resolve(options.to);
  const at = async (step: BackupStep) => options.hooks?.at?.(step);
  return inWorkDir(dirname(to), `.${basename(to)}.`, async (dir) => {
    await at('dump');
    const dumpFile = join(dir, 'dump');
    const filename = sqliteFile(options.databaseUrl);
    let facts: DumpFacts;
    let dump: Manifest['dump'];
    if (filename !== undefined) {
      await snapshotSqlite(filename, dumpFile);
      facts = await describeSqlite(dumpFile);
      dump = 'sqlite-file';
    } else {
      const wanted = options.postgres ?? 'auto';
      if (wanted === 'pg_dump' && !hasPgDump()) throw new BackupError('pg_dump is not installed here (Debian: apt-get install postgresql-client)');
      const method = wanted === 'auto' ? (hasPgDump() ? 'pg_dump' : 'pg-rows') : wanted;
      facts = await dumpPostgres(options.databaseUrl, dumpFile, { method, track });
      dump = method;
    }
    await at('compress');
    const plain = join(dir, 'archive');
    const manifest = await writeArchive(dumpFile, plain, (payload) => ({
      format: 1,
      service: options.service,
      database: filename !== undefined ? 'sqlite' : 'postgres',
      dump,
      lastMigration: facts.lastMigration,
      createdAt: new Date().toISOString(),
      tables: facts.tables,
      sealedWith: facts.sealedWith,
      payload,
    }));
    rmSync(dumpFile);
    let finished = plain;
    if (options.passphrase) {
      await at('encrypt');
      finished = join(dir, 'sealed');
      await encryptArchive(plain, finished, options.passphrase);
    }
    await at('rename');
    renameSync(finished, to);
    fsyncPath(dirname(to));
    return manifest;
  });
}

/** Refuses an archive whose schema this version does not know (a newer one) or whose database is of the other kind. */
function checkCompatible(manifest: Manifest, databaseUrl: string): void {
  const kind = sqliteFile(databaseUrl) !== undefined ? 'sqlite' : 'postgres';
  if (manifest.database !== kind)
    throw new BackupError(
      `the backup holds a ${manifest.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database, but DATABASE_URL is ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
    );
  if (!knownMigrations().includes(manifest.lastMigration))
    throw new BackupError(
      `the backup's schema is at migration ${manifest.lastMigration}, which this version (${knownMigrations().at(-1)}) does not know: restore it with the version that made it (${manifest.service.version}) or a newer one`,
    );
}

function compare(manifest: Manifest, facts: DumpFacts): void {
  const problems = differences(manifest.tables, facts.tables);
  if (facts.lastMigration !== manifest.lastMigration) problems.push(`its schema is at ${facts.lastMigration}, the manifest says ${manifest.lastMigration}`);
  if (problems.length > 0) throw new BackupError(`the backup does not match its manifest: ${problems.join('; ')}`);
}

export interface ReadOptions {
  file: string;
  passphrase?: string | undefined;
  /** Where the archive is opened; the system's temporary folder unless given. */
  workParent?: string;
}

/**
 * Restores the archive in a temporary place and checks it against its manifest: the dump's hash, the
 * database's integrity, every table's count and checksum, the schema. PostgreSQL restores into a
 * scratch database beside `databaseUrl`'s (which needs CREATEDB), dropped afterwards.
 */
export async function verifyBackup(options: ReadOptions & { databaseUrl: string }): Promise<Manifest> {
  return inWorkDir(options.workParent ?? tmpdir(), 'payments-verify-', async (dir) => {
    const { manifest, dumpFile } = await openArchive(resolve(options.file), dir, options.passphrase);
    if (manifest.database === 'sqlite') {
      compare(manifest, await describeSqlite(dumpFile));
      return manifest;
    }
    if (sqliteFile(options.databaseUrl) !== undefined)
      throw new BackupError('a PostgreSQL backup is verified with DATABASE_URL naming a PostgreSQL server (a scratch database is made there)');
    await withScratchDatabase(options.databaseUrl, async (scratch) => {
      await restoreIntoEmptyPostgres(scratch, manifest, dumpFile);
      compare(manifest, await describePostgres(scratch));
    });
    return manifest;
  });
}

async function restoreIntoEmptyPostgres(url: string, manifest: Manifest, dumpFile: string): Promise<void> {
  if (manifest.dump === 'pg_dump') {
    await restorePgDump(url, dumpFile, track);
    return;
  }
  const migrator = knexFor(url);
  try {
    await migrateUpTo(migrator, manifest.lastMigration);
  } finally {
    await migrator.destroy();
  }
  await loadRowsDump(url, dumpFile, manifest.tables);
}

async function migrateForward(url: string): Promise<string[]> {
  const migrator = knexFor(url);
  try {
    return await migrateLatest(migrator);
  } finally {
    await migrator.destroy();
  }
}

export interface RestoreOptions extends ReadOptions {
  databaseUrl: string;
  /** Replaces a database that holds businesses. */
  force?: boolean;
  /** The ids of the secrets keys at hand (SECRETS_KEY or the key file), and where they were looked for. */
  secretsKeyIds: readonly string[];
  secretsKeySource: string;
}

/**
 * Restores the archive into the database `databaseUrl` names, then migrates it forward. Refused
 * before anything is written: an archive that does not open or match its manifest, from a schema newer
 * than this version's, whose secrets were sealed with a key not at hand, or a target that holds
 * businesses without `force`. SQLite: the file is replaced by one rename; PostgreSQL: the rows are
 * loaded in one transaction.
 */
export async function restoreBackup(options: RestoreOptions): Promise<{ manifest: Manifest; migrated: string[] }> {
  const filename = sqliteFile(options.databaseUrl);
  const parent = filename !== undefined ? dirname(resolve(filename)) : (options.workParent ?? tmpdir());
  // On a fresh host the database's folder (./data) may not be there yet.
  mkdirSync(parent, { recursive: true });
  return inWorkDir(parent, '.restore-', async (dir) => {
    const { manifest, dumpFile } = await openArchive(resolve(options.file), dir, options.passphrase);
    checkCompatible(manifest, options.databaseUrl);
    const missing = manifest.sealedWith.filter((id) => !options.secretsKeyIds.includes(id));
    if (missing.length > 0)
      throw new BackupError(
        `the backup's acquirer and webhook secrets are sealed with secrets key ${missing.join(', ')}, but ${options.secretsKeySource}${
          options.secretsKeyIds.length ? ` holds key ${options.secretsKeyIds.join(', ')}` : ' has no key'
        }: set SECRETS_KEY (or SECRETS_KEY_FILE) to the key of the host the backup was made on; nothing was restored`,
      );
    if (filename !== undefined) {
      compare(manifest, await describeSqlite(dumpFile));
      if (!options.force && sqliteHoldsData(filename))
        throw new BackupError(`${filename} holds businesses already: restore over it with --force; nothing was restored`);
      const migrated = await migrateForward(`sqlite:${dumpFile}`);
      // The old file's write-ahead log must not be replayed into the new one.
      for (const suffix of ['-wal', '-shm']) rmSync(`${filename}${suffix}`, { force: true });
      renameSync(dumpFile, filename);
      fsyncPath(dirname(resolve(filename)));
      return { manifest, migrated };
    }
    if (manifest.dump === 'pg-rows') {
      const problems = differences(manifest.tables, await readRowsDump(dumpFile));
      if (problems.length > 0) throw new BackupError(`the backup does not match its manifest: ${problems.join('; ')}; nothing was restored`);
    }
    if (!options.force && (await postgresHoldsData(options.databaseUrl)))
      throw new BackupError('the database holds businesses already: restore over it with --force; nothing was restored');
    await emptySchema(options.databaseUrl);
    await restoreIntoEmptyPostgres(options.databaseUrl, manifest, dumpFile);
    if (manifest.dump === 'pg_dump') compare(manifest, await describePostgres(options.databaseUrl));
    return { manifest, migrated: await migrateForward(options.databaseUrl) };
  });
}
