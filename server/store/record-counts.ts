import type { Knex } from 'knex';
import type { DateRange } from '../domain/time.js';
import { coverByPeriods } from './count-periods.js';
import { byDay, byYear, MONTH_COLUMNS, type Counter } from './counters/declaration.js';
import { fixedQuery, type Executor } from './executor.js';

/** Values of a counter's columns to count: one value, any of several, or (undefined) any. */
export type CountMatch = Record<string, string | number | readonly (string | number)[] | undefined>;

/**
 * How many rows a counter counts for a business (live links, payments) with the given column values,
 * created on the days of `range` (all days without one), from the counts its triggers keep
 * (counters/declaration.ts): whole years and the months at a range's edges from the yearly rows, the
 * days at the edges of those from the daily rows, so the rows read do not grow with the length of the
 * range or of the history. Undefined for days of a time zone (`range.zone`): the counters keep UTC
 * days, and such a day is parts of two; the caller counts the rows instead.
 */
export async function countOf(db: Executor, counter: Counter, businessId: number, match: CountMatch = {}, range?: DateRange): Promise<number | undefined> {
  if (range?.zone !== undefined) return undefined;
  const columns = new Set([...(counter.within ?? []), ...counter.by].map((column) => column.name));
  const rows = (table: string) => {
    const query = db.sql(table).where('business_id', businessId);
    for (const [name, value] of Object.entries(match)) {
      if (!columns.has(name)) throw new Error(`${counter.name} does not count by ${name}`);
      if (Array.isArray(value)) query.whereIn(name, value);
      else if (value !== undefined) query.where(name, value as string | number);
    }
    return query;
  };
  if (!range) {
    const matched = Object.entries(match).filter(([, value]) => value !== undefined);
    for (const [name] of matched) if (!columns.has(name)) throw new Error(`${counter.name} does not count by ${name}`);
    // A whole history's total, asked by every unfiltered list: compiled once per counter and columns matched.
    const scalar = matched.every(([, value]) => !Array.isArray(value));
    const row = await db.first<{ live: number | string | null }>(
      scalar
        ? fixedQuery<string>(
            db,
            `${counter.name} total ${matched.map(([name]) => name).join(',')}`,
            (sql, param) => {
              const query = sql(byYear(counter)).where('business_id', param(' business'));
              for (const [name] of matched) query.where(name, param(name));
              return query.sum({ live: 'live' });
            },
            { ...Object.fromEntries(matched), ' business': businessId },
          )
        : rows(byYear(counter)).sum({ live: 'live' }),
    );
    return Number(row?.live ?? 0);
  }
  const { years, months, days } = coverByPeriods(range.from, range.to);
  const parts: Knex.QueryBuilder[] = [
    ...years.map(([from, to]) =>
      rows(byYear(counter))
        .select('live')
        .whereBetween('year', [Number(from), Number(to)]),
    ),
    ...months.flatMap(([from, to]) =>
      monthsOfYears(from, to).map(({ year, sum }) =>
        rows(byYear(counter))
          .select(db.sql.raw(`${sum} as live`))
          .where('year', year),
      ),
    ),
    ...days.map((run) => rows(byDay(counter)).select('live').whereBetween('day', run)),
  ];
  const [first, ...rest] = parts;
  const pieces = rest.length > 0 ? first!.unionAll(rest) : first!;
  const row = await db.first<{ live: number | string | null }>(db.sql.from(pieces.as('pieces')).sum({ live: 'live' }));
  return Number(row?.live ?? 0);
}

/** A run of months `YYYY-MM` to `YYYY-MM` as, per year, the sum of its month columns in that year's rows. */
function monthsOfYears(from: string, to: string): { year: number; sum: string }[] {
  const [fromYear, fromMonth] = from.split('-').map(Number) as [number, number];
  const [toYear, toMonth] = to.split('-').map(Number) as [number, number];
  const out: { year: number; sum: string }[] = [];
  for (let year = fromYear; year <= toYear; year += 1) {
    const first = year === fromYear ? fromMonth : 1;
    const last = year === toYear ? toMonth : 12;
    out.push({ year, sum: MONTH_COLUMNS.slice(first - 1, last).join(' + ') });
  }
  return out;
}
