// Bank statements: one uploaded statement and the outcome of each of its lines.
import { $api } from '../api/client.js';

export function bankStatementQuery(statementId: string) {
  return $api.queryOptions('get', '/bank-statements/{bank_statement_id}', { params: { path: { bank_statement_id: statementId } } });
}
