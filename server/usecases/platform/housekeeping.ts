// Dead weight any instance may sweep: Idempotency-Key records past their expiry, the daily counts of
// payer e-mails and invitations of days gone by, audit events past their retention (in batches),
// sign-in addresses no longer known, and password resets long expired. Each delete is safe with
// several instances sweeping at once.
import { deleteExpiredKeys } from '../../store/idempotency.js';
import { deleteInvitationCountsBefore } from '../../store/invitation-counts.js';
import { deleteResetsExpiredBefore } from '../../store/password-resets.js';
import { deletePayerEmailCountsBefore } from '../../store/payer-email-counts.js';
import { KNOWN_CLIENT_DAYS, forgetSignInAddressesBefore } from '../../store/sign-in-addresses.js';
import { sweepAuditEvents } from '../merchant/audit-log.js';
import type { UseCaseContext } from './context.js';

const DAY_MS = 86_400_000;

export async function sweepDeadWeight(ctx: Pick<UseCaseContext, 'db'>, auditRetentionDays: number, now = new Date()): Promise<void> {
  const { db } = ctx;
  const yesterday = new Date(now.getTime() - DAY_MS);
  await Promise.all([
    deleteExpiredKeys(db, now),
    deletePayerEmailCountsBefore(db, yesterday.toISOString().slice(0, 10)),
    deleteInvitationCountsBefore(db, yesterday.toISOString().slice(0, 10)),
    sweepAuditEvents(ctx, auditRetentionDays, now),
    forgetSignInAddressesBefore(db, new Date(now.getTime() - KNOWN_CLIENT_DAYS * DAY_MS)),
    deleteResetsExpiredBefore(db, yesterday),
  ]);
}
