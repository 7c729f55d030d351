// `npm run restore -- <file> [--force]`: restores a backup made by `npm run backup` into the database
// DATABASE_URL names (on a fresh host: an SQLite file not there yet, or an empty PostgreSQL database),
// then migrates it forward. Before it writes anything it opens the archive (BACKUP_PASSPHRASE or
// --passphrase-file when it is encrypted), checks its dump against the manifest, refuses a schema newer
// than this version's, a target holding businesses without --force, and secrets sealed with a key that
// SECRETS_KEY (or the key file) does not hold. Exit status: 0 restored, 1 refused or failed, 2 usage.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../server/config.js';
import { restoreBackup } from '../server/backup/backup.js';
import { defaultKeyFile, readKeyFile, SecretsKeyError } from '../server/secrets/key-source.js';
import { exitOnStopSignals, readPassphrase } from './backup-cli.js';

exitOnStopSignals('restore', 'the restore did not finish: run it again');

async function main(args: string[]): Promise<number> {
  let config;
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { force: { type: 'boolean', default: false }, 'passphrase-file': { type: 'string' } } });
    if (parsed.positionals.length !== 1) throw new TypeError('usage: restore <file> [--force] [--passphrase-file <file>]');
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof TypeError)) throw error;
    console.error(`restore: ${error.message}`);
    return 2;
  }
  try {
    // The key is read, never created: a key made up here could open nothing the backup sealed.
    const keyFile = config.secrets.keyFile ?? defaultKeyFile(config.databaseUrl);
    const key = config.secrets.key ?? (keyFile ? readKeyFile(keyFile)?.key : undefined);
    const started = performance.now();
    const { manifest, migrated } = await restoreBackup({
      file: parsed.positionals[0]!,
      passphrase: readPassphrase(parsed.values['passphrase-file']),
      databaseUrl: config.databaseUrl,
      force: parsed.values.force,
      secretsKeyIds: key ? [key.id] : [],
      secretsKeySource: config.secrets.key ? 'SECRETS_KEY' : keyFile ? `the key file ${keyFile} (SECRETS_KEY is not set)` : 'SECRETS_KEY',
    });
    const rows = Object.values(manifest.tables).reduce((sum, table) => sum + table.rows, 0);
    console.log(
      `restored ${rows} rows in ${Object.keys(manifest.tables).length} tables from ${parsed.positionals[0]} (made ${manifest.createdAt}, schema ${manifest.lastMigration}) in ${((performance.now() - started) / 1000).toFixed(1)} s${
        migrated.length ? `; migrated forward: ${migrated.join(', ')}` : ''
      }`,
    );
    return 0;
  } catch (error) {
    if (error instanceof SecretsKeyError) console.error(`restore: ${error.message}; nothing was restored`);
    else console.error(`restore: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
