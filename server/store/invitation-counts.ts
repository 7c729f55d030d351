// How many invitations each business sent, per UTC day (daily-counts.ts): every one is an e-mail to an
// address of the business's choosing, so a business (or a compromised admin) cannot have the service
// mail any inbox without bound.
import { countOneMore, deleteDailyCountsBefore } from './daily-counts.js';
import type { Executor } from './executor.js';

/** Invitations a business may send per UTC day, unless INVITATIONS_PER_DAY says otherwise. */
export const DEFAULT_INVITATIONS_PER_DAY = 100;

export async function countInvitation(db: Executor, businessId: number, day: string, limit: number): Promise<boolean> {
  return countOneMore(db, 'invitation_counts', businessId, day, limit);
}

export async function deleteInvitationCountsBefore(db: Executor, day: string): Promise<number> {
  return deleteDailyCountsBefore(db, 'invitation_counts', day);
}
