// Timestamps: ISO 8601 UTC with exactly six fractional digits inside `data`, `YYYY-MM-DD HH:MM:SS UTC`
// in `meta`. JavaScript clocks have millisecond precision, so the last three digits are zeros.

export function isoMicros(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function metaTimestamp(date: Date): string {
  return date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
}

export interface DateRange {
  from: string;
  to: string;
  /** Inclusive lower bound as a timestamp of our format. */
  start: string;
  /** Exclusive upper bound: midnight after the last day. */
  end: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDay(text: string): Date | null {
  const match = DAY.exec(text);
  if (!match) return null;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  // Rejects 2022-02-30 and friends, which Date.UTC silently rolls over.
  return date.toISOString().slice(0, 10) === text ? date : null;
}

/** `YYYY-MM-DD,YYYY-MM-DD` (inclusive UTC days, first not after second), or null when malformed. */
export function parseDateRange(value: string): DateRange | null {
  const parts = value.split(',');
  if (parts.length !== 2) return null;
  const [fromText = '', toText = ''] = parts;
  const from = parseDay(fromText);
  const to = parseDay(toText);
  if (!from || !to || from > to) return null;
  const end = new Date(to.getTime() + 86_400_000);
  return { from: fromText, to: toText, start: isoMicros(from), end: isoMicros(end) };
}
