// The collections report (GET /api/reports/collections) for the overview's figures and its chart.
import { useQuery } from '@tanstack/react-query';
import type { GroupBy, ReportRange } from '../lib/collections.js';
import { collectionsQuery } from '../queries/reports.js';

/**
 * Per period of `range` (days, weeks or months of the business), split by `groupBy` if given; without
 * a range, the report's own: the last 30 days up to today in the business's time zone (`to` says which
 * day that is).
 */
export function useCollections(range?: ReportRange, groupBy?: GroupBy) {
  return useQuery(collectionsQuery(range, groupBy));
}
