// Which collections report of a business is running (`migrations/0041_report_leases.ts`): one at a time per business,
// across instances, as its exports (export-leases.ts).
import { isoMicros } from '../domain/time.js';
import type { Executor } from './executor.js';
import { nowIso } from './timestamps.js';

/** Takes the business's report lease for `holder` for `ttlMs`, unless another holder's lease is still running. */
export async function takeReportLease(db: Executor, businessId: number, holder: string, ttlMs: number): Promise<boolean> {
  const changed = await db.run(
    db
      .sql('report_leases')
      .insert({ business_id: businessId, holder, expires_at: isoMicros(new Date(Date.now() + ttlMs)) })
      .onConflict('business_id')
      .merge(['holder', 'expires_at'])
      .where('report_leases.expires_at', '<', nowIso()),
  );
  return changed === 1;
}

export async function releaseReportLease(db: Executor, businessId: number, holder: string): Promise<void> {
  await db.run(db.sql('report_leases').where({ business_id: businessId, holder }).delete());
}
