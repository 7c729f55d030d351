// The audit log's reads and its retention. What is recorded, and when, is the request scope's
// business (see usecases/platform/audited-writes.ts): every write through the API records one event in the
// transaction of its change.
import type { Page, PageRequest } from '../../domain/paging.js';
export { DEFAULT_AUDIT_RETENTION_DAYS } from '../../store/audit-events.js';
import { deleteAuditEventsBefore, listAuditEvents as listEvents, type AuditEventRecord, type AuditFilters } from '../../store/audit-events.js';
import type { UseCaseContext } from '../platform/context.js';

const SWEEP_BATCH = 1_000;

export function listAuditEvents(ctx: UseCaseContext, businessId: number, filters: AuditFilters, page: PageRequest): Promise<Page<AuditEventRecord>> {
  return listEvents(ctx.db, businessId, filters, page);
}

/**
 * Deletes the events older than the retention, a batch per transaction so that no statement holds
 * the database long, until none is left or `maxBatches` have gone; how many were deleted.
 */
export async function sweepAuditEvents(ctx: Pick<UseCaseContext, 'db'>, retentionDays: number, now = new Date(), maxBatches = 100): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const gone = await deleteAuditEventsBefore(ctx.db, before, SWEEP_BATCH);
    deleted += gone;
    if (gone < SWEEP_BATCH) break;
  }
  return deleted;
}
