// A backup made and then verified, each outcome recorded in `backup_runs` where every instance reads
// the last good one: what `npm run backup` and the schedule (jobs/periodic.ts) both do.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../file-locations.js';
import type { Executor } from '../store/executor.js';
import { recordBackupRun, type BackupRun } from '../store/backup-runs.js';
import { createBackup, verifyBackup, type CreateBackupOptions, type Manifest } from './backup.js';

/** Records a run where the database has `backup_runs` (a schema older than 0045 has not: the run is then not recorded). */
export async function noteBackupRun(db: Executor, run: BackupRun): Promise<boolean> {
  try {
    await recordBackupRun(db, run);
    return true;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === '42P01' || /no such table/.test(e.message ?? '')) return false;
    throw error;
  }
}

/** Verifies `file` and records the outcome; rethrows a failed verify after recording it. */
export async function verifyAndRecord(db: Executor, options: Parameters<typeof verifyBackup>[0]): Promise<Manifest> {
  try {
    const manifest = await verifyBackup(options);
    await noteBackupRun(db, { status: 'verified', file: options.file, sha256: manifest.payload.sha256, lastMigration: manifest.lastMigration });
    return manifest;
  } catch (error) {
    await noteBackupRun(db, { status: 'failed', file: options.file, error: (error as Error).message });
    throw error;
  }
}

/** Makes a backup, records it, and verifies it unless told not to. */
export async function backUpAndRecord(db: Executor, options: CreateBackupOptions & { verify: boolean }): Promise<Manifest> {
  let manifest: Manifest;
  try {
    manifest = await createBackup(options);
  } catch (error) {
    await noteBackupRun(db, { status: 'failed', file: options.to, error: (error as Error).message });
    throw error;
  }
  await noteBackupRun(db, { status: 'created', file: options.to, sha256: manifest.payload.sha256, lastMigration: manifest.lastMigration });
  if (options.verify) await verifyAndRecord(db, { file: options.to, passphrase: options.passphrase, databaseUrl: options.databaseUrl });
  return manifest;
}

/** The service's name and version, as the manifest names them. */
export function serviceIdentity(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

/** BACKUP_DIR and its companions: where the running service writes its backups, how often, how many it keeps. */
export interface BackupSchedule {
  dir: string;
  everyMs: number;
  keep: number;
  passphrase: string | undefined;
}

const SCHEDULED = /^backup-\d{8}T\d{6}Z\.pcsbak$/;

/** One scheduled backup: written to a new file in the folder, verified, recorded; the oldest beyond `keep` removed. */
export async function runScheduledBackup(db: Executor, databaseUrl: string, schedule: BackupSchedule): Promise<{ file: string; manifest: Manifest }> {
  mkdirSync(schedule.dir, { recursive: true, mode: 0o700 });
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const file = join(schedule.dir, `backup-${stamp}.pcsbak`);
  const manifest = await backUpAndRecord(db, { databaseUrl, to: file, passphrase: schedule.passphrase, service: serviceIdentity(), verify: true });
  const kept = readdirSync(schedule.dir)
    .filter((name) => SCHEDULED.test(name))
    .sort();
  for (const name of kept.slice(0, Math.max(0, kept.length - schedule.keep))) rmSync(join(schedule.dir, name), { force: true });
  return { file, manifest };
}
