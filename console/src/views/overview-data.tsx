// The payments of a range of business days, read for the overview's figures and its chart.
import { Alert } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client.js';
import { SCAN_LIMIT, withinDays, type PaymentRow } from '../lib/collections.js';
import { utcRangeCovering } from '../lib/dates.js';

interface Scan {
  rows: PaymentRow[];
  /** False when the range holds more than SCAN_LIMIT payments: its sums would need a report the API lacks. */
  complete: boolean;
  total: number;
}

/** The payments of business days `from`..`to`, read a hundred at a time up to SCAN_LIMIT. */
async function scanPayments(from: string, to: string): Promise<Scan> {
  const rows: PaymentRow[] = [];
  let total = 0;
  for (let page = 1; page <= SCAN_LIMIT / 100; page += 1) {
    const { data, error } = await api.GET('/payments', {
      params: { query: { page, per_page: 100, 'filter[created_at_between]': utcRangeCovering(from, to) } },
    });
    if (error) throw error;
    total = data.data.total;
    rows.push(...data.data.data);
    if (data.data.next_page_url === null) return { rows: withinDays(rows, from, to), complete: true, total };
  }
  return { rows: withinDays(rows, from, to), complete: false, total };
}

export function usePayments(from: string, to: string) {
  return useQuery({ queryKey: ['overview-payments', from, to], queryFn: () => scanPayments(from, to) });
}

export function TooMany({ total }: { total: number }) {
  return (
    <Alert color="yellow" title="Too many payments to sum here">
      This range holds {total.toLocaleString('en-MY')} payments. The console sums up to {SCAN_LIMIT.toLocaleString('en-MY')} from the payments list; larger
      ranges need the collections report (GET /api/reports/collections), which the API does not offer yet.
    </Alert>
  );
}
