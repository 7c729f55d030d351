// Timestamps: ISO 8601 UTC with exactly six fractional digits inside `data`, `YYYY-MM-DD HH:MM:SS UTC`
// in `meta`. JavaScript clocks have millisecond precision, so the last three digits are zeros.

export function isoMicros(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
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
  return { from, to, start: `${from}T00:00:00.000000Z`, end: `${to}T23:59:59.999999Z` };
}
