// What `npm run backup` and `npm run restore` share: the passphrase of an encrypted backup, from the file
// --passphrase-file names or BACKUP_PASSPHRASE (never an argument, which `ps` shows to every user), and
// how a signal stops them: the work folder removed, exit 143 on SIGTERM and 130 on SIGINT.
import { readFileSync } from 'node:fs';
import { abandonBackupWork } from '../server/backup/backup.js';

export class PassphraseError extends Error {}

export function readPassphrase(file: string | undefined): string | undefined {
  const text = file ? readFileSync(file, 'utf8').replace(/\r?\n$/, '') : process.env.BACKUP_PASSPHRASE;
  if (text && text.length < 8) throw new PassphraseError('the backup passphrase must be at least 8 characters');
  return text || undefined;
}

export function exitOnStopSignals(command: string, said: string): void {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    process.on(signal, () => {
      abandonBackupWork();
      console.error(`${command}: stopped by ${signal}; ${said}`);
      process.exit(code);
    });
  }
}
