// Reconciliation: which line of a bank statement is which payout. A line can be a payout's when its amount is
// the payout's to the sen (a negative payout, a debit, matches a withdrawal), its date is within a window of
// business days of the payout's arrival date (3 either way unless told), and, when the payout has a bank
// reference and the line has any text, the line's reference or description contains that reference (compared
// in capitals without spaces or punctuation, as banks shorten and reflow it). A line and a payout are matched
// at most once each.
//
// Among the possible pairs, reference matches are settled first and then the others; within each, the pairs
// closest in business days (then calendar days, then the order of the lines and of the payouts) are taken
// first, and then as many of the rest as can be are paired by moving earlier choices along (augmenting paths,
// as in bipartite matching): two payouts of one amount on nearby days are not left one unmatched because the
// nearer line went to the other first.
import type { StatementLine } from './bank-statements.js';
import type { BusinessCalendar } from './business-days.js';
import { dayNumber } from './report-intervals.js';

export interface ExpectedPayout {
  id: string;
  /** Sen, signed: a payout to the bank is positive, a debit from it negative. */
  amount: number;
  arrival_date: string;
  bank_reference: string | null;
}

/** Why a line or a payout has no match, the nearest miss first. */
export type NoMatchReason =
  /** A possible match was taken by another line or payout that fitted it better. */
  | 'matched_elsewhere'
  /** Amount and dates fit, but the texts do not contain the payout's reference. */
  | 'reference_differs'
  /** The amount fits, but no date within the window. */
  | 'outside_window'
  /** Nothing on the other side has this amount. */
  | 'no_equal_amount'
  /** An amount of 0.00 is no payout and no deposit. */
  | 'zero_amount';

export type LineMatch =
  /** `business_days_apart`: from the payout's arrival date to the line's (negative when the line is dated before it). */
  | { line: number; payout_id: string; by: 'reference' | 'amount_and_date'; business_days_apart: number }
  | { line: number; payout_id: null; reason: NoMatchReason };

export type PayoutMatch = { payout_id: string; line: number; by: 'reference' | 'amount_and_date' } | { payout_id: string; line: null; reason: NoMatchReason };

export interface DepositMatches {
  /** One per line, in the order given. */
  lines: LineMatch[];
  /** One per payout, in the order given. */
  payouts: PayoutMatch[];
}

export const DEFAULT_MATCH_WINDOW_BUSINESS_DAYS = 3;

/** Business days after its arrival a payout's deposit may take to show on a statement before the payout is mismatched. */
export const DEFAULT_DEPOSIT_GRACE_DAYS = 5;

/** The reasons from the nearest miss to the farthest. */
const MISS_ORDER: readonly NoMatchReason[] = ['matched_elsewhere', 'reference_differs', 'outside_window', 'no_equal_amount', 'zero_amount'];

interface Pair {
  line: number;
  payout: number;
  byReference: boolean;
  businessDays: number;
  calendarDays: number;
}

const comparable = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** Pairs sorted by preference: fewer business days apart, then fewer calendar days, then the inputs' order. */
function byPreference(a: Pair, b: Pair): number {
  return Math.abs(a.businessDays) - Math.abs(b.businessDays) || Math.abs(a.calendarDays) - Math.abs(b.calendarDays) || a.line - b.line || a.payout - b.payout;
}

/** Pairs as many of `pairs` (sorted by preference) as possible, each line and payout once, into the two owner arrays. */
function assign(pairs: Pair[], lineOwner: Int32Array, payoutLine: Int32Array): void {
  const usable = pairs.filter((pair) => lineOwner[pair.line] === -1 && payoutLine[pair.payout] === -1);
  const link = (line: number, payout: number) => {
    lineOwner[line] = payout;
    payoutLine[payout] = line;
  };
  for (const pair of usable) if (lineOwner[pair.line] === -1 && payoutLine[pair.payout] === -1) link(pair.line, pair.payout);
  const choices = new Map<number, number[]>();
  for (const pair of usable) {
    const lines = choices.get(pair.payout);
    if (lines) lines.push(pair.line);
    else choices.set(pair.payout, [pair.line]);
  }
  for (const [start] of choices) {
    if (payoutLine[start] !== -1) continue;
    // Breadth first, so the augmenting path found moves as few earlier choices as it can.
    const cameFrom = new Map<number, number>();
    const queue = [start];
    let free = -1;
    for (let head = 0; head < queue.length && free < 0; head += 1) {
      const payout = queue[head]!;
      for (const line of choices.get(payout) ?? []) {
        if (cameFrom.has(line)) continue;
        cameFrom.set(line, payout);
        if (lineOwner[line] === -1) {
          free = line;
          break;
        }
        queue.push(lineOwner[line]!);
      }
    }
    for (let line = free; line >= 0;) {
      const payout = cameFrom.get(line)!;
      const previous = payoutLine[payout]!;
      link(line, payout);
      line = payout === start ? -1 : previous;
    }
  }
}

export function matchDeposits(
  lines: readonly StatementLine[],
  payouts: readonly ExpectedPayout[],
  calendar: BusinessCalendar,
  windowBusinessDays: number = DEFAULT_MATCH_WINDOW_BUSINESS_DAYS,
): DepositMatches {
  const byAmount = new Map<number, number[]>();
  payouts.forEach((payout, index) => {
    const same = byAmount.get(payout.amount);
    if (same) same.push(index);
    else byAmount.set(payout.amount, [index]);
  });
  const references = payouts.map((payout) => comparable(payout.bank_reference ?? ''));
  const pairs: Pair[] = [];
  const lineMiss: NoMatchReason[] = [];
  const payoutMiss: NoMatchReason[] = payouts.map((payout) => (payout.amount === 0 ? 'zero_amount' : 'no_equal_amount'));
  const nearer = (known: NoMatchReason, found: NoMatchReason) => (MISS_ORDER.indexOf(found) < MISS_ORDER.indexOf(known) ? found : known);
  lines.forEach((line, lineIndex) => {
    const text = comparable(`${line.reference} ${line.description}`);
    lineMiss[lineIndex] = line.amount === 0 ? 'zero_amount' : 'no_equal_amount';
    if (line.amount === 0) return;
    for (const payoutIndex of byAmount.get(line.amount) ?? []) {
      const payout = payouts[payoutIndex]!;
      const businessDays = calendar.businessDaysBetween(payout.arrival_date, line.date);
      let miss: NoMatchReason = 'matched_elsewhere';
      if (Math.abs(businessDays) > windowBusinessDays) miss = 'outside_window';
      else if (references[payoutIndex] !== '' && text !== '' && !text.includes(references[payoutIndex]!)) miss = 'reference_differs';
      lineMiss[lineIndex] = nearer(lineMiss[lineIndex]!, miss);
      payoutMiss[payoutIndex] = nearer(payoutMiss[payoutIndex]!, miss);
      if (miss !== 'matched_elsewhere') continue;
      const calendarDays = dayNumber(line.date) - dayNumber(payout.arrival_date);
      pairs.push({ line: lineIndex, payout: payoutIndex, byReference: references[payoutIndex] !== '' && text !== '', businessDays, calendarDays });
    }
  });
  pairs.sort(byPreference);
  const lineOwner = new Int32Array(lines.length).fill(-1);
  const payoutLine = new Int32Array(payouts.length).fill(-1);
  // Reference matches first, so that a pair by amount and date never takes a line a reference names.
  for (const byReference of [true, false])
    assign(
      pairs.filter((pair) => pair.byReference === byReference),
      lineOwner,
      payoutLine,
    );
  const chosen = new Map(pairs.filter((pair) => lineOwner[pair.line] === pair.payout).map((pair) => [pair.line, pair]));
  return {
    lines: lines.map((line, index): LineMatch => {
      const pair = chosen.get(index);
      if (!pair) return { line: line.line, payout_id: null, reason: lineMiss[index]! };
      return {
        line: line.line,
        payout_id: payouts[pair.payout]!.id,
        by: pair.byReference ? 'reference' : 'amount_and_date',
        business_days_apart: pair.businessDays,
      };
    }),
    payouts: payouts.map((payout, index): PayoutMatch => {
      const line = payoutLine[index]!;
      if (line === -1) return { payout_id: payout.id, line: null, reason: payoutMiss[index]! };
      return { payout_id: payout.id, line: lines[line]!.line, by: chosen.get(line)!.byReference ? 'reference' : 'amount_and_date' };
    }),
  };
}
