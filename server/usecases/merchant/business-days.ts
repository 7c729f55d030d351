// The days of the business's time zone a list is asked for (`filter[created_on_between]`), as the
// instants they span there.
import { parseLocalDateRange } from '../../domain/local-days.js';
import type { DateRange } from '../../domain/time.js';
import { findBusinessTimeZone } from '../../store/business-profile.js';
import type { UseCaseContext } from '../platform/context.js';

export async function businessDays(ctx: Pick<UseCaseContext, 'db'>, businessId: number, text: string | undefined): Promise<DateRange | undefined> {
  if (text === undefined) return undefined;
  return parseLocalDateRange(text, await findBusinessTimeZone(ctx.db, businessId)) ?? undefined;
}
