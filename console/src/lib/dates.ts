// Dates as the console shows them. The business's `time_zone` is in the contract (GET /api/business) and
// editable in Settings, but no caller passes it here yet: every date is shown in Asia/Kuala_Lumpur, the
// contract's default, whatever zone the business chose.
export const BUSINESS_TIME_ZONE = 'Asia/Kuala_Lumpur';

/** The calendar day (YYYY-MM-DD) an instant falls on in a time zone. */
export function dayIn(instant: Date | string, timeZone = BUSINESS_TIME_ZONE): string {
  const date = typeof instant === 'string' ? new Date(instant) : instant;
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

export function formatDateTime(instant: string, timeZone = BUSINESS_TIME_ZONE): string {
  return new Intl.DateTimeFormat('en-MY', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(instant));
}

export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Every day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

/**
 * The API's `filter[created_at_between]` takes UTC days; a business day east of UTC starts on the UTC
 * day before. The range asked covers the business days, and the caller drops what falls outside.
 */
export function utcRangeCovering(from: string, to: string): string {
  return `${addDays(from, -1)},${addDays(to, 1)}`;
}
