// The backup file's format (server/backup/archive.ts) without a database: what is written opens back
// to the same dump and manifest, and an archive cut short or with one byte changed is refused, plain
// or encrypted, before anything in it is trusted.
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encryptArchive, openArchive, writeArchive, type Manifest } from '../../server/backup/archive.js';
import { TableDigest } from '../../server/backup/digest.js';

const dir = mkdtempSync(join(tmpdir(), 'payments-archive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DUMP = 'line of a dump\n'.repeat(5_000);

async function archived(name: string): Promise<{ file: string; manifest: Manifest }> {
  const dump = join(dir, `${name}.dump`);
  writeFileSync(dump, DUMP);
  const file = join(dir, `${name}.pcsbak`);
  const manifest = await writeArchive(dump, file, (payload) => ({
    format: 1,
    service: { name: 'payment-collection-service', version: 'test' },
    database: 'sqlite',
    dump: 'sqlite-file',
    lastMigration: '0001_initial',
    createdAt: new Date().toISOString(),
    tables: { payments: { rows: 1, checksum: '0'.repeat(32) } },
    sealedWith: [],
    payload,
  }));
  return { file, manifest };
}

const opened = (file: string, passphrase?: string) => {
  const work = mkdtempSync(join(dir, 'open-'));
  return openArchive(file, work, passphrase).then(({ manifest, dumpFile }) => ({ manifest, dump: readFileSync(dumpFile, 'utf8') }));
};

const flipByte = (file: string, at: number) => {
  const bytes = readFileSync(file);
  bytes[at] = bytes[at]! ^ 0x01;
  writeFileSync(file, bytes);
};

describe('the backup archive', () => {
  it('opens back to the dump and the manifest written, plain and encrypted', async () => {
    const { file, manifest } = await archived('plain');
    expect(await opened(file)).toEqual({ manifest, dump: DUMP });
    const sealed = join(dir, 'sealed.pcsbak');
    await encryptArchive(file, sealed, 'a long enough passphrase');
    expect(readFileSync(sealed).includes(Buffer.from('0001_initial'))).toBe(false);
    expect(await opened(sealed, 'a long enough passphrase')).toEqual({ manifest, dump: DUMP });
    await expect(opened(sealed)).rejects.toThrow(/is encrypted: set BACKUP_PASSPHRASE/);
  });

  it('refuses a changed byte of the dump, a cut file and a changed byte of a sealed one', async () => {
    const changed = await archived('changed');
    flipByte(changed.file, 20);
    await expect(opened(changed.file)).rejects.toThrow(/altered/);

    const cut = await archived('cut');
    truncateSync(cut.file, statSync(cut.file).size - 3);
    await expect(opened(cut.file)).rejects.toThrow(/truncated/);

    const plain = await archived('to-seal');
    const sealed = join(dir, 'sealed-changed.pcsbak');
    await encryptArchive(plain.file, sealed, 'a long enough passphrase');
    flipByte(sealed, 60);
    await expect(opened(sealed, 'a long enough passphrase')).rejects.toThrow(/passphrase is wrong, or the file was altered/);
  });

  it("sums a table's rows whatever order they are read in", () => {
    const rows = ['["a",1]', '["b",2]', '["c",3]'];
    const forward = new TableDigest();
    const backward = new TableDigest();
    for (const row of rows) forward.add(row);
    for (const row of [...rows].reverse()) backward.add(row);
    expect(forward.stats).toEqual(backward.stats);
    const other = new TableDigest();
    for (const row of ['["a",1]', '["b",2]', '["c",4]']) other.add(row);
    expect(other.stats.checksum).not.toBe(forward.stats.checksum);
  });
});
