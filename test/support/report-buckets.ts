// A bucket of the collections report (GET /api/reports/collections) as it answers one: zeros but
// for what a test names, a day of the business's in Malaysian ringgit, not split by a group.
import type { components } from '../../client/index.js';

export type ReportBucket = components['schemas']['CollectionsBucket'];

export function bucket(date: string, figures: Partial<ReportBucket> = {}): ReportBucket {
  return {
    date,
    currency: 'MYR',
    group: null,
    payments_count: 0,
    paid_count: 0,
    failed_count: 0,
    paid_amount: 0,
    refunded_amount: 0,
    ...figures,
  };
}
