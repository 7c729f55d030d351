// Bank statements: upload one to match its deposits to payouts, and read it back with its matches.
import type { components } from '../../generated/openapi.js';
import type { SomeHandlers } from '../http/operations.js';
import { getBankStatement, importBankStatement, type BankStatementRecord } from '../usecases/merchant/bank-statements.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { ok } from './envelope.js';

function present(statement: BankStatementRecord): components['schemas']['BankStatement'] {
  return {
    _id: statement._id,
    format: statement.format as components['schemas']['BankStatement']['format'],
    file_name: statement.file_name,
    line_count: statement.line_count,
    matched_count: statement.matched_count,
    lines: statement.lines,
    created_at: statement.created_at,
  };
}

const NOT_FOUND = { message: 'Bank statement not found.' };

export const bankStatementHandlers = {
  createBankStatement: {
    async handle({ body, business }, ctx, respond) {
      const outcome = await importBankStatement(ctx, business.id, {
        format: body.format ?? 'generic',
        fileName: body.file_name ?? null,
        csv: body.csv,
        columns: body.columns,
        dateOrder: body.date_order,
        delimiter: body.delimiter,
      });
      if (outcome.result === 'invalid') return respond.with422({ message: 'The given data was invalid.', errors: { [outcome.field]: [outcome.message] } });
      return respond.with200(ok(present(outcome.statement)));
    },
  },
  getBankStatement: {
    async handle({ path, business }, ctx, respond) {
      const statement = await getBankStatement(ctx, business.id, path.bank_statement_id);
      return statement ? respond.with200(ok(present(statement))) : respond.with404(NOT_FOUND);
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
