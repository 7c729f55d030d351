// Column maps for the CSV exports of Malaysian business accounts. None of these banks publishes the layout of
// its export, so each preset is written from what is publicly described of it (help pages, statement samples,
// accounting tools' import guides) and assumes what is noted beside it; each column accepts the several
// header names seen for it, and a file whose header names none of them is refused with the names looked
// for (then a generic ColumnMap fits it). The operators' documentation says the same.
import type { ColumnMap } from './bank-statements.js';

export const BANK_PRESETS = {
  // Maybank2u Biz (M2U Biz) account statement: one amount column printed with a trailing sign, `1,500.00+` for
  // a credit and `30.00-` for a debit, as on Maybank's printed statements; dates day first (`05/03/2025`). No
  // reference column is assumed: the payer's reference is part of the description.
  maybank: {
    date: ['Entry Date', 'Transaction Date', 'Posting Date', 'Date'],
    dateOrder: 'DMY',
    amount: ['Transaction Amount', 'Transaction Amount (RM)', 'Amount', 'Amount (RM)'],
    description: ['Transaction Description', 'Description'],
  },
  // BizChannel@CIMB account statement: separate withdrawal and deposit columns, a cheque/reference number column,
  // dates day first.
  cimb: {
    date: ['Transaction Date', 'Post Date', 'Posting Date', 'Date'],
    dateOrder: 'DMY',
    debit: ['Withdrawal', 'Withdrawals', 'Withdrawal Amount', 'Debit', 'Debit Amount'],
    credit: ['Deposit', 'Deposits', 'Deposit Amount', 'Credit', 'Credit Amount'],
    reference: ['Cheque / Ref No', 'Cheque No / Ref No', 'Ref No', 'Reference', 'Reference No'],
    description: ['Description', 'Transaction Description'],
  },
  // PBe Biz (Public Bank) account statement: separate debit and credit columns, the transaction's text in one
  // column (no reference column is assumed), dates day first, with the month as a number or a name.
  public_bank: {
    date: ['Date', 'Transaction Date', 'Posting Date'],
    dateOrder: 'DMY',
    debit: ['Debit', 'Debit (RM)', 'Withdrawal'],
    credit: ['Credit', 'Credit (RM)', 'Deposit'],
    description: ['Transaction', 'Transaction Description', 'Description', 'Particulars'],
  },
} as const satisfies Record<string, ColumnMap>;

export type BankPreset = keyof typeof BANK_PRESETS;
