// What the balance and Payouts views work out without the service: the balance per currency, a
// payout's items and their totals (its own `payout` entry is the money leaving the balance, not an
// item of it), and a bank statement's upload as POST /api/bank-statements takes it, from the file's
// header line and the columns picked.
import type { components } from '@payment-collection/client';

export type Payout = components['schemas']['Payout'];
export type LedgerEntry = components['schemas']['BalanceTransaction'];
export type StatementUpload = components['schemas']['BankStatementCreate'];
export type StatementFormat = NonNullable<StatementUpload['format']>;
export type DateOrder = NonNullable<StatementUpload['date_order']>;
export type Delimiter = NonNullable<StatementUpload['delimiter']>;

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const satisfies readonly Payout['status'][];

type Amounts = ReadonlyArray<{ currency: string; amount: number }>;

/** The balance per currency of either list, available and pending (0 where a list lacks it); ringgit alone when both are empty. */
export function balanceRows(available: Amounts, pending: Amounts): Array<{ currency: string; available: number; pending: number }> {
  const currencies = [...new Set([...available, ...pending].map((entry) => entry.currency))].sort();
  const of = (list: Amounts, currency: string) => list.find((entry) => entry.currency === currency)?.amount ?? 0;
  return (currencies.length === 0 ? ['MYR'] : currencies).map((currency) => ({ currency, available: of(available, currency), pending: of(pending, currency) }));
}

export interface Totals {
  gross: number;
  fee: number;
  net: number;
}

/** The entries a payout paid out: every entry it took except its own `payout` entry. */
export function payoutItems(payoutId: string, entries: readonly LedgerEntry[]): LedgerEntry[] {
  return entries.filter((entry) => !(entry.type === 'payout' && entry.source_id === payoutId));
}

/** Gross, fee and net of the items, in cents; their net is the payout's amount when the payout balances. */
export function totalsOf(items: readonly LedgerEntry[]): Totals {
  const totals: Totals = { gross: 0, fee: 0, net: 0 };
  for (const item of items) {
    totals.gross += item.amount;
    totals.fee += item.fee;
    totals.net += item.net;
  }
  return totals;
}

/** The payment an entry is about, where it names one (a refund's entry names the refund, not its payment). */
export function paymentOf(entry: LedgerEntry): string | undefined {
  return entry.source_type === 'payment' ? entry.source_id : undefined;
}

/** The itemized report's file name: the payout's arrival day and id, so a folder of them sorts by day. */
export function payoutCsvName(payout: Pick<Payout, '_id' | 'arrival_date'>): string {
  return `payout-${payout.arrival_date}-${payout._id}.csv`;
}

/** What a preset assumes of its bank's export, told beside the format picker (server/domain/bank-statement-presets.ts). */
export const FORMATS: ReadonlyArray<{ value: StatementFormat; label: string; layout: string }> = [
  {
    value: 'generic',
    label: 'Another bank (pick the columns)',
    layout: 'Say which column holds the date, the amount (or credit and debit), and the reference.',
  },
  {
    value: 'maybank',
    label: 'Maybank (M2U Biz)',
    layout: 'One amount column signed at its end (1,500.00+ a credit, 30.00- a debit), dates day first; the reference is read from the description.',
  },
  {
    value: 'cimb',
    label: 'CIMB (BizChannel)',
    layout: 'Withdrawal and deposit columns, a cheque / reference number column, dates day first.',
  },
  {
    value: 'public_bank',
    label: 'Public Bank (PBe Biz)',
    layout: 'Debit and credit columns, the transaction text in one column, dates day first with the month as a number or a name.',
  },
];

export const COLUMN_ROLES = ['date', 'amount', 'credit', 'debit', 'reference', 'description'] as const;
export type ColumnRole = (typeof COLUMN_ROLES)[number];
export type ColumnPicks = Partial<Record<ColumnRole, string>>;

/** The header names bank exports commonly use for each column, compared without case or spaces. */
const USUAL_NAMES: Record<ColumnRole, readonly string[]> = {
  date: ['date', 'transactiondate', 'postingdate', 'valuedate', 'entrydate'],
  amount: ['amount', 'amount(rm)', 'transactionamount'],
  credit: ['credit', 'credit(rm)', 'deposit', 'deposits'],
  debit: ['debit', 'debit(rm)', 'withdrawal', 'withdrawals'],
  reference: ['reference', 'ref', 'refno', 'referenceno', 'reference1'],
  description: ['description', 'transactiondescription', 'particulars', 'details', 'transaction'],
};

/** As the service looks for the header: among the first rows, where an export puts account details before it. */
const HEADER_SEARCH_ROWS = 30;
const MAX_HEADER_TEXT = 50_000;

/** The first `maxRows` rows of a CSV, quotes taken off (RFC 4180, quoted line breaks too), blank rows left out. */
export function firstRows(csv: string, delimiter: Delimiter, maxRows: number): string[][] {
  const text = csv.replace(/^\uFEFF/, '').slice(0, MAX_HEADER_TEXT);
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endRow = () => {
    row.push(cell.trim());
    if (row.some((value) => value !== '')) rows.push(row);
    row = [];
    cell = '';
  };
  for (let i = 0; i < text.length && rows.length < maxRows; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === delimiter) {
      row.push(cell.trim());
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      endRow();
    } else cell += char;
  }
  if (rows.length < maxRows && (cell !== '' || row.length > 0)) endRow();
  return rows;
}

/**
 * The column names of a statement's header, to offer in the column pickers: the first of its first rows
 * where a date and an amount (or credit and debit) column are known by their usual names, else the
 * widest of them. A sketch of what the service does, which parses the file itself.
 */
export function headerNames(csv: string, delimiter: Delimiter = ','): string[] {
  const rows = firstRows(csv, delimiter, HEADER_SEARCH_ROWS);
  const known = rows.find((row) => {
    const guessed = guessColumns(row);
    return guessed.date !== undefined && (guessed.amount !== undefined || guessed.credit !== undefined || guessed.debit !== undefined);
  });
  if (known) return known;
  const widest = rows.reduce<string[] | undefined>((best, row) => (best === undefined || row.length > best.length ? row : best), undefined);
  return widest ?? [];
}

/** The columns a header line most likely holds, by their usual names; an amount column wins over credit and debit. */
export function guessColumns(headers: readonly string[]): ColumnPicks {
  const squeeze = (name: string) => name.toLowerCase().replace(/\s+/g, '');
  const picks: ColumnPicks = {};
  for (const role of COLUMN_ROLES) {
    const found = headers.find((header) => USUAL_NAMES[role].includes(squeeze(header)));
    if (found !== undefined) picks[role] = found;
  }
  if (picks.amount !== undefined) {
    delete picks.credit;
    delete picks.debit;
  }
  return picks;
}

/** The upload's body: columns and date order only for `generic`, whose layout the member described. */
export function statementUpload(input: {
  format: StatementFormat;
  fileName: string;
  csv: string;
  columns: ColumnPicks;
  dateOrder: DateOrder;
  delimiter: Delimiter;
}): StatementUpload {
  const body: StatementUpload = { format: input.format, file_name: input.fileName.slice(0, 200), csv: input.csv };
  if (input.format !== 'generic') return body;
  const columns: NonNullable<StatementUpload['columns']> = {};
  for (const role of COLUMN_ROLES) {
    const name = input.columns[role];
    if (name !== undefined && name !== '') columns[role] = name;
  }
  return { ...body, columns, date_order: input.dateOrder, ...(input.delimiter === ',' ? {} : { delimiter: input.delimiter }) };
}
