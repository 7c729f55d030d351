import type { DateRange } from '../domain/time.js';
import type { Executor } from './executor.js';

export type CountedKind = 'payment_links' | 'open_payment_links';

/** Live records of a kind for a business, kept by triggers (migration 0005): no table scan. */
export async function liveCount(db: Executor, businessId: number, kind: CountedKind): Promise<number> {
  const row = await db.first<{ live: number | string }>(db.sql('record_counts').select('live').where({ business_id: businessId, kind }));
  return Number(row?.live ?? 0);
}

/**
 * Live records of a kind for a business in the given statuses, created on the days of `range` (all
 * days without one), from the per-day counts kept by triggers (migration 0007): at most one row per
 * status and day is read, however many records match.
 */
export async function dailyCount(
  db: Executor,
  businessId: number,
  kind: CountedKind,
  statuses: readonly string[],
  range: DateRange | undefined,
): Promise<number> {
  const query = db.sql('daily_counts').where({ business_id: businessId, kind }).whereIn('status', statuses);
  if (range) query.whereBetween('day', [range.from, range.to]);
  const row = await db.first<{ live: number | string | null }>(query.sum({ live: 'live' }));
  return Number(row?.live ?? 0);
}
