// The signed-in member's business and its acquirer's settings.
import { $api } from '../api/client.js';

export function businessQuery() {
  return $api.queryOptions('get', '/business');
}

export function acquirerQuery() {
  return $api.queryOptions('get', '/business/acquirer');
}
