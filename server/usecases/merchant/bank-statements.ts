// Bank statements: a CSV a business's bank exported, read into lines (domain/bank-statements.ts, with
// the banks' presets), each deposit matched to a payout (domain/deposit-matching.ts), kept with its
// matches; a matched payout's reconciliation becomes `matched`.
import { BANK_PRESETS, type BankPreset } from '../../domain/bank-statement-presets.js';
import { readBankStatement, StatementRefused, type ColumnMap, type ColumnRef } from '../../domain/bank-statements.js';
import { DEFAULT_MATCH_WINDOW_BUSINESS_DAYS, matchDeposits, type NoMatchReason } from '../../domain/deposit-matching.js';
import { isId, newId } from '../../domain/ids.js';
import { addDays } from '../../domain/report-intervals.js';
import type { DateOrder } from '../../domain/statement-values.js';
import { findBankStatement, insertBankStatement, type BankStatementLineRecord, type BankStatementRecord } from '../../store/bank-statements.js';
import { payoutsAwaitingDeposit, updatePayout } from '../../store/payouts.js';
import { nowIso } from '../../store/timestamps.js';
import type { UseCaseContext } from '../platform/context.js';

export type { BankStatementRecord };

/** Lines a statement may have: a month of a busy account, answered in one response. */
export const STATEMENT_LINES_AT_MOST = 2_000;
// The contract's 250,000 characters, each at most 4 bytes.
const STATEMENT_BYTES_AT_MOST = 1_000_000;

export interface StatementRequest {
  format: 'generic' | BankPreset;
  fileName: string | null;
  csv: string;
  columns?: Partial<Record<'date' | 'amount' | 'credit' | 'debit' | 'reference' | 'description', string | number>>;
  dateOrder?: DateOrder;
  delimiter?: string;
}

export type StatementOutcome = { result: 'created'; statement: BankStatementRecord } | { result: 'invalid'; field: string; message: string };

function columnMap(request: StatementRequest): ColumnMap | { field: string; message: string } {
  if (request.format !== 'generic') return BANK_PRESETS[request.format];
  const columns = request.columns ?? {};
  if (columns.date === undefined) return { field: 'columns.date', message: 'The columns.date field is required when format is generic.' };
  const oneAmount = columns.amount !== undefined;
  const twoAmounts = columns.credit !== undefined && columns.debit !== undefined;
  if (oneAmount === twoAmounts)
    return { field: 'columns.amount', message: 'Name either columns.amount, or both columns.credit and columns.debit, when format is generic.' };
  const ref = (value: string | number | undefined): ColumnRef | undefined => value;
  return {
    date: columns.date,
    dateOrder: request.dateOrder ?? 'DMY',
    amount: ref(columns.amount),
    credit: ref(columns.credit),
    debit: ref(columns.debit),
    reference: ref(columns.reference),
    description: ref(columns.description),
    delimiter: request.delimiter ?? ',',
  };
}

const WHY_NOT: Record<NoMatchReason, string> = {
  matched_elsewhere: 'A payout this line could be was matched to another line that fits it better.',
  reference_differs: 'A payout of this amount arrives within 3 business days, but this line does not carry its bank reference.',
  outside_window: 'A payout of this amount exists, but it does not arrive within 3 business days of this date.',
  no_equal_amount: 'No payout waiting for its deposit has this amount.',
  zero_amount: 'A line of 0.00 is no deposit.',
};

/** Reads the statement, matches its deposits to the payouts awaiting theirs, and keeps both. */
export async function importBankStatement(ctx: UseCaseContext, businessId: number, request: StatementRequest): Promise<StatementOutcome> {
  const map = columnMap(request);
  if ('field' in map) return { result: 'invalid', ...map };
  let read;
  try {
    read = readBankStatement(request.csv, map, { maxBytes: STATEMENT_BYTES_AT_MOST, maxRows: STATEMENT_LINES_AT_MOST });
  } catch (error) {
    if (error instanceof StatementRefused) return { result: 'invalid', field: 'csv', message: `The csv cannot be read: ${error.message}.` };
    throw error;
  }
  const dates = read.lines.map((line) => line.date).sort();
  // Calendar days wide enough for any 3 business days with holidays between; the matcher keeps the exact window.
  const payouts = dates.length === 0 ? [] : await payoutsAwaitingDeposit(ctx.db, businessId, addDays(dates[0]!, -14), addDays(dates[dates.length - 1]!, 14));
  const matches = matchDeposits(
    read.lines,
    payouts.map((payout) => ({ id: payout._id, amount: payout.amount, arrival_date: payout.arrival_date, bank_reference: payout.bank_reference })),
    ctx.settlement.calendar,
    DEFAULT_MATCH_WINDOW_BUSINESS_DAYS,
  );
  const id = newId();
  const lines: BankStatementLineRecord[] = [
    ...read.lines.map((line, index): BankStatementLineRecord => {
      const match = matches.lines[index]!;
      return {
        line: line.line,
        date: line.date,
        amount: line.amount,
        reference: line.reference.slice(0, 200) || null,
        description: line.description.slice(0, 200) || null,
        outcome: 'reason' in match ? 'unmatched' : 'matched',
        payout_id: match.payout_id,
        reason: 'reason' in match ? WHY_NOT[match.reason] : null,
      };
    }),
    ...read.problems.map((problem): BankStatementLineRecord => ({
      line: problem.line,
      date: null,
      amount: null,
      reference: null,
      description: null,
      outcome: 'unreadable',
      payout_id: null,
      reason: problem.reason.slice(0, 200),
    })),
  ].sort((a, b) => a.line - b.line);
  const statement: BankStatementRecord = {
    _id: id,
    business_id: businessId,
    format: request.format,
    file_name: request.fileName,
    line_count: lines.length,
    matched_count: lines.filter((line) => line.outcome === 'matched').length,
    created_at: nowIso(),
    lines,
  };
  // The write scope's transaction holds this request: the statement and the payouts it matched commit together.
  await insertBankStatement(ctx.db, statement);
  const at = nowIso();
  for (const line of lines) {
    if (!line.payout_id) continue;
    await updatePayout(ctx.db, line.payout_id, {
      reconciliation_status: 'matched',
      reconciliation_reason: `Deposit found on bank statement ${id}, line ${line.line} (${line.date}).`,
      reconciliation_checked_at: at,
    });
  }
  return { result: 'created', statement };
}

export async function getBankStatement(ctx: UseCaseContext, businessId: number, id: string): Promise<BankStatementRecord | undefined> {
  return isId(id) ? findBankStatement(ctx.db, businessId, id) : undefined;
}
