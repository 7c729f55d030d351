// The values of a bank statement's cells as banks write them: amounts (`1,234.56`, `-12.00`, `12.00 CR`,
// `RM 1,234.56`, `(12.00)`, `12.00-`) into signed sen, and dates in a given day-month-year order into
// `YYYY-MM-DD`. Each answers a value or the reason it cannot, never a guess: an amount with a third decimal,
// or with two signs that could disagree, is refused.
import { dayNumberOf } from './business-days.js';

/** A cell longer than this is no amount or date (and the patterns below never see a long text). */
const MAX_CELL = 64;

export type Parsed<T> = { value: T } | { problem: string };

const NUMBER = /^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?$/;
/** Sen in a whole number: at most 13 digits of ringgit keeps every amount a safe integer. */
const MAX_WHOLE_DIGITS = 13;

/** The marks of a credit (1) or a debit (-1) after the number, and before it. */
const AFTER: Record<string, number> = { CR: 1, DR: -1, '-': -1, '+': 1 };
const BEFORE: Record<string, number> = { '-': -1, '+': 1 };
const CURRENCIES = ['MYR', 'RM'];

/** The text without the first of `markers` it starts (or ends) with, case-insensitively, and which one that was. */
function strip(text: string, markers: string[], end: 'start' | 'end'): [string, string | undefined] {
  const upper = text.toUpperCase();
  for (const marker of markers)
    if (end === 'start' ? upper.startsWith(marker) : upper.endsWith(marker))
      return [(end === 'start' ? text.slice(marker.length) : text.slice(0, -marker.length)).trim(), marker];
  return [text, undefined];
}

/**
 * An amount in signed sen: a deposit (credit: no sign, `+`, `CR`) is positive, a withdrawal (debit: `-` before
 * or after the number, `DR`, parentheses) negative. `RM` or `MYR` may lead; commas separate thousands.
 */
export function parseStatementAmount(cell: string): Parsed<number> {
  const written = cell.trim();
  if (written === '') return { problem: 'no amount' };
  if (written.length > MAX_CELL) return { problem: `an amount of ${written.length} characters` };
  const signs: number[] = [];
  let text = written;
  const sign = (marks: Record<string, number>, end: 'start' | 'end') => {
    const [rest, mark] = strip(text, Object.keys(marks), end);
    if (mark === undefined) return;
    text = rest;
    signs.push(marks[mark]!);
  };
  sign(AFTER, 'end');
  if (text.startsWith('(') && text.endsWith(')')) {
    text = text.slice(1, -1).trim();
    signs.push(-1);
  }
  sign(BEFORE, 'start');
  text = strip(text, CURRENCIES, 'start')[0];
  sign(BEFORE, 'start');
  if (signs.length > 1) return { problem: `${JSON.stringify(written)} has more than one sign` };
  if (!NUMBER.test(text)) return { problem: `${JSON.stringify(written)} is not an amount with at most two decimals` };
  const [whole = '', fraction = ''] = text.replaceAll(',', '').split('.');
  if (whole.replace(/^0+/, '').length > MAX_WHOLE_DIGITS) return { problem: `${JSON.stringify(written)} is too large` };
  const sen = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  // `-0.00` is 0, not -0.
  return { value: signs[0] === -1 && sen !== 0 ? -sen : sen };
}

/** How a statement writes its dates: day, month and year in this order. */
export type DateOrder = 'DMY' | 'MDY' | 'YMD';

/** English and Malay month abbreviations (Mac, Mei, Ogos, Okt, Dis), as Malaysian banks print them. */
const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  mac: 3,
  apr: 4,
  may: 5,
  mei: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  ogo: 8,
  sep: 9,
  oct: 10,
  okt: 10,
  nov: 11,
  dec: 12,
  dis: 12,
};

function monthOf(part: string): number | undefined {
  if (/^\d{1,2}$/.test(part)) return Number(part);
  return /^[a-z]{3,9}$/i.test(part) ? MONTHS[part.slice(0, 3).toLowerCase()] : undefined;
}

/** The text before a time of day (`10:22`, `2:22 PM`, ISO's `T10:22:01`), which a statement may write after the date. */
function withoutTime(text: string): string {
  const colon = text.indexOf(':');
  if (colon < 0) return text;
  let end = colon;
  while (end > 0 && text[end - 1]! >= '0' && text[end - 1]! <= '9') end -= 1;
  while (end > 0 && (text[end - 1] === 'T' || text[end - 1]!.trim() === '')) end -= 1;
  return text.slice(0, end);
}

/** A date as `order` says (separated by `/`, `-`, `.` or spaces; months as numbers or names; two-digit years are 20xx). */
export function parseStatementDate(cell: string, order: DateOrder): Parsed<string> {
  const text = cell.trim();
  if (text === '') return { problem: 'no date' };
  if (text.length > MAX_CELL) return { problem: `a date of ${text.length} characters` };
  const parts = withoutTime(text).split(/[-/. ]+/);
  const unreadable = {
    problem: `${JSON.stringify(text)} is not a date written ${order === 'YMD' ? 'year, month, day' : order === 'DMY' ? 'day, month, year' : 'month, day, year'}`,
  };
  if (parts.length !== 3) return unreadable;
  const [y, m, d] = order === 'YMD' ? parts : order === 'DMY' ? [parts[2], parts[1], parts[0]] : [parts[2], parts[0], parts[1]];
  const month = monthOf(m!);
  if (!/^\d{1,2}$/.test(d!) || month === undefined || !/^(?:\d{2}|\d{4})$/.test(y!)) return unreadable;
  const year = y!.length === 2 ? `20${y}` : y!;
  const date = `${year}-${String(month).padStart(2, '0')}-${d!.padStart(2, '0')}`;
  return dayNumberOf(date) === undefined ? { problem: `${JSON.stringify(text)} is not a day of the calendar` } : { value: date };
}
