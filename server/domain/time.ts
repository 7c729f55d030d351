// Timestamps: ISO 8601 UTC with exactly six fractional digits inside `data`, `YYYY-MM-DD HH:MM:SS UTC`
// in `meta`. JavaScript clocks have millisecond precision, so the last three digits are zeros.

export function isoMicros(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

let shownSecond = Number.NaN;
let shownText = '';

/**
 * The envelope's `meta.timestamp` of now. It names the second, so every answer within one second
 * carries the same text, made once that second rather than once an answer.
 */
export function metaTimestampNow(now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== shownSecond) {
    shownText = metaTimestamp(new Date(second * 1000));
    shownSecond = second;
  }
  return shownText;
}

export function metaTimestamp(date: Date): string {
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}

export interface DateRange {
  from: string;
  to: string;
  /** Inclusive lower bound as a timestamp of our format: midnight starting the first day. */
  start: string;
  /** Inclusive upper bound: the last microsecond of the last day (no day after 9999-12-31 is needed). */
  end: string;
  /**
   * Set when the days are a time zone's (local-days.ts, `parseLocalDateRange`) rather than UTC's: the
   * bounds are then not whole UTC days, and no counter kept by UTC day can total the range.
   */
  zone?: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function isDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(2000, Number(match[2]) - 1, Number(match[3])));
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as written.
  date.setUTCFullYear(Number(match[1]));
  // Rejects 2022-02-30 and friends, which Date silently rolls over.
  return date.toISOString().slice(0, 10) === text;
}

/** `YYYY-MM-DD,YYYY-MM-DD` (inclusive UTC days, first not after second), or null when malformed. */
export function parseDateRange(value: string): DateRange | null {
  const parts = value.split(',');
  if (parts.length !== 2) return null;
  const [from = '', to = ''] = parts;
  // Same-width ISO days compare as text in date order.
  if (!isDay(from) || !isDay(to) || from > to) return null;
  return { from, to, start: atOrAfterYearOne(`${from}T00:00:00.000000Z`), end: atOrAfterYearOne(`${to}T23:59:59.999999Z`) };
}

/** The instants of both ranges (a record created in each); one of local days if either is (`zone`). */
export function withinBoth(a: DateRange | undefined, b: DateRange | undefined): DateRange | undefined {
  if (!a || !b) return a ?? b;
  const later = (x: string, y: string) => (x > y ? x : y);
  const earlier = (x: string, y: string) => (x < y ? x : y);
  return { from: later(a.from, b.from), to: earlier(a.to, b.to), start: later(a.start, b.start), end: earlier(a.end, b.end), zone: a.zone ?? b.zone };
}

export const YEAR_ONE = '0001-01-01T00:00:00.000000Z';

/**
 * ISO 8601 has a year 0000 and PostgreSQL's timestamps do not: a bound in it (a client's "from the
 * beginning") is moved to the first instant PostgreSQL has, which excludes no record either database holds.
 */
export function atOrAfterYearOne(timestamp: string): string {
  return timestamp < YEAR_ONE ? YEAR_ONE : timestamp;
}

/** Malaysia has kept UTC+8 all year since 1982: no daylight saving to account for. */
const MALAYSIA_OFFSET_MS = 8 * 3600 * 1000;

/**
 * A time as Swipe's webhooks write it: `d-m-Y h:i:s a` (PHP's date format: day-month-year, 12-hour
 * clock with leading zeros, lower-case am/pm) in Malaysia time, e.g. `02-12-2021 12:08:50 pm`.
 */
export function swipeTime(iso: string): string {
  const local = new Date(Date.parse(iso) + MALAYSIA_OFFSET_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = local.getUTCHours();
  return (
    `${two(local.getUTCDate())}-${two(local.getUTCMonth() + 1)}-${local.getUTCFullYear()} ` +
    `${two(hours % 12 === 0 ? 12 : hours % 12)}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())} ${hours < 12 ? 'am' : 'pm'}`
  );
}
