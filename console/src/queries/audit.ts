// The audit log.
import { $api } from '../api/client.js';
import type { GetQuery } from './keys.js';

export type AuditQuery = GetQuery<'/audit-events'>;

export function auditEventsQuery(query: AuditQuery) {
  return $api.queryOptions('get', '/audit-events', { params: { query } });
}
