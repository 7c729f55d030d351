// The periods of a report (GET /api/reports/collections): the buckets a range of a business's days
// is cut into (days, weeks from Monday, calendar months), how long a range each interval may span,
// and the range asked for when none is given. Days are `YYYY-MM-DD` in the business's time zone.

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

// A report walks hundreds of days a request: the day's number is read from its digits and written
// back with integer arithmetic, where parsing and printing a Date took most of a long report's time.
/** Days since 1970-01-01 (negative before it): Howard Hinnant's days_from_civil. */
export function dayNumber(day: string): number {
  const month = Number(day.slice(5, 7));
  const year = Number(day.slice(0, 4)) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + Number(day.slice(8, 10)) - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** The `YYYY-MM-DD` of a day's number: Howard Hinnant's civil_from_days. */
export function dayOfNumber(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153); // months from March
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`;
}

export function addDays(day: string, days: number): string {
  return dayOfNumber(dayNumber(day) + days);
}

/** Days from `from` to `to`, both included. */
export function daysIn(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from) + 1;
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
  const days = dayNumber(day);
  const weekday = (((days + 3) % 7) + 7) % 7; // Monday 0 ... Sunday 6: 1970-01-01 was a Thursday
  return dayOfNumber(days - weekday);
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
