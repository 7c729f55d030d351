// Where the master key comes from: SECRETS_KEY when set; on the embedded SQLite default without it,
// a key file next to the database, created on first start; on PostgreSQL, SECRETS_KEY or nothing,
// since every instance and script on one database must hold the same key.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync, fchmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MASTER_KEY_BYTES, MasterKey, MasterKeyFormatError, parseMasterKey } from './master-key.js';

export interface SecretsSettings {
  /** From SECRETS_KEY. */
  key?: MasterKey | undefined;
  /** From SECRETS_KEY_FILE; next to the SQLite file unless set. Ignored when `key` is given. */
  keyFile?: string | undefined;
}

export interface LoadedMasterKey {
  key: MasterKey;
  source: 'SECRETS_KEY' | 'key file' | 'memory';
  file?: string;
  /** This process created the key file. */
  created?: boolean;
  /** The key file can be read by its group or by others. */
  looseMode?: boolean;
}

export class SecretsKeyError extends Error {}

export const POSTGRES_NEEDS_KEY =
  'SECRETS_KEY must be set when DATABASE_URL is PostgreSQL: every instance and script on the database must use the same key, so none can be created on the spot. Generate one with: openssl rand -hex 32';

export const KEY_FILE_NAME = 'secrets.key';

function sqliteFilename(databaseUrl: string): string | undefined {
  return databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined;
}

/** `./data/secrets.key` for the default `sqlite:./data/payments.sqlite`; none for PostgreSQL or an in-memory database. */
export function defaultKeyFile(databaseUrl: string): string | undefined {
  const filename = sqliteFilename(databaseUrl);
  if (filename === undefined || filename === ':memory:') return undefined;
  return join(dirname(filename), KEY_FILE_NAME);
}

/** The key in `path`, or undefined when there is no such file. */
export function readKeyFile(path: string): { key: MasterKey; looseMode: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SecretsKeyError(`cannot read the secrets key file ${path}: ${(error as Error).message}`);
  }
  try {
    return { key: new MasterKey(parseMasterKey(text)), looseMode: (statSync(path).mode & 0o077) !== 0 };
  } catch (error) {
    if (error instanceof MasterKeyFormatError) throw new SecretsKeyError(`the secrets key file ${path} does not hold a key: it ${error.message}`);
    throw error;
  }
}

function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the key file, or creates it with a new random key. The key is written in full to a file of
 * its own (mode 0600) and then hard-linked to `path`, which fails if the name exists: of two
 * processes starting together, exactly one key lands and the other reads it; nobody ever reads a
 * half-written file. Both the file and its directory entry are on disk before anything is sealed
 * with the key, or a crash could lose the key while sealed values survive.
 */
export function readOrCreateKeyFile(path: string): { key: MasterKey; created: boolean; looseMode: boolean } {
  const existing = readKeyFile(path);
  if (existing) return { ...existing, created: false };
  mkdirSync(dirname(path), { recursive: true });
  const bytes = randomBytes(MASTER_KEY_BYTES);
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    // The umask cannot widen it, but may narrow it below what the owner needs to read.
    fchmodSync(fd, 0o600);
    writeSync(fd, `${bytes.toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    fsyncDirectory(dirname(path));
    return { key: new MasterKey(bytes), created: true, looseMode: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new SecretsKeyError(`cannot create the secrets key file ${path}: ${(error as Error).message}`);
    const winner = readKeyFile(path);
    if (!winner) throw new SecretsKeyError(`the secrets key file ${path} disappeared while it was being created`);
    return { ...winner, created: false };
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** The master key for a database, as the service and the scripts load it. */
export function loadMasterKey(databaseUrl: string, settings: SecretsSettings = {}): LoadedMasterKey {
  if (settings.key) return { key: settings.key, source: 'SECRETS_KEY' };
  if (sqliteFilename(databaseUrl) === undefined) throw new SecretsKeyError(POSTGRES_NEEDS_KEY);
  const file = settings.keyFile ?? defaultKeyFile(databaseUrl);
  // An in-memory database lives no longer than this process: neither does its key.
  if (!file) return { key: new MasterKey(randomBytes(MASTER_KEY_BYTES)), source: 'memory' };
  return { ...readOrCreateKeyFile(file), source: 'key file', file };
}
