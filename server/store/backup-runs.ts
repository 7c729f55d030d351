// The backups made and verified (`migrations/0045_backup_runs.ts`), and the lease that lets one instance of several
// run the scheduled backup.
import type { Executor } from './executor.js';
import { isoMicros } from '../domain/time.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export type BackupRunStatus = 'created' | 'verified' | 'failed';

export interface BackupRun {
  status: BackupRunStatus;
  file: string;
  sha256?: string | undefined;
  lastMigration?: string | undefined;
  error?: string | undefined;
}

/** Records a backup written, verified or failed; a verified one carries the time of its verify. */
export async function recordBackupRun(db: Executor, run: BackupRun): Promise<void> {
  const now = nowIso();
  await db.run(
    db.sql('backup_runs').insert({
      status: run.status,
      file: run.file.slice(0, 1000),
      sha256: run.sha256 ?? null,
      last_migration: run.lastMigration ?? null,
      error: run.error?.slice(0, 2000) ?? null,
      created_at: now,
      verified_at: run.status === 'verified' ? now : null,
    }),
  );
}

/** When the last backup that a verify read back whole was verified, or undefined when none was. */
export async function lastVerifiedBackupAt(db: Executor): Promise<Date | undefined> {
  const row = await db.first<{ verified_at: string | Date | null }>(
    db.sql('backup_runs').where({ status: 'verified' }).orderBy('verified_at', 'desc').select('verified_at').limit(1),
  );
  return row?.verified_at ? new Date(toIsoMicros(row.verified_at)) : undefined;
}

/** Takes the scheduled backup's lease for `holder` unless another holder's lease is still running. */
export async function takeBackupLease(db: Executor, holder: string, ttlMs: number): Promise<boolean> {
  const changed = await db.run(
    db
      .sql('backup_lease')
      .insert({ name: 'scheduled', holder, expires_at: isoMicros(new Date(Date.now() + ttlMs)) })
      .onConflict('name')
      .merge(['holder', 'expires_at'])
      .where('backup_lease.expires_at', '<', nowIso()),
  );
  return changed === 1;
}
