// The collections report (GET /api/reports/collections) for the overview's figures and its chart.
import { $api } from '../api/client.js';
import { reportQuery, type GroupBy, type ReportRange } from '../lib/collections.js';

/**
 * Per period of `range` (days, weeks or months of the business), split by `groupBy` if given; without
 * a range, the report's own: the last 30 days up to today in the business's time zone (`to` says which
 * day that is).
 */
export function collectionsQuery(range?: ReportRange, groupBy?: GroupBy) {
  const query = range ? reportQuery(range, groupBy) : { interval: 'day' as const, ...(groupBy && { group_by: groupBy }) };
  return $api.queryOptions('get', '/reports/collections', { params: { query } }, { select: (body) => body.data });
}
