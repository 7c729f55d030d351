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
  return monthIndex(to) - monthIndex(from) + 1;
}

/** The first day of the bucket `day` is in: itself, the Monday of its week (ISO 8601), the 1st of its month. */
export function bucketStart(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 7)}-01`;
  const days = dayNumber(day);
  const weekday = (((days + 3) % 7) + 7) % 7; // Monday 0 ... Sunday 6: 1970-01-01 was a Thursday
  return dayOfNumber(days - weekday);
}

/**
 * The buckets of a range, as integers: `first` is the first bucket's day number (its Monday's for a
 * week) or month index, `count` how many buckets there are. A report walks these, never days
 * compared as text: `'10000-01-01' <= '9999-12-31'` is true, and a walk that stepped past the last
 * four-digit year that way never ended.
 */
export interface Periods {
  interval: Interval;
  first: number;
  count: number;
}

/** Months since January of year 0: a month's 1st, as an integer. */
export function monthIndex(day: string): number {
  return Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
}

const firstOfMonth = (index: number) => `${String(Math.floor(index / 12)).padStart(4, '0')}-${two((index % 12) + 1)}-01`;
const STEP = { day: 1, week: 7 } as const;

/** The buckets the range `from` to `to` (days, `from` not after `to`) touches: the first and last may hold only part of their period. */
export function periodsOf(from: string, to: string, interval: Interval): Periods {
  if (interval === 'month') {
    const first = monthIndex(from);
    return { interval, first, count: monthIndex(to) - first + 1 };
  }
  const first = dayNumber(bucketStart(from, interval));
  return { interval, first, count: Math.floor((dayNumber(to) - first) / STEP[interval]) + 1 };
}

/** The first day of the bucket at `position` (0 to count - 1). */
export function periodStart(periods: Periods, position: number): string {
  if (periods.interval === 'month') return firstOfMonth(periods.first + position);
  return dayOfNumber(periods.first + position * STEP[periods.interval]);
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The position of the bucket that starts on `start`, or undefined when no bucket of `periods` starts that day. */
export function periodPosition(periods: Periods, start: string): number | undefined {
  if (!DAY.test(start)) return undefined;
  let position: number;
  if (periods.interval === 'month') {
    if (!start.endsWith('-01')) return undefined;
    position = monthIndex(start) - periods.first;
  } else {
    const offset = dayNumber(start) - periods.first;
    if (offset % STEP[periods.interval] !== 0) return undefined;
    position = offset / STEP[periods.interval];
  }
  return position >= 0 && position < periods.count ? position : undefined;
}

/** The start of every bucket the range touches, in order. */
export function bucketStarts(from: string, to: string, interval: Interval): string[] {
  const periods = periodsOf(from, to, interval);
  return Array.from({ length: periods.count }, (_, position) => periodStart(periods, position));
}

/**
 * The first day a report may cover. Four-digit days are all a range can name, so the last is
 * 9999-12-31, whose week (from Monday 9999-12-27) and month start in that year too; year 0000,
 * which ISO 8601 writes and PostgreSQL's dates do not have, is refused. 0001-01-01 is a Monday, so
 * no bucket of a range from it starts before it either.
 */
export const FIRST_DAY = '0001-01-01';

/**
 * How long a range each interval may span: the buckets a chart can show, and the counter rows a
 * report reads (a day and a week read daily rows, a month the yearly rows' month columns).
 */
export const RANGE_LIMITS = { day: { days: 400 }, week: { days: 800 }, month: { months: 120 } } as const;

/** Why the range is too long for the interval (or starts before year 1), saying how to narrow it; undefined when it is not. */
export function rangeProblem(from: string, to: string, interval: Interval): string | undefined {
  const narrow = 'Narrow filter[created_at_between]';
  if (dayNumber(from) < dayNumber(FIRST_DAY))
    return `The filter.created at between must not start before ${FIRST_DAY}. ${narrow} to days from ${FIRST_DAY} on.`;
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
