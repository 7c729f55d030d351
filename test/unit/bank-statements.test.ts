// Bank statements (domain/bank-statements.ts, its presets and the cells' values in statement-values.ts): golden
// exports for each preset in bank-statements/, a generic column map, malformed rows reported by line, limits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BANK_PRESETS } from '../../server/domain/bank-statement-presets.js';
import { readBankStatement, StatementRefused, type ColumnMap } from '../../server/domain/bank-statements.js';
import { parseStatementAmount, parseStatementDate } from '../../server/domain/statement-values.js';

const golden = (name: string) => readFileSync(join(import.meta.dirname, 'bank-statements', name));

describe('parseStatementAmount', () => {
  it.each([
    ['1,234.56', 123_456],
    ['1234.5', 123_450],
    ['12', 1_200],
    ['-12.00', -1_200],
    ['+12.00', 1_200],
    ['12.00 CR', 1_200],
    ['12.00cr', 1_200],
    ['12.00 DR', -1_200],
    ['RM 1,234.56', 123_456],
    ['rm1,234.56', 123_456],
    ['MYR 5.00', 500],
    ['-RM 5.00', -500],
    ['RM -5.00', -500],
    ['(12.00)', -1_200],
    ['(RM 12.00)', -1_200],
    ['1,500.00+', 150_000],
    ['30.00-', -3_000],
    ['-0.00', 0],
    ['0.05', 5],
    ['1,234,567,890.12', 123_456_789_012],
  ])('reads %j as %d sen', (text, sen) => {
    expect(parseStatementAmount(text)).toEqual({ value: sen });
  });

  it.each([
    ['', 'no amount'],
    ['12.345', 'not an amount with at most two decimals'],
    ['1,23.00', 'not an amount'],
    ['12,.00', 'not an amount'],
    ['.50', 'not an amount'],
    ['12.', 'not an amount'],
    ['abc', 'not an amount'],
    ['-12.00 CR', 'more than one sign'],
    ['(12.00) DR', 'more than one sign'],
    ['(RM 12.00', 'not an amount'],
    ['+12.00-', 'more than one sign'],
    ['12 000', 'not an amount'],
    ['99999999999999.00', 'too large'],
    ['1'.repeat(100), 'an amount of 100 characters'],
  ])('refuses %j: %s', (text, problem) => {
    const parsed = parseStatementAmount(text);
    expect('problem' in parsed && parsed.problem).toContain(problem);
  });
});

describe('parseStatementDate', () => {
  it.each([
    ['05/03/2025', 'DMY', '2025-03-05'],
    ['5/3/2025', 'DMY', '2025-03-05'],
    ['05-03-25', 'DMY', '2025-03-05'],
    ['05.03.2025', 'DMY', '2025-03-05'],
    ['05 Mar 2025', 'DMY', '2025-03-05'],
    ['05-MAC-2025', 'DMY', '2025-03-05'],
    ['31 Ogos 2025', 'DMY', '2025-08-31'],
    ['05/03/2025 14:22:01', 'DMY', '2025-03-05'],
    ['05/03/2025 2:22 PM', 'DMY', '2025-03-05'],
    ['03/05/2025', 'MDY', '2025-03-05'],
    ['2025-03-05', 'YMD', '2025-03-05'],
    ['2025-03-05T14:22:01', 'YMD', '2025-03-05'],
  ] as const)('reads %j (%s) as %s', (text, order, date) => {
    expect(parseStatementDate(text, order)).toEqual({ value: date });
  });

  it.each([
    ['31/02/2025', 'DMY', 'not a day of the calendar'],
    ['13/13/2025', 'DMY', 'not a day of the calendar'],
    ['2025-03-05', 'DMY', 'not a date written day, month, year'],
    ['05/03', 'DMY', 'not a date written day, month, year'],
    ['05/Foo/2025', 'DMY', 'not a date written'],
    ['05/03/025', 'DMY', 'not a date written'],
    ['', 'DMY', 'no date'],
  ] as const)('refuses %j (%s): %s', (text, order, problem) => {
    const parsed = parseStatementDate(text, order);
    expect('problem' in parsed && parsed.problem).toContain(problem);
  });
});

describe('the presets, on golden exports', () => {
  it('Maybank: account details before the header, one signed amount column, the closing balance reported', () => {
    expect(readBankStatement(golden('maybank.csv'), BANK_PRESETS.maybank)).toEqual({
      lines: [
        { line: 6, date: '2025-03-03', amount: 123_456, reference: '', description: 'IBG CREDIT SANDBOX PAY PO 7F3K2' },
        { line: 7, date: '2025-03-04', amount: -50, reference: '', description: 'SERVICE CHARGE' },
        { line: 8, date: '2025-03-27', amount: 9_800, reference: '', description: 'DUITNOW TRANSFER SANDBOX PAY PO9XQ4' },
        { line: 9, date: '2025-04-03', amount: 9_800, reference: '', description: 'DUITNOW TRANSFER SANDBOX PAY' },
        { line: 10, date: '2025-04-07', amount: -2_500, reference: '', description: 'FPX DEBIT REVERSAL SANDBOX PAY PO-REV1' },
      ],
      problems: [{ line: 11, reason: 'date: no date' }],
    });
  });

  it('CIMB: withdrawal and deposit columns, a reference column, a description over two lines, a row with both', () => {
    expect(readBankStatement(golden('cimb.csv'), BANK_PRESETS.cimb)).toEqual({
      lines: [
        { line: 4, date: '2025-03-28', amount: 123_456, reference: 'PO-7F3K2', description: 'INTERBANK GIRO CR SANDBOX PAY' },
        { line: 5, date: '2025-03-31', amount: 9_800, reference: 'PO9XQ4', description: 'DUITNOW CR SANDBOX PAY' },
        { line: 7, date: '2025-04-02', amount: -50, reference: '', description: 'SERVICE CHARGE' },
        { line: 9, date: '2025-04-03', amount: -2_500, reference: 'PO-REV1', description: 'INSTANT TRANSFER DR' },
      ],
      problems: [{ line: 8, reason: 'both a debit and a credit' }],
    });
  });

  it('Public Bank: debit and credit columns, months by name, an impossible date and a third decimal reported', () => {
    expect(readBankStatement(golden('public-bank.csv'), BANK_PRESETS.public_bank)).toEqual({
      lines: [
        { line: 2, date: '2025-04-01', amount: 123_456, reference: '', description: 'IBG CR SANDBOX PAY PO 7F3K2' },
        { line: 3, date: '2025-04-02', amount: 9_800, reference: '', description: 'DUITNOW CR SANDBOX PAY PO9XQ4' },
        { line: 5, date: '2025-04-03', amount: -50, reference: '', description: 'CHARGES' },
        { line: 6, date: '2025-04-04', amount: -2_500, reference: '', description: 'FPX DR SANDBOX PAY PO-REV1' },
      ],
      problems: [
        { line: 4, reason: 'date: "31-Feb-2025" is not a day of the calendar' },
        { line: 7, reason: 'credit: "12.345" is not an amount with at most two decimals' },
      ],
    });
  });

  it('refuses an export whose header names none of the columns, saying which names it looked for', () => {
    expect(() => readBankStatement(golden('public-bank.csv'), BANK_PRESETS.cimb)).toThrow(StatementRefused);
    expect(() => readBankStatement(golden('public-bank.csv'), BANK_PRESETS.cimb)).toThrow('"Withdrawal" or "Withdrawals"');
  });
});

describe('a generic column map', () => {
  const map: ColumnMap = { date: 1, dateOrder: 'YMD', amount: 3, reference: 2, description: 4, delimiter: ';' };

  it('reads columns by number from a file without a header, with another delimiter, skipping blank rows', () => {
    const text = '2025-03-03;PO1;1 234.00;first\n\n;;;\n2025-03-04;PO2;-5.00;second\n';
    expect(readBankStatement(text, map)).toEqual({
      lines: [{ line: 4, date: '2025-03-04', amount: -500, reference: 'PO2', description: 'second' }],
      problems: [{ line: 1, reason: 'amount: "1 234.00" is not an amount with at most two decimals' }],
    });
  });

  it('names headers in any case and spacing, and reports rows too short for the map', () => {
    const headed: ColumnMap = { date: 'posting date', dateOrder: 'DMY', debit: 'DEBIT (RM)', credit: 'Credit (RM)', description: 'Details' };
    const text = 'Posting Date,Details,Debit (RM),Credit (RM)\n01/04/2025,PAYOUT,,10.00\n02/04/2025,SHORT\n';
    expect(readBankStatement(text, headed)).toEqual({
      lines: [{ line: 2, date: '2025-04-01', amount: 1_000, reference: '', description: 'PAYOUT' }],
      problems: [{ line: 3, reason: 'the row has 2 columns; the map reads column 4' }],
    });
  });

  it('reports a row with neither a debit nor a credit', () => {
    const headed: ColumnMap = { date: 'Date', dateOrder: 'DMY', debit: 'Debit', credit: 'Credit' };
    expect(readBankStatement('Date,Debit,Credit\n01/04/2025,0.00,\n', headed).problems).toEqual([{ line: 2, reason: 'neither a debit nor a credit' }]);
  });

  it('reports a malformed quote at its line, with the rows it swallowed, instead of dropping them silently', () => {
    const text = '2025-03-03;PO1;1.00;ok\n2025-03-04;"PO2"x;2.00;bad\n2025-03-05;PO3;3.00;lost\n';
    const read = readBankStatement(text, map);
    expect(read.lines.map((line) => line.line)).toEqual([1]);
    expect(read.problems.map((problem) => problem.line)).toEqual([2, 3]);
    expect(read.problems[0]!.reason).toContain('Invalid Closing Quote');
    expect(read.problems[1]!.reason).toContain('Quote Not Closed');
  });

  it('refuses a map with both an amount and debit/credit columns, or neither, or a column numbered from 0', () => {
    expect(() => readBankStatement('', { date: 1, dateOrder: 'DMY', amount: 2, debit: 3, credit: 4 })).toThrow(TypeError);
    expect(() => readBankStatement('', { date: 1, dateOrder: 'DMY', debit: 3 })).toThrow(TypeError);
    expect(() => readBankStatement('', { date: 0, dateOrder: 'DMY', amount: 2 })).toThrow('the date column is numbered from 1, got 0');
  });
});

describe('limits', () => {
  const map: ColumnMap = { date: 1, dateOrder: 'YMD', amount: 2 };

  it('refuses a file over the size limit before reading it', () => {
    const text = '2025-03-03,1.00\n'.repeat(10);
    expect(() => readBankStatement(text, map, { maxBytes: 159, maxRows: 100 })).toThrow('the file has 160 bytes; a statement may have at most 159');
    expect(readBankStatement(text, map, { maxBytes: 160, maxRows: 100 }).lines).toHaveLength(10);
  });

  it('refuses a file over the row limit, counting rows after the header', () => {
    const text = 'Date,Amount\n' + '2025-03-03,1.00\n'.repeat(5);
    const named: ColumnMap = { date: 'Date', dateOrder: 'YMD', amount: 'Amount' };
    expect(() => readBankStatement(text, named, { maxBytes: 1_000, maxRows: 4 })).toThrow(
      new StatementRefused('the file has 5 rows; a statement may have at most 4'),
    );
    expect(readBankStatement(text, named, { maxBytes: 1_000, maxRows: 5 }).lines).toHaveLength(5);
  });
});
