// Reconciliation (domain/deposit-matching.ts): statement lines against expected payouts, by amount, a window of
// business days across weekends and holidays, and the payout's bank reference; each matched once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BANK_PRESETS } from '../../server/domain/bank-statement-presets.js';
import { readBankStatement, type StatementLine } from '../../server/domain/bank-statements.js';
import { matchDeposits, type ExpectedPayout } from '../../server/domain/deposit-matching.js';
import { malaysianCalendar } from '../../server/domain/malaysian-holidays.js';

const calendar = malaysianCalendar();

let nextLine = 1;
const line = (date: string, amount: number, description = '', reference = ''): StatementLine => ({ line: nextLine++, date, amount, reference, description });
const payout = (id: string, arrival_date: string, amount: number, bank_reference: string | null = null): ExpectedPayout => ({
  id,
  amount,
  arrival_date,
  bank_reference,
});

describe('matchDeposits', () => {
  it('matches on the amount to the sen within 3 business days, across a weekend and Hari Raya', () => {
    const lines = [line('2025-03-27', 9_800), line('2025-03-26', 9_800), line('2025-04-03', 9_801)];
    const result = matchDeposits(lines, [payout('po_a', '2025-04-03', 9_800)], calendar);
    expect(result.payouts).toEqual([{ payout_id: 'po_a', line: lines[0]!.line, by: 'amount_and_date' }]);
    expect(result.lines).toEqual([
      { line: lines[0]!.line, payout_id: 'po_a', by: 'amount_and_date', business_days_apart: -3 },
      { line: lines[1]!.line, payout_id: null, reason: 'outside_window' },
      { line: lines[2]!.line, payout_id: null, reason: 'no_equal_amount' },
    ]);
  });

  it("prefers the line that carries the payout's reference over a nearer one without any text", () => {
    const near = line('2025-07-07', 123_456);
    const referenced = line('2025-07-09', 123_456, 'IBG CREDIT SANDBOX PAY', 'po-7f3k2');
    const result = matchDeposits([near, referenced], [payout('po_a', '2025-07-07', 123_456, 'PO 7F3K2')], calendar);
    expect(result.lines).toEqual([
      { line: near.line, payout_id: null, reason: 'matched_elsewhere' },
      { line: referenced.line, payout_id: 'po_a', by: 'reference', business_days_apart: 2 },
    ]);
  });

  it("does not match a line whose text lacks the payout's reference, even on the day", () => {
    const other = line('2025-07-07', 5_000, 'DUITNOW CR SOMEONE ELSE');
    const result = matchDeposits([other], [payout('po_a', '2025-07-07', 5_000, 'PO9XQ4')], calendar);
    expect(result.lines).toEqual([{ line: other.line, payout_id: null, reason: 'reference_differs' }]);
    expect(result.payouts).toEqual([{ payout_id: 'po_a', line: null, reason: 'reference_differs' }]);
  });

  it('takes the closest date when several lines fit, counting business days before calendar days', () => {
    const friday = line('2025-07-04', 1_000);
    const tuesday = line('2025-07-08', 1_000);
    const thursday = line('2025-07-03', 1_000);
    // Arrival on Monday: Friday is 1 business day (3 calendar days) away, Tuesday 1 (1), Thursday 2.
    const result = matchDeposits([friday, tuesday, thursday], [payout('po_a', '2025-07-07', 1_000)], calendar);
    expect(result.payouts).toEqual([{ payout_id: 'po_a', line: tuesday.line, by: 'amount_and_date' }]);
  });

  it('pairs two payouts of one amount on nearby days with two lines, even where the nearest choice would strand one', () => {
    // Monday's payout can only be Tuesday's line (Friday's is 4 business days on); Tuesday's payout fits both lines.
    const tuesday = line('2025-07-08', 2_500);
    const friday = line('2025-07-11', 2_500);
    const payouts = [payout('po_mon', '2025-07-07', 2_500), payout('po_tue', '2025-07-08', 2_500)];
    const result = matchDeposits([tuesday, friday], payouts, calendar);
    expect(result.lines).toEqual([
      { line: tuesday.line, payout_id: 'po_mon', by: 'amount_and_date', business_days_apart: 1 },
      { line: friday.line, payout_id: 'po_tue', by: 'amount_and_date', business_days_apart: 3 },
    ]);
  });

  it('matches each line once: two payouts of one amount on one day and a single line leave one payout unmatched', () => {
    const only = line('2025-07-08', 700);
    const result = matchDeposits([only], [payout('po_1', '2025-07-08', 700), payout('po_2', '2025-07-08', 700)], calendar);
    expect(result.payouts).toEqual([
      { payout_id: 'po_1', line: only.line, by: 'amount_and_date' },
      { payout_id: 'po_2', line: null, reason: 'matched_elsewhere' },
    ]);
  });

  it('matches each payout once: a duplicated statement line is left over', () => {
    const first = line('2025-10-17', 4_200, 'PO-DUP');
    const again = line('2025-10-17', 4_200, 'PO-DUP');
    const result = matchDeposits([first, again], [payout('po_a', '2025-10-21', 4_200, 'PO-DUP')], calendar);
    expect(result.lines).toEqual([
      { line: first.line, payout_id: 'po_a', by: 'reference', business_days_apart: -1 },
      { line: again.line, payout_id: null, reason: 'matched_elsewhere' },
    ]);
  });

  it('matches a negative payout with a withdrawal, never a deposit of the same size', () => {
    const deposit = line('2025-07-08', 2_500);
    const withdrawal = line('2025-07-09', -2_500);
    const result = matchDeposits([deposit, withdrawal], [payout('po_debit', '2025-07-08', -2_500)], calendar);
    expect(result.payouts).toEqual([{ payout_id: 'po_debit', line: withdrawal.line, by: 'amount_and_date' }]);
    expect(result.lines[0]).toEqual({ line: deposit.line, payout_id: null, reason: 'no_equal_amount' });
  });

  it('leaves a line of 0.00 alone and answers in the order given', () => {
    const zero = line('2025-07-08', 0);
    const result = matchDeposits([zero], [payout('po_a', '2025-07-08', 0)], calendar);
    expect(result).toEqual({
      lines: [{ line: zero.line, payout_id: null, reason: 'zero_amount' }],
      payouts: [{ payout_id: 'po_a', line: null, reason: 'zero_amount' }],
    });
  });

  it('takes another window when asked', () => {
    const late = line('2025-07-10', 300);
    expect(matchDeposits([late], [payout('po_a', '2025-07-07', 300)], calendar, 2).lines[0]).toMatchObject({ payout_id: null, reason: 'outside_window' });
    expect(matchDeposits([late], [payout('po_a', '2025-07-07', 300)], calendar, 3).lines[0]).toMatchObject({ payout_id: 'po_a' });
  });

  it('reconciles a golden Maybank export: by reference, by amount and date, a debit, the fees left over', () => {
    const { lines } = readBankStatement(readFileSync(join(import.meta.dirname, 'bank-statements', 'maybank.csv')), BANK_PRESETS.maybank);
    const payouts = [
      payout('po_card', '2025-03-05', 123_456, 'PO-7F3K2'),
      payout('po_fpx_1', '2025-04-01', 9_800, 'PO9XQ4'),
      payout('po_fpx_2', '2025-04-02', 9_800, null),
      payout('po_reversal', '2025-04-04', -2_500, 'PO-REV1'),
      payout('po_missing', '2025-04-04', 10_000, null),
    ];
    const result = matchDeposits(lines, payouts, calendar);
    expect(result.payouts).toEqual([
      { payout_id: 'po_card', line: 6, by: 'reference' },
      { payout_id: 'po_fpx_1', line: 8, by: 'reference' },
      { payout_id: 'po_fpx_2', line: 9, by: 'amount_and_date' },
      { payout_id: 'po_reversal', line: 10, by: 'reference' },
      { payout_id: 'po_missing', line: null, reason: 'no_equal_amount' },
    ]);
    expect(result.lines.find((match) => match.line === 7)).toEqual({ line: 7, payout_id: null, reason: 'no_equal_amount' });
  });
});
