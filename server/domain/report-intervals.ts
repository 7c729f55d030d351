// The periods of a report (GET /api/reports/collections): the buckets a range of a business's days
// is cut into (days, weeks from Monday, calendar months), how long a range each interval may span,
// and the range asked for when none is given. Days are `YYYY-MM-DD` in the business's time zone.

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

const DAY_MS = 86_400_000;

const toMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const toDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function addDays(day: string, days: number): string {
  return toDay(toMs(day) + days * DAY_MS);
}

/** Days from `from` to `to`, both included. */
export function daysIn(from: string, to: string): number {
  return Math.round((toMs(to) - toMs(from)) / DAY_MS) + 1;
}

/** Calendar months from `from`'s to `to`'s, both included. */
export function monthsIn(from: string, to: string): number {
  const index = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
  return index(to) - index(from) + 1;
}

/** The first day of the bucket `day` is in: itself, the Monday of its week (ISO 8601), the 1st of its month. */
export function bucketStart(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 7)}-01`;
  const weekday = (new Date(toMs(day)).getUTCDay() + 6) % 7; // Monday 0 ... Sunday 6
  return addDays(day, -weekday);
}

/** The first day of the bucket after the one starting on `start`. */
export function nextBucket(start: string, interval: Interval): string {
  if (interval === 'day') return addDays(start, 1);
  if (interval === 'week') return addDays(start, 7);
  const [year, month] = [Number(start.slice(0, 4)), Number(start.slice(5, 7))];
  return month === 12 ? `${String(year + 1).padStart(4, '0')}-01-01` : `${start.slice(0, 5)}${String(month + 1).padStart(2, '0')}-01`;
}

/** The start of every bucket the range touches, in order: the first and last may hold only part of their period. */
export function bucketStarts(from: string, to: string, interval: Interval): string[] {
  const starts: string[] = [];
  for (let start = bucketStart(from, interval); start <= to; start = nextBucket(start, interval)) starts.push(start);
  return starts;
}

/**
 * How long a range each interval may span: the buckets a chart can show, and the counter rows a
 * report reads (a day and a week read daily rows, a month the yearly rows' month columns).
 */
export const RANGE_LIMITS = { day: { days: 400 }, week: { days: 800 }, month: { months: 120 } } as const;

/** Why the range is too long for the interval, saying how to narrow it; undefined when it is not. */
export function rangeTooLong(from: string, to: string, interval: Interval): string | undefined {
  const narrow = 'Narrow filter[created_at_between]';
  if (interval === 'month') {
    const { months } = RANGE_LIMITS.month;
    if (monthsIn(from, to) <= months) return undefined;
    return `The filter.created at between must not span more than ${months} months with interval=month. ${narrow} to ${months} months or less.`;
  }
  const { days } = RANGE_LIMITS[interval];
  if (daysIn(from, to) <= days) return undefined;
  const wider = interval === 'day' ? `, or ask for interval=week (up to ${RANGE_LIMITS.week.days} days) or interval=month` : ', or ask for interval=month';
  return `The filter.created at between must not span more than ${days} days with interval=${interval}. ${narrow} to ${days} days or less${wider}.`;
}

/**
 * The range a report covers when none is asked for, ending today: the last 30 days, the last 12
 * weeks (from the Monday 11 weeks before this week's) or the last 12 months (from the 1st).
 */
export function defaultRange(today: string, interval: Interval): { from: string; to: string } {
  if (interval === 'day') return { from: addDays(today, -29), to: today };
  if (interval === 'week') return { from: addDays(bucketStart(today, 'week'), -77), to: today };
  let from = bucketStart(today, 'month');
  for (let i = 0; i < 11; i += 1) from = bucketStart(addDays(from, -1), 'month');
  return { from, to: today };
}
