// A business's days: the calendar day an instant falls on in the business's time zone (its profile's
// `time_zone`, Malaysia's unless it chose another), which is the day a payment is reported on
// (GET /api/reports/collections), and the stretches of time over which a zone keeps one offset from
// UTC, which let a database without time zones (SQLite) place many stored instants at once.

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
