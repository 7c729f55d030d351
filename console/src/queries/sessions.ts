// The signed-in member's sessions.
import { $api } from '../api/client.js';

export function sessionsQuery() {
  return $api.queryOptions('get', '/auth/sessions');
}
