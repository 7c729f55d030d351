// A business's days: the calendar day an instant falls on in the business's time zone (its profile's
// `time_zone`, Malaysia's unless it chose another), which is the day a payment is reported on
// (GET /api/reports/collections), the instants a range of such days spans (the lists'
// `filter[created_on_between]`), and the stretches of time over which a zone keeps one offset from
// UTC, which let a database without time zones (SQLite) place many stored instants at once.

import { atOrAfterYearOne, parseDateRange, YEAR_ONE, type DateRange } from './time.js';

/** A business's zone unless it chose another: Malaysia's, as the Swipe fields and receipts use. */
export const DEFAULT_TIME_ZONE = 'Asia/Kuala_Lumpur';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The wall clock of `zone` at `ms`, as if it were UTC: its year, month, day and time of day. */
function wallClock(zone: string, ms: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(new Date(ms))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = new Date(Date.UTC(2000, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!));
  wall.setUTCFullYear(parts.year!);
  return wall.getTime();
}

/** Minutes `zone` is ahead of UTC at the instant `ms` (negative west of Greenwich). */
export function offsetMinutes(zone: string, ms: number): number {
  const second = Math.floor(ms / 1000) * 1000;
  return Math.round((wallClock(zone, second) - second) / 60_000);
}

/** A zone the platform does not know (none is stored: the profile checks it) is read as the default. */
function knownZone(zone: string | null | undefined): string {
  if (!zone) return DEFAULT_TIME_ZONE;
  try {
    formatterFor(zone);
    return zone;
  } catch {
    return DEFAULT_TIME_ZONE;
  }
}

/** The day `YYYY-MM-DD` that the instant (a Date or an ISO timestamp) falls on in `zone`. */
export function localDay(instant: Date | string, zone: string | null | undefined): string {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  return new Date(wallClock(knownZone(zone), ms)).toISOString().slice(0, 10);
}

export interface OffsetSpan {
  /** First instant of the span (ms since the epoch), included. */
  from: number;
  /** End of the span (ms), excluded. */
  to: number;
  offsetMinutes: number;
}

const HOUR = 3_600_000;

/**
 * The instants from `from` to `to` (ms, `to` excluded) cut where `zone` changes its offset from UTC:
 * each span has one offset, so a stored instant's local day there is its UTC time moved by that
 * offset. A zone changes its offset a few times a year at most, and never within hours of a
 * previous change, so sampling every hour finds every change, and halving finds its second.
 */
export function offsetSpans(zone: string | null | undefined, from: number, to: number): OffsetSpan[] {
  const known = knownZone(zone);
  const spans: OffsetSpan[] = [];
  let start = from;
  let offset = offsetMinutes(known, from);
  for (let at = from; at < to;) {
    const next = Math.min(at + HOUR, to);
    const after = offsetMinutes(known, next);
    if (after !== offset && next < to) {
      // The change lies in (at, next]: the first second with the new offset.
      // Whole seconds from `low`, which keeps the old offset as `at` does (offsets are read per second).
      let [low, high] = [Math.floor(at / 1000) * 1000, next];
      while (high - low > 1000) {
        const middle = low + Math.floor((high - low) / 2000) * 1000;
        if (offsetMinutes(known, middle) === offset) low = middle;
        else high = middle;
      }
      spans.push({ from: start, to: high, offsetMinutes: offset });
      start = high;
      offset = offsetMinutes(known, high);
    }
    at = next;
  }
  spans.push({ from: start, to, offsetMinutes: offset });
  return spans;
}

const DAY_MS = 24 * HOUR;
const LAST_INSTANT = '9999-12-31T23:59:59.999999Z';

/** Midnight UTC starting `day` (ms); years 0-99 kept as written. */
function utcMidnight(day: string): number {
  const date = new Date(Date.UTC(2000, Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))));
  date.setUTCFullYear(Number(day.slice(0, 4)));
  return date.getTime();
}

/**
 * The first instant (ms) that `zone` calls `day` or later: where `day` starts there, even on a day a
 * change of offset shortens or lengthens. No zone is more than 14 hours ahead of UTC or 12 behind,
 * so it lies within hours of UTC's midnight, and the local day only grows with the instant.
 */
function firstInstantOf(day: string, zone: string): number {
  let [before, atOrAfter] = [utcMidnight(day) - 15 * HOUR, utcMidnight(day) + 13 * HOUR];
  while (atOrAfter - before > 1) {
    const middle = before + Math.floor((atOrAfter - before) / 2);
    if (localDay(new Date(middle), zone) >= day) atOrAfter = middle;
    else before = middle;
  }
  return atOrAfter;
}

/** An instant (ms) in the format stored timestamps are compared in, with `micros` after its milliseconds. */
const timestampOf = (ms: number, micros: '000' | '999') => new Date(ms).toISOString().replace(/Z$/, `${micros}Z`);

/**
 * `YYYY-MM-DD,YYYY-MM-DD` as days of `zone`, both included: from the first instant of the first day
 * there to the last microsecond before the day after the last; null when malformed. Bounds past
 * what the store holds (before year 1, after 9999) are the store's first and last instants.
 */
export function parseLocalDateRange(value: string, zone: string | null | undefined): DateRange | null {
  const days = parseDateRange(value);
  if (!days) return null;
  const known = knownZone(zone);
  // Year 1's first day would be searched for in year 0, which the platform's calendar writes as year 1 BC.
  const start = days.from <= '0001-01-01' ? YEAR_ONE : timestampOf(firstInstantOf(days.from, known), '000');
  const dayAfter = new Date(utcMidnight(days.to) + DAY_MS).toISOString().slice(0, 10);
  const end = days.to >= '9999-12-31' ? LAST_INSTANT : timestampOf(firstInstantOf(dayAfter, known) - 1, '999');
  // PostgreSQL has no year 0: bounds before year 1 move to its first instant, as parseDateRange's do.
  return { from: days.from, to: days.to, start: atOrAfterYearOne(start), end: atOrAfterYearOne(end), zone: known };
}
