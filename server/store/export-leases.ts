// Which export of a business's payments is running (`migrations/0030_export_leases.ts`): one at a time per business,
// across instances, for as long as its holder keeps renewing the lease.
import type { Executor } from './executor.js';
import { isoMicros } from '../domain/time.js';
import { nowIso } from './timestamps.js';

const isoAfter = (ms: number) => isoMicros(new Date(Date.now() + ms));

/** Takes the business's export lease for `holder` unless another holder's lease is still running. */
export async function takeExportLease(db: Executor, businessId: number, holder: string, ttlMs: number): Promise<boolean> {
  const now = nowIso();
  const changed = await db.run(
    db
      .sql('export_leases')
      .insert({ business_id: businessId, holder, expires_at: isoAfter(ttlMs) })
      .onConflict('business_id')
      .merge(['holder', 'expires_at'])
      .where('export_leases.expires_at', '<', now),
  );
  return changed === 1;
}

/** Moves the lease's end on, if `holder` still has it. */
export async function renewExportLease(db: Executor, businessId: number, holder: string, ttlMs: number): Promise<void> {
  await db.run(
    db
      .sql('export_leases')
      .where({ business_id: businessId, holder })
      .update({ expires_at: isoAfter(ttlMs) }),
  );
}

export async function releaseExportLease(db: Executor, businessId: number, holder: string): Promise<void> {
  await db.run(db.sql('export_leases').where({ business_id: businessId, holder }).delete());
}
