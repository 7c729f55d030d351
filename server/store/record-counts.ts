import type { Executor } from './db.js';
import { selectFirst } from './sqlite-fast.js';

export type CountedKind = 'payment_links' | 'open_payment_links';

/** Live records of a kind for a business, kept by triggers (migration 0005): no table scan. */
export async function liveCount(db: Executor, businessId: number, kind: CountedKind): Promise<number> {
  const row = await selectFirst<{ live: number | string }>(db, db('record_counts').select('live').where({ business_id: businessId, kind }));
  return Number(row?.live ?? 0);
}
