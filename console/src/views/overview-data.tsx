// The collections report (GET /api/reports/collections) for the overview's figures and its chart.
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client.js';
import type { GroupBy } from '../lib/collections.js';

/**
 * Per business day from `from` to `to`, split by `groupBy` if given; without a range, the report's
 * own: the last 30 days up to today in the business's time zone (`to` says which day that is).
 */
export function useCollections(range?: { from: string; to: string }, groupBy?: GroupBy) {
  return useQuery({
    queryKey: ['overview-collections', range?.from ?? null, range?.to ?? null, groupBy ?? null],
    queryFn: async () => {
      const { data, error } = await api.GET('/reports/collections', {
        params: {
          query: {
            interval: 'day',
            ...(range && { 'filter[created_at_between]': `${range.from},${range.to}` }),
            ...(groupBy && { group_by: groupBy }),
          },
        },
      });
      if (error) throw error;
      return data.data;
    },
  });
}
