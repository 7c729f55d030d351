// Business days: the days a bank moves money, which settlement counts in ("available T+2 business days",
// "arrives within 3 business days"). Dates are a business's local days as `YYYY-MM-DD` text (see
// local-days.ts for the day an instant falls on in a time zone); a calendar is a weekend plus holidays.
//
// The counting rule, one for every function here: a non-business day belongs to the business day after it
// (a payment on Saturday is processed on Monday). So `addBusinessDays(date, 0)` is `date` when it is a
// business day and the next business day otherwise, `addBusinessDays(friday, 2)` is Tuesday, and
// `businessDaysBetween(a, b)` counts the business days from `a` included to `b` excluded (negative when `b`
// comes first): Saturday and the Monday after it are 0 apart, Friday and Saturday 1. For every date `a` and
// `n >= 0`, `businessDaysBetween(a, addBusinessDays(a, n)) === n`.
//
// Day arithmetic runs on day numbers (days since 1970-01-01, integers; report-intervals.ts converts them),
// never on dates compared as text, and stays inside years 0001 to 9999: a result beyond them is a
// RangeError, not a date that sorts wrongly.
import { localDay } from './local-days.js';
import { dayNumber, dayOfNumber } from './report-intervals.js';
import { SettingError } from './setting-error.js';

/** As `Date.prototype.getUTCDay` counts them: 0 is Sunday, 6 is Saturday. */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/**
 * Saturday and Sunday, as the banks and most states keep them. Kedah, Kelantan and Terengganu rest on Friday
 * and Saturday instead: a business there sets the weekend (SETTLEMENT_WEEKEND) and its own holiday list.
 */
export const DEFAULT_WEEKEND: readonly Weekday[] = [6, 0];

export interface Holiday {
  date: string;
  name: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The day number (report-intervals.ts) of a `YYYY-MM-DD` date from 0001-01-01 to 9999-12-31, or undefined for anything else. */
export function dayNumberOf(date: string): number | undefined {
  if (!DATE.test(date) || date.startsWith('0000')) return undefined;
  const day = dayNumber(date);
  // Refuses 2025-02-30 and 2025-13-01, which the arithmetic rolls over into the next month or year.
  return dayOfNumber(day) === date ? day : undefined;
}

/** The day number of a date, or a RangeError naming it. */
export function checkedDayNumber(date: string): number {
  const day = dayNumberOf(date);
  if (day === undefined) throw new RangeError(`not a date from 0001-01-01 to 9999-12-31 as YYYY-MM-DD: ${JSON.stringify(date)}`);
  return day;
}

const FIRST_DAY = checkedDayNumber('0001-01-01');
const LAST_DAY = checkedDayNumber('9999-12-31');

/** 1970-01-01, day 0, was a Thursday. */
function weekdayOf(day: number): Weekday {
  return ((((day + 4) % 7) + 7) % 7) as Weekday;
}

/** The first index in the sorted `days` whose value is not below `day`. */
function countBelow(days: readonly number[], day: number): number {
  let [low, high] = [0, days.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (days[middle]! < day) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class BusinessCalendar {
  readonly weekend: readonly Weekday[];
  private readonly resting: readonly boolean[];
  private readonly workdaysPerWeek: number;
  private readonly names = new Map<number, string>();
  /** The holidays that fall on a working weekday, sorted: the only ones that change a count. */
  private readonly closedWorkdays: number[];

  constructor(weekend: readonly Weekday[], holidays: readonly Holiday[]) {
    this.weekend = [...new Set(weekend)];
    this.resting = WEEKDAY_NAMES.map((_, weekday) => this.weekend.includes(weekday as Weekday));
    this.workdaysPerWeek = 7 - this.weekend.length;
    if (this.workdaysPerWeek === 0) throw new SettingError('a weekend of every day of the week leaves no business day');
    for (const holiday of holidays) {
      const day = checkedDayNumber(holiday.date);
      // Two names for one day (a festival and a replacement holiday) are both kept.
      const known = this.names.get(day);
      this.names.set(day, known && known !== holiday.name ? `${known}; ${holiday.name}` : holiday.name);
    }
    this.closedWorkdays = [...this.names.keys()].filter((day) => !this.resting[weekdayOf(day)]).sort((a, b) => a - b);
  }

  /** The holiday's name on that date, if it is one (on a weekend too). */
  holidayName(date: string): string | undefined {
    return this.names.get(checkedDayNumber(date));
  }

  isBusinessDay(date: string): boolean {
    return this.isBusinessDayNumber(checkedDayNumber(date));
  }

  /** The business day `n` (an integer, 0 or more) business days after `date`; see the counting rule at the top. */
  addBusinessDays(date: string, n: number): string {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a count of business days is a whole number from 0, got ${n}`);
    let day = checkedDayNumber(date);
    // At least one business day a week and finitely many holidays: the loop ends, or leaves year 9999 first.
    for (let left = n; ; day += 1) {
      if (day > LAST_DAY) throw new RangeError(`${n} business days after ${date} is after 9999-12-31`);
      if (!this.isBusinessDayNumber(day)) continue;
      if (left === 0) return dayOfNumber(day);
      left -= 1;
    }
  }

  /** Business days from `a` included to `b` excluded; negative when `b` is before `a`. */
  businessDaysBetween(a: string, b: string): number {
    return this.rank(checkedDayNumber(b)) - this.rank(checkedDayNumber(a));
  }

  /** Whether `a` and `b` are at most `n` business days apart, either way round. */
  withinBusinessDays(a: string, b: string, n: number): boolean {
    return Math.abs(this.businessDaysBetween(a, b)) <= n;
  }

  /** The business day `n` business days after the local day (in `timeZone`) on which `instant` falls. */
  businessDaysAfterInstant(instant: Date | string, timeZone: string | null | undefined, n: number): string {
    return this.addBusinessDays(localDay(instant, timeZone), n);
  }

  private isBusinessDayNumber(day: number): boolean {
    return !this.resting[weekdayOf(day)] && !this.names.has(day);
  }

  /** The business days before `day` since 0001-01-01: whole weeks, the days of the last part week, less holidays. */
  private rank(day: number): number {
    const since = day - FIRST_DAY;
    const weeks = Math.floor(since / 7);
    let workdays = weeks * this.workdaysPerWeek;
    for (let at = FIRST_DAY + weeks * 7; at < day; at += 1) if (!this.resting[weekdayOf(at)]) workdays += 1;
    return workdays - countBelow(this.closedWorkdays, day);
  }
}

/** `sat,sun` (the default), `fri,sat`: the days of the week no money moves, by their first three letters. */
export function parseWeekend(text: string): Weekday[] {
  const weekend: Weekday[] = [];
  for (const part of text.split(',')) {
    const name = part.trim().toLowerCase();
    const weekday = WEEKDAY_NAMES.indexOf(name as (typeof WEEKDAY_NAMES)[number]);
    if (weekday < 0) throw new SettingError(`${JSON.stringify(part.trim())} is not a day of the week (${WEEKDAY_NAMES.join(', ')})`);
    if (weekend.includes(weekday as Weekday)) throw new SettingError(`${name} is named twice`);
    weekend.push(weekday as Weekday);
  }
  if (weekend.length === 7) throw new SettingError('a weekend of every day of the week leaves no business day');
  return weekend;
}

/** One holiday as written in a setting or a file: `YYYY-MM-DD` or `YYYY-MM-DD name`. */
function holidayOf(text: string, where: string): Holiday {
  const date = text.slice(0, 10);
  const rest = text.slice(10);
  if (dayNumberOf(date) === undefined || (rest !== '' && !/^\s/.test(rest)))
    throw new SettingError(`${where}: ${JSON.stringify(text)} does not start with a date as YYYY-MM-DD followed by a space and its name`);
  return { date, name: rest.trim() || 'Holiday' };
}

/** `2025-02-01 Federal Territory Day,2025-03-18` (a name is optional): holidays listed in one setting. */
export function parseHolidayList(text: string): Holiday[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part, index) => holidayOf(part, `entry ${index + 1}`));
}

/** A file of `YYYY-MM-DD name` lines; blank lines and lines starting with `#` are skipped. */
export function parseHolidayFile(text: string): Holiday[] {
  const holidays: Holiday[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line !== '' && !line.startsWith('#')) holidays.push(holidayOf(line, `line ${index + 1}`));
  });
  return holidays;
}
