// The business's clock: every date the console shows, every day a filter or preset names, and the
// export's times are read in the business's `time_zone` (GET /api/business, editable in Settings).
// The business is read through the same query Settings reads and invalidates, so a saved zone is
// used at once, and once for the whole console (TanStack Query shares it between views).
import { useQuery } from '@tanstack/react-query';
import { dayIn, formatDateTime } from './dates.js';
import { businessQuery } from '../queries/business.js';

export interface BusinessTime {
  /** The business's IANA zone, or undefined until it is read. */
  timeZone: string | undefined;
  /** An instant on the business's clock ("29 Nov 2026, 5:24 am"); "…" until the zone is known, in UTC (said so) if it cannot be read. */
  dateTime(instant: string): string;
  /** The business's day today (YYYY-MM-DD); undefined until the zone is known. */
  today(): string | undefined;
}

export function useBusinessTime(): BusinessTime {
  const business = useQuery({ ...businessQuery(), staleTime: 5 * 60_000 });
  const timeZone = business.data?.data.time_zone;
  return {
    timeZone,
    dateTime(instant) {
      if (timeZone !== undefined) return formatDateTime(instant, timeZone);
      // A member the API refuses the business to still reads a time, said to be UTC rather than passed off as theirs.
      return business.isError ? `${formatDateTime(instant, 'UTC')} UTC` : '…';
    },
    today: () => (timeZone === undefined ? undefined : dayIn(new Date(), timeZone)),
  };
}
