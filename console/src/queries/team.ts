// The team: its members and the invitations not yet accepted.
import { $api } from '../api/client.js';

export function teamMembersQuery() {
  return $api.queryOptions('get', '/team/members');
}

export function teamInvitationsQuery() {
  return $api.queryOptions('get', '/team/invitations');
}
