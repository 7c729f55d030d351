// What the link forms send beside the amount and title: when the link stops taking payment, typed as a
// wall-clock time in the business's time zone (a `datetime-local` field has no zone) and sent as the
// ISO 8601 instant the API takes, and how full a length-limited field is.
import { FIELD_LIMITS } from '@payment-collection/client';

/** Minutes a time zone is ahead of UTC at an instant (negative west of UTC). */
function offsetMinutes(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return Math.round((wall - Math.floor(instant / 1000) * 1000) / 60_000);
}

/**
 * `2026-12-31T23:59` (a `datetime-local` value) in `timeZone` as `2026-12-31T23:59:00+08:00`; empty for
 * no expiry (undefined), and null when it is not such a value.
 */
export function expiryInstant(local: string, timeZone: string): string | undefined | null {
  if (local.trim() === '') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute] = match.map(Number) as [number, number, number, number, number, number];
  const asIfUtc = Date.UTC(year, month - 1, day, hour, minute);
  // The zone's offset at the instant itself, which a first guess from the wall time may miss across a change of offset.
  const offset = offsetMinutes(asIfUtc - offsetMinutes(asIfUtc, timeZone) * 60_000, timeZone);
  const sign = offset < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${local.trim()}:00${sign}${hours}:${minutes}`;
}

export type LimitedField = keyof typeof FIELD_LIMITS;

/** "12 of 50 characters" under a field the API limits; the count is of characters as the API counts them. */
export function characterCount(value: string, field: LimitedField): { text: string; over: string | undefined } {
  const used = [...value].length;
  const limit = FIELD_LIMITS[field];
  return { text: `${used} of ${limit} characters`, over: used > limit ? `At most ${limit} characters.` : undefined };
}

export interface LinkOptions {
  expires_at: string;
  redirect_url: string;
  locale: '' | 'en' | 'ms' | 'zh';
}

/** The options a form filled in, as the API's fields (an empty one left out), or the expiry's error. */
export function linkOptionsBody(
  options: LinkOptions,
  timeZone: string,
): { body: { expires_at?: string; redirect_url?: string; locale?: 'en' | 'ms' | 'zh' } } | { error: string } {
  const expiresAt = expiryInstant(options.expires_at, timeZone);
  if (expiresAt === null) return { error: 'Enter a date and time, such as 31/12/2026 23:59.' };
  return {
    body: {
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      ...(options.redirect_url.trim() ? { redirect_url: options.redirect_url.trim() } : {}),
      ...(options.locale ? { locale: options.locale } : {}),
    },
  };
}
