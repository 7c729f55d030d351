// The overview's figures and chart, from the collections report (GET /api/reports/collections): a
// bucket per business day and series (a currency, and a method or state when split), summed from
// the service's counters, so the overview costs the same at ten payments or a million.
import type { components } from '@payment-collection/client';
import { addDays } from './dates.js';

export type ReportBucket = components['schemas']['CollectionsBucket'];

export interface Summary {
  /** Cents collected (paid, refunded or not), per currency. */
  collected: Record<string, number>;
  /** Cents refunded of those, per currency. */
  refunded: Record<string, number>;
  collectedCount: number;
  failedCount: number;
  /** Paid attempts over settled ones (paid or failed); null without any settled attempt. */
  successRate: number | null;
}

/** The buckets of the business days `from` to `to` (both included). */
export function withinDays(buckets: readonly ReportBucket[], from: string, to: string): ReportBucket[] {
  return buckets.filter((bucket) => bucket.date >= from && bucket.date <= to);
}

const add = (sums: Record<string, number>, currency: string, cents: number) => {
  if (cents !== 0) sums[currency] = (sums[currency] ?? 0) + cents;
};

export function summarize(buckets: readonly ReportBucket[]): Summary {
  const summary: Summary = { collected: {}, refunded: {}, collectedCount: 0, failedCount: 0, successRate: null };
  for (const bucket of buckets) {
    summary.collectedCount += bucket.paid_count;
    summary.failedCount += bucket.failed_count;
    add(summary.collected, bucket.currency, bucket.paid_amount);
    add(summary.refunded, bucket.currency, bucket.refunded_amount);
  }
  const settled = summary.collectedCount + summary.failedCount;
  summary.successRate = settled === 0 ? null : summary.collectedCount / settled;
  return summary;
}

export type GroupBy = 'method' | 'status';
export type Interval = 'day' | 'week' | 'month';

export interface ChartSeries {
  /** One row per period: `day` (the period's first day, as the report dates its buckets) and, per series, the units collected (by method) or the count (by status). */
  rows: Array<Record<string, string | number>>;
  groups: string[];
  /** The report's group (a method or a state) each series is of, whatever currency it is in. */
  groupOf: Record<string, string>;
}

const DAY_MS = 86_400_000;
const utc = (day: string) => Date.parse(`${day}T00:00:00Z`);
const daysFrom = (from: string, to: string) => Math.round((utc(to) - utc(from)) / DAY_MS);
const monthIndex = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
const firstOfMonth = (index: number) => `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;

/** The Monday of the week (Monday to Sunday, as the report counts weeks) that holds `day`. */
export function mondayOf(day: string): string {
  return addDays(day, -((new Date(utc(day)).getUTCDay() + 6) % 7));
}

/**
 * The first day of every period of `interval` from the one holding `from` to the one holding `to`:
 * the dates the report gives its buckets (a week's Monday, a month's 1st). Counted in whole periods
 * rather than by comparing dates as text.
 */
export function periodsBetween(from: string, to: string, interval: Interval): string[] {
  if (interval === 'month') {
    const first = monthIndex(from);
    return Array.from({ length: Math.max(0, monthIndex(to) - first + 1) }, (_, i) => firstOfMonth(first + i));
  }
  const start = interval === 'week' ? mondayOf(from) : from;
  const step = interval === 'week' ? 7 : 1;
  return Array.from({ length: Math.max(0, Math.floor(daysFrom(start, to) / step) + 1) }, (_, i) => addDays(start, i * step));
}

/**
 * The report split by `groupBy` as a chart's rows, every period from `from` to `to` present: by method,
 * what was collected in units of the currency; by status, how many payments ended so. A series is
 * named by its group, and by its currency too when the range holds more than one.
 */
export function perDay(buckets: readonly ReportBucket[], from: string, to: string, groupBy: GroupBy, interval: Interval = 'day'): ChartSeries {
  const currencies = new Set(buckets.map((bucket) => bucket.currency));
  const nameOf = (bucket: ReportBucket) => {
    const group = bucket.group ?? 'all';
    return currencies.size > 1 ? `${group} (${bucket.currency})` : group;
  };
  const table = new Map(periodsBetween(from, to, interval).map((day) => [day, new Map<string, number>()]));
  const groupOf: Record<string, string> = {};
  for (const bucket of buckets) {
    const cells = table.get(bucket.date);
    if (!cells) continue;
    const name = nameOf(bucket);
    const value = groupBy === 'method' ? bucket.paid_amount / 100 : bucket.payments_count;
    if (groupBy === 'method' && bucket.paid_count === 0 && value === 0) continue;
    groupOf[name] = bucket.group ?? 'all';
    cells.set(name, (cells.get(name) ?? 0) + value);
  }
  const ordered = Object.keys(groupOf).sort();
  return {
    groups: ordered,
    groupOf,
    rows: [...table].map(([day, cells]) => ({ day, ...Object.fromEntries(ordered.map((group) => [group, cells.get(group) ?? 0])) })),
  };
}

// What each series is called and coloured. A state's colour says what it means (paid green, failed
// red, pending a neutral grey, whatever the theme); methods get hues that carry no such meaning.
const SERIES_STYLES: Record<GroupBy, Record<string, { label: string; color: string; rank: number }>> = {
  status: {
    paid: { label: 'Paid', color: 'green.7', rank: 0 },
    pending: { label: 'Pending', color: 'gray.5', rank: 1 },
    failed: { label: 'Failed', color: 'red.7', rank: 2 },
  },
  method: {
    card: { label: 'Card', color: 'blue.6', rank: 0 },
    fpx: { label: 'FPX', color: 'violet.6', rank: 1 },
    grabpay: { label: 'GrabPay', color: 'cyan.7', rank: 2 },
  },
};
const OTHER_SERIES = { color: 'gray.7', rank: 9 };

export interface SeriesStyle {
  name: string;
  label: string;
  color: string;
}

/** The chart's series, paid first (the bottom of a stack), each with a label in words and its colour. */
export function seriesStyles(series: Pick<ChartSeries, 'groups' | 'groupOf'>, groupBy: GroupBy): SeriesStyle[] {
  const styled = series.groups.map((name) => {
    const group = series.groupOf[name] ?? name;
    const style = SERIES_STYLES[groupBy][group] ?? { ...OTHER_SERIES, label: group.charAt(0).toUpperCase() + group.slice(1) };
    return { name, label: name === group ? style.label : `${style.label}${name.slice(group.length)}`, color: style.color, rank: style.rank };
  });
  return styled.sort((a, b) => a.rank - b.rank || a.name.localeCompare(b.name)).map(({ name, label, color }) => ({ name, label, color }));
}

/**
 * The count axis's ticks: whole numbers from 0 in a step of 1, 2 or 5 times a power of ten, at most
 * five steps, the last at or above `max`. A payment is never a fraction, so neither is a tick.
 */
export function countTicks(max: number): number[] {
  const top = Math.max(1, Math.ceil(max));
  const step = niceStep(top);
  return Array.from({ length: Math.ceil(top / step) + 1 }, (_, i) => i * step);
}

function niceStep(top: number): number {
  for (let power = 1; power < Number.MAX_SAFE_INTEGER; power *= 10) {
    for (const factor of [1, 2, 5]) if (Math.ceil(top / (factor * power)) <= 5) return factor * power;
  }
  return top;
}

/** The highest stack of a chart's rows: what its count axis must reach. */
export function highestStack(rows: ChartSeries['rows'], groups: readonly string[]): number {
  return Math.max(0, ...rows.map((row) => groups.reduce((sum, group) => sum + Number(row[group] ?? 0), 0)));
}

/**
 * How many periods apart the date labels sit so that at most `fit` show: the same step from the first
 * period on, so the labels are evenly spaced (1 labels every period).
 */
export function labelStep(periods: number, fit: number): number {
  return Math.max(1, Math.ceil(periods / Math.max(1, fit)));
}

const SHORT = {
  day: new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' }),
  month: new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'short', year: 'numeric' }),
  long: new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }),
  monthLong: new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'long', year: 'numeric' }),
};

const COMPACT = new Intl.NumberFormat('en-MY', { notation: 'compact', maximumFractionDigits: 1 });

/** An amount on the axis, short enough to stay on one line ("1.6K"); the tooltip has it in full. */
export function axisAmount(units: number): string {
  return COMPACT.format(units);
}

/** A period's label on the axis, in words: "3 Nov" for a day or the week starting on it, "Nov 2026" for a month. */
export function periodLabel(day: string, interval: Interval): string {
  return (interval === 'month' ? SHORT.month : SHORT.day).format(utc(day));
}

/** A period named in full, for the tooltip and the chart's description: "3 Nov 2026", "Week of 3 Nov 2026", "November 2026". */
export function periodName(day: string, interval: Interval): string {
  if (interval === 'month') return SHORT.monthLong.format(utc(day));
  return `${interval === 'week' ? 'Week of ' : ''}${SHORT.long.format(utc(day))}`;
}

export type RangePreset = '7d' | '30d' | '90d' | '12m';

export const RANGE_PRESETS: ReadonlyArray<{ value: RangePreset; label: string }> = [
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '12m', label: '12 months' },
];

/** What the chart asks the report for: the business days `from` to `to` (both included), in periods of `interval`. */
export interface ReportRange {
  from: string;
  to: string;
  interval: Interval;
}

/**
 * A preset's range up to `today` (the business's day). Days for a week or a month; whole weeks for
 * 90 days (the 13 weeks up to this one, from a Monday) and whole months for 12 months (from a 1st),
 * so no bar but the current one counts only part of its period.
 */
export function presetRange(preset: RangePreset, today: string): ReportRange {
  switch (preset) {
    case '7d':
      return { from: addDays(today, -6), to: today, interval: 'day' };
    case '30d':
      return { from: addDays(today, -29), to: today, interval: 'day' };
    case '90d':
      return { from: addDays(mondayOf(today), -7 * 12), to: today, interval: 'week' };
    case '12m':
      return { from: firstOfMonth(monthIndex(today) - 11), to: today, interval: 'month' };
  }
}

/** A range picked by hand: by day up to two months, by week up to half a year, by month beyond (within the report's bounds). */
export function customRange(from: string, to: string): ReportRange {
  const days = daysFrom(from, to) + 1;
  return { from, to, interval: days <= 62 ? 'day' : days <= 183 ? 'week' : 'month' };
}

/** The collections report's query for a range, split by `groupBy`. */
export function reportQuery(range: ReportRange, groupBy?: GroupBy) {
  return {
    interval: range.interval,
    'filter[created_at_between]': `${range.from},${range.to}`,
    ...(groupBy && { group_by: groupBy }),
  };
}
