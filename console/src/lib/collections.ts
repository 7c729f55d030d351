// The overview's figures, computed from pages of GET /api/payments. The API has no report of sums
// (issue 26's GET /api/reports/collections is not built yet): the console sums at most SCAN_LIMIT
// payments of a range and, past that, says the figure needs that report instead of guessing.
import { dayIn, daysBetween } from './dates.js';

export const SCAN_LIMIT = 1_000;

export interface PaymentRow {
  amount: number;
  amount_refunded: number;
  currency: string;
  status: string;
  method: string | null;
  created_at: string;
}

const COLLECTED = new Set(['paid', 'partially_refunded', 'refunded']);

export interface Summary {
  /** Cents collected (paid, refunded or not), per currency. */
  collected: Record<string, number>;
  /** Cents refunded of those, per currency. */
  refunded: Record<string, number>;
  collectedCount: number;
  refundedCount: number;
  failedCount: number;
  /** Paid attempts over settled ones (paid or failed); null without any settled attempt. */
  successRate: number | null;
}

/** The payments whose creation falls on a business day from `from` to `to` (both included). */
export function withinDays<T extends Pick<PaymentRow, 'created_at'>>(rows: readonly T[], from: string, to: string, timeZone?: string): T[] {
  return rows.filter((row) => {
    const day = dayIn(row.created_at, timeZone);
    return day >= from && day <= to;
  });
}

export function summarize(rows: readonly PaymentRow[]): Summary {
  const summary: Summary = { collected: {}, refunded: {}, collectedCount: 0, refundedCount: 0, failedCount: 0, successRate: null };
  for (const row of rows) {
    if (COLLECTED.has(row.status)) {
      summary.collectedCount += 1;
      summary.collected[row.currency] = (summary.collected[row.currency] ?? 0) + row.amount;
      if (row.amount_refunded > 0) {
        summary.refundedCount += 1;
        summary.refunded[row.currency] = (summary.refunded[row.currency] ?? 0) + row.amount_refunded;
      }
    } else if (row.status === 'failed') {
      summary.failedCount += 1;
    }
  }
  const settled = summary.collectedCount + summary.failedCount;
  summary.successRate = settled === 0 ? null : summary.collectedCount / settled;
  return summary;
}

export type GroupBy = 'method' | 'status';

export interface ChartSeries {
  /** One row per business day: `day` and, per group, the cents collected (by method) or the count (by status). */
  rows: Array<Record<string, string | number>>;
  groups: string[];
}

/**
 * Collections per business day from `from` to `to`, every day present (zero when nothing happened):
 * by method, what was collected in units of the currency; by status, how many attempts ended so.
 */
export function perDay(rows: readonly PaymentRow[], from: string, to: string, groupBy: GroupBy, timeZone?: string): ChartSeries {
  const days = daysBetween(from, to);
  const table = new Map(days.map((day) => [day, new Map<string, number>()]));
  const groups = new Set<string>();
  for (const row of rows) {
    const cells = table.get(dayIn(row.created_at, timeZone));
    if (!cells) continue;
    if (groupBy === 'method') {
      if (!COLLECTED.has(row.status)) continue;
      const group = row.method ?? 'other';
      groups.add(group);
      cells.set(group, (cells.get(group) ?? 0) + row.amount);
    } else {
      groups.add(row.status);
      cells.set(row.status, (cells.get(row.status) ?? 0) + 1);
    }
  }
  const ordered = [...groups].sort();
  return {
    groups: ordered,
    rows: days.map((day) => {
      const cells = table.get(day)!;
      const row: Record<string, string | number> = { day };
      for (const group of ordered) row[group] = groupBy === 'method' ? (cells.get(group) ?? 0) / 100 : (cells.get(group) ?? 0);
      return row;
    }),
  };
}
