import type { Knex } from 'knex';
import type { DateRange } from '../domain/time.js';
import { coverByPeriods } from './count-periods.js';
import type { Executor } from './executor.js';

export type CountedKind = 'payment_links' | 'open_payment_links' | 'payments' | 'open_link_payments' | 'webhook_events';

/** Live records of a kind for a business, kept by triggers (migration 0005): no table scan. */
export async function liveCount(db: Executor, businessId: number, kind: CountedKind): Promise<number> {
  const row = await db.first<{ live: number | string }>(db.sql('record_counts').select('live').where({ business_id: businessId, kind }));
  return Number(row?.live ?? 0);
}

/**
 * Live records of a kind for a business in the given statuses, created on the days of `range` (all
 * days without one), from the counts kept by triggers per UTC day, month and year of creation
 * (migrations 0007, 0013, 0022, 0023): whole years, whole months and the days at the edges, so the rows read
 * per status do not grow with the length of the range or of the history.
 */
export async function dailyCount(
  db: Executor,
  businessId: number,
  kind: CountedKind,
  statuses: readonly string[],
  range: DateRange | undefined,
): Promise<number> {
  const counts = (table: string, column: string, [from, to]: [string, string] | []) => {
    const query = db.sql(table).select('live').where({ business_id: businessId, kind }).whereIn('status', statuses);
    return from !== undefined && to !== undefined ? query.whereBetween(column, [from, to]) : query;
  };
  let parts: Knex.QueryBuilder[] = [counts('yearly_counts', 'year', [])];
  if (range) {
    const { years, months, days } = coverByPeriods(range.from, range.to);
    parts = [
      ...years.map((run) => counts('yearly_counts', 'year', run)),
      ...months.map((run) => counts('monthly_counts', 'month', run)),
      ...days.map((run) => counts('daily_counts', 'day', run)),
    ];
  }
  const [first, ...rest] = parts;
  const pieces = rest.length > 0 ? first!.unionAll(rest) : first!;
  const row = await db.first<{ live: number | string | null }>(db.sql.from(pieces.as('pieces')).sum({ live: 'live' }));
  return Number(row?.live ?? 0);
}
