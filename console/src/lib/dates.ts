// Dates as the console shows them: always in a time zone the caller names, the business's own (its
// `time_zone` from GET /api/business, read once by useBusinessTime). There is no default zone here: a
// default is what showed every business Kuala Lumpur's clock whatever it had chosen.

/** The calendar day (YYYY-MM-DD) an instant falls on in a time zone. */
export function dayIn(instant: Date | string, timeZone: string): string {
  const date = typeof instant === 'string' ? new Date(instant) : instant;
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

export function formatDateTime(instant: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-MY', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(instant));
}

/** The instant with the zone's offset in place of UTC's Z (2026-11-29T05:24:03+08:00): the same moment, read on the zone's clock and day. */
export function isoIn(instant: string, timeZone: string): string {
  const date = new Date(instant);
  // Sweden's way of writing a date and time is ISO 8601's, with a space for the T.
  const local = new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(date).replace(' ', 'T');
  const zone = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(date).find((part) => part.type === 'timeZoneName');
  // "GMT+08:00", or a bare "GMT" for UTC itself.
  const offset = zone?.value.replace('GMT', '') ?? '';
  return `${local}${offset === '' ? '+00:00' : offset}`;
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

export const DATE_PRESETS = ['Today', 'Last 7 days', 'Last 30 days', 'This month'] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

/** The days `from,to` a preset names, counted back from the business's today (that day included). */
export function presetRange(preset: DatePreset, today: string): string {
  switch (preset) {
    case 'Today':
      return `${today},${today}`;
    case 'Last 7 days':
      return `${addDays(today, -6)},${today}`;
    case 'Last 30 days':
      return `${addDays(today, -29)},${today}`;
    case 'This month':
      return `${today.slice(0, 8)}01,${today}`;
  }
}
