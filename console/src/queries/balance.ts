// The balance: what is pending and available, per currency.
import { $api } from '../api/client.js';

export function balanceQuery() {
  return $api.queryOptions('get', '/balance');
}
