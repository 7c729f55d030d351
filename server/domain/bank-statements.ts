// A bank statement exported as CSV, read into lines of signed sen (a deposit is positive) by a column map:
// which column holds the date (and its day-month-year order), the amount (or a debit and a credit column), the
// reference and the description, each named by its header or numbered from 1. The presets for Malaysian banks
// are in bank-statement-presets.ts.
//
// Nothing is dropped silently: every row that is not a statement line comes back as a problem with its line
// number in the file and the reason (rows before the header, such as the account number and period most
// exports start with, and blank rows are the exception). A file over the size limit is refused before it is
// parsed, one over the row limit before any row is read into a line (StatementRefused).
import { createRequire } from 'node:module';
import type { CsvError } from 'csv-parse/sync';
import { parseStatementAmount, parseStatementDate, type DateOrder } from './statement-values.js';

/** A column by its header (any of several names; compared without case, spaces or punctuation) or its number from 1. */
export type ColumnRef = string | readonly string[] | number;

export interface ColumnMap {
  date: ColumnRef;
  dateOrder: DateOrder;
  /** One column of signed amounts; or `debit` and `credit` (amounts in either, the sign taken from the column). */
  amount?: ColumnRef;
  debit?: ColumnRef;
  credit?: ColumnRef;
  reference?: ColumnRef;
  description?: ColumnRef;
  /** `,` unless given: some exports use `;` or a tab. */
  delimiter?: string;
}

export interface StatementLine {
  /** The line of the file the row starts on, from 1. */
  line: number;
  date: string;
  /** Sen; a deposit is positive, a withdrawal negative. */
  amount: number;
  reference: string;
  description: string;
}

export interface StatementProblem {
  line: number;
  reason: string;
}

export interface ReadStatement {
  lines: StatementLine[];
  problems: StatementProblem[];
}

export interface StatementLimits {
  maxBytes: number;
  maxRows: number;
}

/** A month of a busy business's account fits many times over. */
export const DEFAULT_STATEMENT_LIMITS: StatementLimits = { maxBytes: 5 * 1024 * 1024, maxRows: 50_000 };

/** The header is looked for in this many rows from the top; exports put a few lines of account details first. */
const HEADER_SEARCH_ROWS = 30;

/** The file as a whole cannot be read: too large, or no header naming the map's columns. */
export class StatementRefused extends Error {}

/**
 * csv-parse, loaded by the first statement read rather than at start-up, which has no use for it; the
 * composition root may hand this to the warm-up (library-warm-up.ts) to load it once listening.
 */
export const loadCsvParse = () => createRequire(import.meta.url)('csv-parse/sync') as typeof import('csv-parse/sync');

type Field = 'date' | 'amount' | 'debit' | 'credit' | 'reference' | 'description';

/** Each field's column as a 0-based index, once the header (if any) is known. */
type Resolved = Partial<Record<Field, number>>;

const normalised = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

function refsOf(map: ColumnMap): [Field, ColumnRef][] {
  if ((map.amount === undefined) === (map.debit === undefined || map.credit === undefined))
    throw new TypeError('a column map names either an amount column or both a debit and a credit column');
  const refs: [Field, ColumnRef][] = [['date', map.date]];
  if (map.amount !== undefined) refs.push(['amount', map.amount]);
  else refs.push(['debit', map.debit!], ['credit', map.credit!]);
  if (map.reference !== undefined) refs.push(['reference', map.reference]);
  if (map.description !== undefined) refs.push(['description', map.description]);
  for (const [field, ref] of refs)
    if (typeof ref === 'number' && (!Number.isInteger(ref) || ref < 1)) throw new TypeError(`the ${field} column is numbered from 1, got ${ref}`);
  return refs;
}

/** The 0-based index of a column in `header`, or undefined. */
function indexIn(header: readonly string[] | undefined, ref: ColumnRef): number | undefined {
  if (typeof ref === 'number') return ref - 1;
  const names = (typeof ref === 'string' ? [ref] : ref).map(normalised);
  const index = header?.findIndex((cell) => names.includes(normalised(cell))) ?? -1;
  return index < 0 ? undefined : index;
}

function resolve(refs: [Field, ColumnRef][], header: readonly string[] | undefined): Resolved | undefined {
  const resolved: Resolved = {};
  for (const [field, ref] of refs) {
    const index = indexIn(header, ref);
    if (index === undefined) return undefined;
    resolved[field] = index;
  }
  return resolved;
}

function describe(ref: ColumnRef): string {
  if (typeof ref === 'number') return `column ${ref}`;
  return typeof ref === 'string' ? JSON.stringify(ref) : ref.map((name) => JSON.stringify(name)).join(' or ');
}

interface Row {
  line: number;
  cells: string[];
}

/** The rows of the CSV with the line each starts on; rows csv-parse cannot read become problems. */
function rowsOf(text: string, delimiter: string, problems: StatementProblem[]): Row[] {
  // One kind of line break, so that the line count below agrees with the file as an editor shows it.
  const unified = text.replace(/\r\n?/g, '\n');
  const records = loadCsvParse().parse(unified, {
    bom: true,
    delimiter,
    info: true,
    raw: true,
    relax_column_count: true,
    skip_records_with_error: true,
    // A malformed quote makes csv-parse read on to the next quote: the rows it swallowed are in this problem.
    on_skip: (error: CsvError | undefined) => {
      // csv-parse sets `lines` (the line it stopped on) on every error it raises while reading.
      if (error) problems.push({ line: Number(error.lines), reason: error.message });
    },
  }) as unknown as { record: string[]; info: { lines: number }; raw: string }[];
  return records.map(({ record, info, raw }) => {
    // info.lines is the line the record ends on; a quoted field may have run over several.
    const inner = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
    return { line: info.lines - (inner.match(/\n/g)?.length ?? 0), cells: record.map((cell) => cell.trim()) };
  });
}

function lineOf(row: Row, columns: Resolved, order: DateOrder): StatementLine | StatementProblem {
  const cell = (index: number | undefined) => (index === undefined ? '' : (row.cells[index] ?? ''));
  const widest = Math.max(...Object.values(columns).filter((index) => index !== undefined));
  if (row.cells.length <= widest) return { line: row.line, reason: `the row has ${row.cells.length} columns; the map reads column ${widest + 1}` };
  const date = parseStatementDate(cell(columns.date), order);
  if ('problem' in date) return { line: row.line, reason: `date: ${date.problem}` };
  let amount: number;
  if (columns.amount !== undefined) {
    const parsed = parseStatementAmount(cell(columns.amount));
    if ('problem' in parsed) return { line: row.line, reason: `amount: ${parsed.problem}` };
    amount = parsed.value;
  } else {
    const [debitText, creditText] = [cell(columns.debit), cell(columns.credit)];
    const debit = debitText === '' ? { value: 0 } : parseStatementAmount(debitText);
    const credit = creditText === '' ? { value: 0 } : parseStatementAmount(creditText);
    if ('problem' in debit) return { line: row.line, reason: `debit: ${debit.problem}` };
    if ('problem' in credit) return { line: row.line, reason: `credit: ${credit.problem}` };
    if (debit.value !== 0 && credit.value !== 0) return { line: row.line, reason: 'both a debit and a credit' };
    if (debit.value === 0 && credit.value === 0) return { line: row.line, reason: 'neither a debit nor a credit' };
    amount = debit.value !== 0 ? -Math.abs(debit.value) : Math.abs(credit.value);
  }
  const text = (index: number | undefined) => cell(index).replace(/\s+/g, ' ');
  return { line: row.line, date: date.value, amount, reference: text(columns.reference), description: text(columns.description) };
}

/**
 * The lines of a statement and the rows that are not lines. Throws StatementRefused when the file is over
 * `limits` or has no header naming the map's columns in its first rows.
 */
export function readBankStatement(input: string | Uint8Array, map: ColumnMap, limits: StatementLimits = DEFAULT_STATEMENT_LIMITS): ReadStatement {
  const bytes = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (bytes > limits.maxBytes) throw new StatementRefused(`the file has ${bytes} bytes; a statement may have at most ${limits.maxBytes}`);
  const text = typeof input === 'string' ? input : new TextDecoder().decode(input);
  const problems: StatementProblem[] = [];
  const rows = rowsOf(text, map.delimiter ?? ',', problems).filter((row) => row.cells.some((cell) => cell !== ''));
  const refs = refsOf(map);
  const named = refs.some(([, ref]) => typeof ref !== 'number');
  let columns: Resolved | undefined;
  let first = 0;
  if (named) {
    const at = rows.slice(0, HEADER_SEARCH_ROWS).findIndex((row) => resolve(refs, row.cells) !== undefined);
    if (at < 0)
      throw new StatementRefused(
        `no row among the first ${HEADER_SEARCH_ROWS} names the columns ${refs.map(([field, ref]) => `${field} (${describe(ref)})`).join(', ')}`,
      );
    columns = resolve(refs, rows[at]!.cells)!;
    first = at + 1;
  } else {
    columns = resolve(refs, undefined)!;
  }
  const data = rows.slice(first);
  if (data.length > limits.maxRows) throw new StatementRefused(`the file has ${data.length} rows; a statement may have at most ${limits.maxRows}`);
  const lines: StatementLine[] = [];
  for (const row of data) {
    const read = lineOf(row, columns, map.dateOrder);
    if ('reason' in read) problems.push(read);
    else lines.push(read);
  }
  problems.sort((a, b) => a.line - b.line);
  return { lines, problems };
}
