// The backup file: `PCSBAK1\n`, the dump compressed with gzip, then the manifest (JSON), its length
// (4 bytes, big-endian) and `PCSEND1\n`. The manifest names the sha256 of the compressed dump, so
// reading it back proves the dump is the one written. With a passphrase the whole of that is sealed:
// `PCSBAKX\n`, a salt and an IV, the AES-256-GCM ciphertext under a key scrypt derives from the
// passphrase, and the GCM tag, so a wrong passphrase or an altered byte is refused before anything
// inside is trusted.
import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { createReadStream, createWriteStream, fsyncSync, openSync, closeSync, readSync, statSync, writeFileSync } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

const PLAIN_MAGIC = Buffer.from('PCSBAK1\n');
const ENCRYPTED_MAGIC = Buffer.from('PCSBAKX\n');
const END_MAGIC = Buffer.from('PCSEND1\n');
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Interactive-login strength (about 32 MiB of memory): a backup is encrypted and opened rarely. */
const SCRYPT: ScryptOptions = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export interface TableStats {
  rows: number;
  checksum: string;
}

export interface Manifest {
  format: 1;
  service: { name: string; version: string };
  database: 'sqlite' | 'postgres';
  /** How the dump was taken: an SQLite file (online backup API), `pg_dump -Fc`, or rows as JSON (`pg-rows`). */
  dump: 'sqlite-file' | 'pg_dump' | 'pg-rows';
  lastMigration: string;
  createdAt: string;
  tables: Record<string, TableStats>;
  /** The ids of the secrets keys that sealed the secrets in the dump: a restore needs each of them. */
  sealedWith: string[];
  payload: { sha256: string; bytes: number };
}

/** A backup that cannot be made, read or restored; the message says what is wrong and what to do. */
export class BackupError extends Error {}

/** Flushes a file, or a folder's entries after a rename, to the disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function hashing(hash: ReturnType<typeof createHash>, counter: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      counter.bytes += chunk.length;
      done(null, chunk);
    },
  });
}

/** Compresses `dumpFile` into the archive `out` with the manifest `describe` completes with the payload's hash. */
export async function writeArchive(dumpFile: string, out: string, describe: (payload: Manifest['payload']) => Manifest, level = 3): Promise<Manifest> {
  writeFileSync(out, PLAIN_MAGIC, { mode: 0o600 });
  const hash = createHash('sha256');
  const counter = { bytes: 0 };
  await pipeline(createReadStream(dumpFile), createGzip({ level }), hashing(hash, counter), createWriteStream(out, { flags: 'a' }));
  const manifest = describe({ sha256: hash.digest('hex'), bytes: counter.bytes });
  const json = Buffer.from(JSON.stringify(manifest));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  writeFileSync(out, Buffer.concat([json, length, END_MAGIC]), { flag: 'a' });
  fsyncPath(out);
  return manifest;
}

function keyFrom(passphrase: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(passphrase, salt, 32, SCRYPT, (error, key) => (error ? reject(error) : resolve(key))));
}

/** Seals the archive `plain` with the passphrase into `out`. */
export async function encryptArchive(plain: string, out: string, passphrase: string): Promise<void> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await keyFrom(passphrase, salt), iv, { authTagLength: TAG_BYTES });
  writeFileSync(out, Buffer.concat([ENCRYPTED_MAGIC, salt, iv]), { mode: 0o600 });
  await pipeline(createReadStream(plain), cipher, createWriteStream(out, { flags: 'a' }));
  writeFileSync(out, cipher.getAuthTag(), { flag: 'a' });
  fsyncPath(out);
}

function readAt(path: string, position: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, position);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

export function isEncrypted(file: string): boolean {
  return readAt(file, 0, ENCRYPTED_MAGIC.length).equals(ENCRYPTED_MAGIC);
}

/** Opens the sealed archive `file` into the plain archive `out`; refuses a wrong passphrase or an altered byte. */
async function decryptArchive(file: string, out: string, passphrase: string): Promise<void> {
  const size = statSync(file).size;
  const header = ENCRYPTED_MAGIC.length + SALT_BYTES + IV_BYTES;
  if (size < header + TAG_BYTES) throw new BackupError(`${file} is truncated: it is shorter than an encrypted backup's header`);
  const salt = readAt(file, ENCRYPTED_MAGIC.length, SALT_BYTES);
  const iv = readAt(file, ENCRYPTED_MAGIC.length + SALT_BYTES, IV_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', await keyFrom(passphrase, salt), iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(readAt(file, size - TAG_BYTES, TAG_BYTES));
  try {
    await pipeline(createReadStream(file, { start: header, end: size - TAG_BYTES - 1 }), decipher, createWriteStream(out, { mode: 0o600 }));
  } catch {
    throw new BackupError(`${file} does not open with this passphrase (BACKUP_PASSPHRASE): the passphrase is wrong, or the file was altered`);
  }
}

/**
 * Reads the archive `file` into `workDir`: decrypted when it is sealed, its payload's hash checked
 * against its manifest, the dump decompressed to `dump`. Nothing is trusted before these checks.
 */
export async function openArchive(file: string, workDir: string, passphrase: string | undefined): Promise<{ manifest: Manifest; dumpFile: string }> {
  let plain = file;
  if (isEncrypted(file)) {
    if (!passphrase) throw new BackupError(`${file} is encrypted: set BACKUP_PASSPHRASE (or --passphrase-file) to the passphrase it was made with`);
    plain = `${workDir}/archive`;
    await decryptArchive(file, plain, passphrase);
  }
  if (!readAt(plain, 0, PLAIN_MAGIC.length).equals(PLAIN_MAGIC)) throw new BackupError(`${file} is not a backup made by npm run backup`);
  const size = statSync(plain).size;
  const tail = readAt(plain, size - 4 - END_MAGIC.length, 4 + END_MAGIC.length);
  if (tail.length !== 4 + END_MAGIC.length || !tail.subarray(4).equals(END_MAGIC)) throw new BackupError(`${file} is truncated: its manifest is missing`);
  const manifestBytes = tail.readUInt32BE(0);
  const manifestAt = size - 4 - END_MAGIC.length - manifestBytes;
  if (manifestAt < PLAIN_MAGIC.length) throw new BackupError(`${file} is truncated: its manifest is cut`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readAt(plain, manifestAt, manifestBytes).toString('utf8')) as Manifest;
  } catch {
    throw new BackupError(`${file}'s manifest is not JSON: the file was altered`);
  }
  if (manifest.format !== 1) throw new BackupError(`${file} is a backup of format ${String(manifest.format)}, which this version cannot read`);
  const hash = createHash('sha256');
  const counter = { bytes: 0 };
  const dumpFile = `${workDir}/dump`;
  try {
    await pipeline(
      createReadStream(plain, { start: PLAIN_MAGIC.length, end: manifestAt - 1 }),
      hashing(hash, counter),
      createGunzip(),
      createWriteStream(dumpFile, { mode: 0o600 }),
    );
  } catch (error) {
    throw new BackupError(`${file}'s dump does not decompress (${(error as Error).message}): the file was altered or cut`);
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== manifest.payload.sha256 || counter.bytes !== manifest.payload.bytes)
    throw new BackupError(`${file}'s dump has sha256 ${sha256}, but its manifest says ${manifest.payload.sha256}: the file was altered`);
  return { manifest, dumpFile };
}
