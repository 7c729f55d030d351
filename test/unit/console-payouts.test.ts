// The Payouts views' own logic, without a browser: the balance per currency, a payout's items and
// totals (its own payout entry left out), a statement's header found for the column pickers, the
// columns guessed from it, and the upload's body as POST /api/bank-statements takes it.
import { describe, expect, test } from 'vitest';
import {
  balanceRows,
  firstRows,
  guessColumns,
  headerNames,
  paymentOf,
  payoutCsvName,
  payoutItems,
  statementUpload,
  totalsOf,
  type LedgerEntry,
} from '../../console/src/lib/payouts.js';

function entry(fields: Partial<LedgerEntry>): LedgerEntry {
  return {
    _id: 'e'.repeat(24),
    type: 'charge',
    amount: 0,
    fee: 0,
    net: 0,
    currency: 'MYR',
    status: 'available',
    available_on: '2025-05-23',
    source_type: 'payment',
    source_id: 'p'.repeat(24),
    acquirer_reference: null,
    payout_id: null,
    description: null,
    created_at: '2025-05-21T01:00:00.000000Z',
    ...fields,
  };
}

describe('the balance', () => {
  test('lists every currency of either list, 0 where one lacks it, and ringgit when there is nothing', () => {
    expect(balanceRows([{ currency: 'SGD', amount: -300 }], [{ currency: 'MYR', amount: 9_750 }])).toEqual([
      { currency: 'MYR', available: 0, pending: 9_750 },
      { currency: 'SGD', available: -300, pending: 0 },
    ]);
    expect(balanceRows([], [])).toEqual([{ currency: 'MYR', available: 0, pending: 0 }]);
  });
});

describe("a payout's items", () => {
  const payoutId = 'a'.repeat(24);
  const charge = entry({ _id: '1'.repeat(24), amount: 10_000, fee: 250, net: 9_750 });
  const refund = entry({ _id: '2'.repeat(24), type: 'refund', amount: -1_000, net: -1_000, source_type: 'refund', source_id: 'r'.repeat(24) });
  const returned = entry({ _id: '3'.repeat(24), type: 'payout_failure', amount: 500, net: 500, source_type: 'payout', source_id: 'b'.repeat(24) });
  const own = entry({ _id: '4'.repeat(24), type: 'payout', amount: -9_250, net: -9_250, source_type: 'payout', source_id: payoutId });

  test('leave out its own payout entry, keep another payout returned to it, and total to its amount', () => {
    const items = payoutItems(payoutId, [charge, refund, returned, own]);
    expect(items.map((item) => item.type)).toEqual(['charge', 'refund', 'payout_failure']);
    expect(totalsOf(items)).toEqual({ gross: 9_500, fee: 250, net: 9_250 });
    expect(totalsOf([])).toEqual({ gross: 0, fee: 0, net: 0 });
  });

  test('link a payment only where the entry is one', () => {
    expect(paymentOf(charge)).toBe(charge.source_id);
    expect(paymentOf(refund)).toBeUndefined();
    expect(payoutCsvName({ _id: payoutId, arrival_date: '2025-05-23' })).toBe(`payout-2025-05-23-${payoutId}.csv`);
  });
});

describe('a bank statement', () => {
  test("reads the header line's names, quoted or not, with the statement's separator", () => {
    expect(headerNames('\uFEFFDate,"Description, full",Reference,"Amount ""RM"""\r\n23/05/2025,PAYOUT,X,1.00')).toEqual([
      'Date',
      'Description, full',
      'Reference',
      'Amount "RM"',
    ]);
    expect(headerNames('Date;Credit;Debit\n', ';')).toEqual(['Date', 'Credit', 'Debit']);
    expect(headerNames('Date\tAmount', '\t')).toEqual(['Date', 'Amount']);
    expect(headerNames('')).toEqual([]);
  });

  test('finds the header below the account details an export puts first, as the service does', () => {
    const exported = [
      'Account Number,5140 1234 5678',
      'Statement Period,"01/05/2025 - 31/05/2025"',
      '',
      'Posting Date,Description,Deposit,Withdrawal',
      '23/05/2025,PAYOUT,97.50,',
    ];
    expect(headerNames(exported.join('\r\n'))).toEqual(['Posting Date', 'Description', 'Deposit', 'Withdrawal']);
    // Without a header of the usual names, the widest of the first rows.
    expect(headerNames('Account,123\nWhen,What,How much\n1/5/2025,x,1.00')).toEqual(['When', 'What', 'How much']);
  });

  test('reads rows with quoted line breaks as one, and stops at the rows asked for', () => {
    expect(firstRows('a,"line\nbreak"\r\nb,c\nd,e', ',', 2)).toEqual([
      ['a', 'line\nbreak'],
      ['b', 'c'],
    ]);
    expect(firstRows('x;y', ';', 5)).toEqual([['x', 'y']]);
  });

  test('guesses the columns by their usual names; an amount column wins over credit and debit', () => {
    expect(guessColumns(['Transaction Date', 'Particulars', 'Ref No', 'Debit', 'Credit'])).toEqual({
      date: 'Transaction Date',
      description: 'Particulars',
      reference: 'Ref No',
      debit: 'Debit',
      credit: 'Credit',
    });
    expect(guessColumns(['Date', 'Amount', 'Credit'])).toEqual({ date: 'Date', amount: 'Amount' });
    expect(guessColumns(['Foo', 'Bar'])).toEqual({});
  });

  test('sends the columns, date order and separator for the generic layout only', () => {
    const input = {
      fileName: 'may.csv',
      csv: 'Date,Amount\n',
      columns: { date: 'Date', amount: 'Amount', reference: '' },
      dateOrder: 'MDY',
      delimiter: ';',
    } as const;
    expect(statementUpload({ ...input, format: 'generic' })).toEqual({
      format: 'generic',
      file_name: 'may.csv',
      csv: 'Date,Amount\n',
      columns: { date: 'Date', amount: 'Amount' },
      date_order: 'MDY',
      delimiter: ';',
    });
    expect(statementUpload({ ...input, format: 'generic', delimiter: ',' })).not.toHaveProperty('delimiter');
    expect(statementUpload({ ...input, format: 'cimb' })).toEqual({ format: 'cimb', file_name: 'may.csv', csv: 'Date,Amount\n' });
    expect(statementUpload({ ...input, format: 'maybank', fileName: 'x'.repeat(300) }).file_name).toHaveLength(200);
  });
});
