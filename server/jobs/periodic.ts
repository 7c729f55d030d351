// The work every instance runs on its own clock, started by the composition root and stopped on
// close: the link expiry sweep, the pending sweep (what a stopped process left pending), the
// housekeeping of dead weight, the settlement sweep (payouts made, synced, deposits overdue), the scheduled backup where BACKUP_DIR is set, and, once after start, drawing again the logos an earlier version kept
// as uploaded. Each is a use case safe with several instances running it at once; this room decides
// only when it runs and what its outcome says in the log.
import type { Logger } from '../logger.js';
import { redrawLogosKeptAsUploaded } from '../usecases/merchant/business-profile.js';
import { expireDueLinks } from '../usecases/merchant/expiry-sweep.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { sweepDeadWeight } from '../usecases/platform/housekeeping.js';
import { settleStalePending } from '../usecases/settlement/pending-sweep.js';
import { sweepSettlement } from '../usecases/settlement/settlement-sweep.js';
import { runScheduledBackup, type BackupSchedule } from '../backup/recorded.js';
import { takeBackupLease } from '../store/backup-runs.js';
import { randomUUID } from 'node:crypto';

export interface PeriodicJobSettings {
  /** How often links past their expires_at are marked expired and announced. */
  expirySweepMs: number;
  /** How often what a stopped process left pending is settled, and how long it must have waited first. */
  pendingSweep: { everyMs: number; graceMs: number };
  /** How often dead weight is swept. */
  housekeepingMs: number;
  /** Days audit events are kept (AUDIT_RETENTION_DAYS). */
  auditRetentionDays: number;
  /** How often the sandbox pays out what is available, acquirers' payouts are synced and missing deposits flagged. */
  settlementSweepMs: number;
  /** Scheduled backups of the database at `databaseUrl` (BACKUP_DIR); none unless given. */
  backup?: { schedule: BackupSchedule; databaseUrl: string; checkEveryMs?: number } | undefined;
}

export const DEFAULT_PERIODIC_JOBS: PeriodicJobSettings = {
  expirySweepMs: 60_000,
  pendingSweep: { everyMs: 60_000, graceMs: 15 * 60_000 },
  housekeepingMs: 10 * 60_000,
  auditRetentionDays: 400,
  settlementSweepMs: 10 * 60_000,
};

export interface PeriodicJobs {
  stop(): void;
}

export function startPeriodicJobs(ctx: UseCaseContext, settings: PeriodicJobSettings, logger: Logger): PeriodicJobs {
  let stopped = false;
  const every = (ms: number, failure: string, job: () => Promise<unknown>) => {
    const timer = setInterval(() => void job().catch(failed(failure)), ms);
    timer.unref();
    return timer;
  };
  const timers = [
    // Several instances may sweep at once: each link is marked (and announced) by one guarded UPDATE.
    every(settings.expirySweepMs, 'the expiry sweep failed', () => expireDueLinks(ctx)),
    every(settings.pendingSweep.everyMs, 'the pending sweep failed', () =>
      settleStalePending(ctx, settings.pendingSweep.graceMs).then(({ chargesLeftUnanswered, ...swept }) => {
        if (swept.abandonedPayments + swept.settledRefunds + swept.settledPayments > 0) logger.info(swept, 'settled payments and refunds left pending');
        if (chargesLeftUnanswered.length > 0)
          logger.warn(
            { payment_ids: chargesLeftUnanswered },
            'charges the acquirer never answered stay pending: reconcile them with the acquirer by hand (the sweep no longer asks)',
          );
      }),
    ),
    every(settings.housekeepingMs, 'housekeeping failed', () => sweepDeadWeight(ctx, settings.auditRetentionDays)),
    every(settings.settlementSweepMs, 'the settlement sweep failed', () =>
      sweepSettlement(ctx).then(({ syncsFailed, ...swept }) => {
        if (swept.payoutsMade + swept.payoutsSynced + swept.depositsMissing > 0) logger.info(swept, 'made, synced or flagged payouts');
        if (syncsFailed.length > 0)
          logger.warn({ business_ids: syncsFailed }, "the acquirer's payouts could not be read for these businesses; the next sweep asks again");
      }),
    ),
  ];
  if (settings.backup) {
    const { schedule, databaseUrl } = settings.backup;
    const holder = randomUUID();
    // Of several instances, the one that takes the lease when it has run out makes the backup; the
    // lease lasts one interval, so the interval holds across instances and restarts alike.
    timers.push(
      every(settings.backup.checkEveryMs ?? 60_000, 'the scheduled backup failed', async () => {
        if (!(await takeBackupLease(ctx.db, holder, schedule.everyMs))) return;
        const { file, manifest } = await runScheduledBackup(ctx.db, databaseUrl, schedule);
        logger.info({ file, sha256: manifest.payload.sha256, last_migration: manifest.lastMigration }, 'backup written and verified');
      }),
    );
  }
  // Logos kept as uploaded by an earlier version are not served until drawn again, off the start's path.
  void redrawLogosKeptAsUploaded(ctx, (fields, message) => logger.warn(fields, message))
    .then((done) => {
      if (done.redrawn + done.removed > 0) logger.info(done, 'drew again the logos an earlier version kept as uploaded');
    })
    .catch(failed('drawing again the logos kept as uploaded failed'));

  function failed(message: string) {
    // A job cut short by the stop (the database closing under it) is not a failure worth a line.
    return (error: unknown) => {
      if (!stopped) logger.error({ err: error }, message);
    };
  }
  return {
    stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
    },
  };
}
