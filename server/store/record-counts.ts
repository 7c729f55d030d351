import type { Executor } from './executor.js';

export type CountedKind = 'payment_links' | 'open_payment_links';

/** Live records of a kind for a business, kept by triggers (migration 0005): no table scan. */
export async function liveCount(db: Executor, businessId: number, kind: CountedKind): Promise<number> {
  const row = await db.first<{ live: number | string }>(db.sql('record_counts').select('live').where({ business_id: businessId, kind }));
  return Number(row?.live ?? 0);
}
