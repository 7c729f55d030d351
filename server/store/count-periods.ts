// A range of UTC days cut into the periods the counters are kept at (`counters/declaration.ts`): the
// whole years inside it, the whole months inside what remains at either end, and the days left at
// the edges of those. Whatever the range's length, that is at most one run of years, two runs of
// months and four runs of days (none of them two months long), so a total sums a bounded number of rows.

/** Inclusive runs of keys: years `YYYY`, months `YYYY-MM`, days `YYYY-MM-DD`. */
export interface PeriodCover {
  years: [string, string][];
  months: [string, string][];
  days: [string, string][];
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const yearOf = (day: string) => Number(day.slice(0, 4));
/** Months since year 0, so that month arithmetic never leaves the four-digit years. */
const monthIndex = (day: string) => yearOf(day) * 12 + Number(day.slice(5, 7)) - 1;
const monthKey = (index: number) => `${pad(Math.floor(index / 12), 4)}-${pad((index % 12) + 1, 2)}`;

/** Days in a month of the proleptic Gregorian calendar, the one Date (and so parseDateRange) uses. */
function daysIn(index: number): number {
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
const firstDay = (index: number) => `${monthKey(index)}-01`;
const lastDay = (index: number) => `${monthKey(index)}-${pad(daysIn(index), 2)}`;

function coverMonths(from: string, to: string, cover: PeriodCover): void {
  const [a, b] = [monthIndex(from), monthIndex(to)];
  const first = from === firstDay(a) ? a : a + 1;
  const last = to === lastDay(b) ? b : b - 1;
  if (first > last) {
    cover.days.push([from, to]);
    return;
  }
  cover.months.push([monthKey(first), monthKey(last)]);
  if (first > a) cover.days.push([from, lastDay(a)]);
  if (last < b) cover.days.push([firstDay(b), to]);
}

/** `from` and `to` are days `YYYY-MM-DD`, `from` not after `to` (a parsed DateRange). */
export function coverByPeriods(from: string, to: string): PeriodCover {
  const cover: PeriodCover = { years: [], months: [], days: [] };
  const [a, b] = [yearOf(from), yearOf(to)];
  const first = from.endsWith('-01-01') ? a : a + 1;
  const last = to.endsWith('-12-31') ? b : b - 1;
  if (first > last) {
    coverMonths(from, to, cover);
    return cover;
  }
  cover.years.push([pad(first, 4), pad(last, 4)]);
  if (first > a) coverMonths(from, `${pad(a, 4)}-12-31`, cover);
  if (last < b) coverMonths(`${pad(b, 4)}-01-01`, to, cover);
  return cover;
}
