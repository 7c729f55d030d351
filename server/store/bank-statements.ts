// Bank statements a business uploaded, and each line with the payout it matched (or why none).
import type { Executor } from './executor.js';
import { toIsoMicros } from './timestamps.js';

export type StatementLineOutcome = 'matched' | 'unmatched' | 'unreadable';

export interface BankStatementLineRecord {
  line: number;
  date: string | null;
  amount: number | null;
  reference: string | null;
  description: string | null;
  outcome: StatementLineOutcome;
  payout_id: string | null;
  reason: string | null;
}

export interface BankStatementRecord {
  _id: string;
  business_id: number;
  format: string;
  file_name: string | null;
  line_count: number;
  matched_count: number;
  created_at: string;
  lines: BankStatementLineRecord[];
}

/** Writes a statement and its lines, in the caller's transaction. */
export async function insertBankStatement(db: Executor, statement: BankStatementRecord): Promise<void> {
  const { lines, ...row } = statement;
  await db.run(db.sql('bank_statements').insert(row));
  // In chunks, under SQLite's limit of bound parameters.
  for (let from = 0; from < lines.length; from += 100) {
    await db.run(db.sql('bank_statement_lines').insert(lines.slice(from, from + 100).map((line) => ({ statement_id: statement._id, ...line }))));
  }
}

export async function findBankStatement(db: Executor, businessId: number, id: string): Promise<BankStatementRecord | undefined> {
  const row = await db.first<Omit<BankStatementRecord, 'lines'>>(db.sql('bank_statements').where({ _id: id, business_id: businessId }));
  if (!row) return undefined;
  const lines = await db.all<BankStatementLineRecord & { statement_id: string }>(db.sql('bank_statement_lines').where({ statement_id: id }).orderBy('line'));
  return {
    ...row,
    business_id: Number(row.business_id),
    line_count: Number(row.line_count),
    matched_count: Number(row.matched_count),
    created_at: toIsoMicros(row.created_at),
    lines: lines.map(({ statement_id: _statement, ...line }) => ({
      ...line,
      line: Number(line.line),
      amount: line.amount === null ? null : Number(line.amount),
    })),
  };
}
