// The business's API keys.
import { $api } from '../api/client.js';

export function apiKeysQuery() {
  return $api.queryOptions('get', '/api-keys');
}
