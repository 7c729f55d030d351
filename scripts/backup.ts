// A backup of the database DATABASE_URL names, and its verify:
//   backup --to <file> [--no-verify] [--postgres auto|pg_dump|pg-rows]   writes the archive, then verifies it
//   backup --verify <file>                                                 restores it in a temporary place and checks it
// The passphrase that encrypts (and opens) an archive comes from BACKUP_PASSPHRASE or from the file
// --passphrase-file names, never from the command line, where `ps` would show it.
// Exit status: 0 done; 1 the backup or verify failed (the previous archive is as it was); 2 a usage or
// configuration error; 143 on SIGTERM and 130 on SIGINT, after removing the work folder.
//
// Test seam, read here alone (test/cli/backup.test.ts): BACKUP_TEST_HOOK=fail:<step> fails the backup as
// step <step> (dump, compress, encrypt, rename) begins, and pause:<step> prints `backup: paused at <step>`
// on stderr and waits there for a signal.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../server/config.js';
import { BACKUP_STEPS, BackupError, verifyBackup, type BackupHooks, type BackupStep, type PostgresMethod } from '../server/backup/backup.js';
import { backUpAndRecord, verifyAndRecord } from '../server/backup/recorded.js';
import { openDatabase } from '../server/store/database.js';
import { exitOnStopSignals, PassphraseError, readPassphrase } from './backup-cli.js';

class UsageError extends Error {}

exitOnStopSignals('backup', 'the previous backup is unchanged');

function testHooks(spec: string | undefined): BackupHooks | undefined {
  if (!spec) return undefined;
  const [action, step] = spec.split(':') as [string, BackupStep];
  if (!BACKUP_STEPS.includes(step) || (action !== 'fail' && action !== 'pause'))
    throw new UsageError(`BACKUP_TEST_HOOK must be fail:<step> or pause:<step>, got ${spec}`);
  return {
    async at(now) {
      if (now !== step) return;
      if (action === 'fail') throw new BackupError(`injected failure at ${step} (BACKUP_TEST_HOOK)`);
      console.error(`backup: paused at ${step}`);
      await new Promise(() => setInterval(() => undefined, 60_000));
    },
  };
}

const SERVICE = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
})();

async function main(args: string[]): Promise<number> {
  let config;
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        to: { type: 'string' },
        verify: { type: 'string' },
        'no-verify': { type: 'boolean', default: false },
        postgres: { type: 'string', default: 'auto' },
        'passphrase-file': { type: 'string' },
      },
    }));
    if (!values.to === !values.verify) throw new UsageError('usage: backup --to <file> | --verify <file>');
    if (!['auto', 'pg_dump', 'pg-rows'].includes(values.postgres)) throw new UsageError('--postgres takes auto, pg_dump or pg-rows');
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof ConfigError) && !(error instanceof TypeError)) throw error;
    console.error(`backup: ${error.message}`);
    return 2;
  }
  const filename = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : undefined;
  if (values.to && filename !== undefined && !existsSync(filename)) {
    console.error(`backup: there is no database at ${filename} (DATABASE_URL)`);
    return 2;
  }
  // Verifying a file on a host without a database of its own records nothing rather than making one.
  const canRecord = filename === undefined || existsSync(filename);
  const db = canRecord ? openDatabase(config.databaseUrl, config.database) : undefined;
  try {
    const passphrase = readPassphrase(values['passphrase-file']);
    const started = performance.now();
    const manifest = values.to
      ? await backUpAndRecord(db!, {
          databaseUrl: config.databaseUrl,
          to: values.to,
          passphrase,
          postgres: values.postgres as PostgresMethod,
          service: SERVICE,
          hooks: testHooks(process.env.BACKUP_TEST_HOOK),
          verify: !values['no-verify'],
        })
      : await (db
          ? verifyAndRecord(db, { file: values.verify!, passphrase, databaseUrl: config.databaseUrl })
          : verifyBackup({ file: values.verify!, passphrase, databaseUrl: config.databaseUrl }));
    const rows = Object.values(manifest.tables).reduce((sum, table) => sum + table.rows, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const what = values.to ? (values['no-verify'] ? 'written' : 'written and verified') : 'verified';
    console.log(
      `backup ${values.to ?? values.verify} ${what} in ${seconds} s: ${rows} rows in ${Object.keys(manifest.tables).length} tables, schema ${manifest.lastMigration}, dump ${manifest.dump}, sha256 ${manifest.payload.sha256}`,
    );
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof PassphraseError) {
      console.error(`backup: ${error.message}`);
      return 2;
    }
    console.error(`backup: ${(error as Error).message}`);
    return 1;
  } finally {
    await db?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
