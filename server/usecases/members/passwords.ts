// A member's password: changed with the current one (checked through the one throttle of secret
// checks), or reset through a one-time link e-mailed to them, asked for with their e-mail alone and
// answered alike whether or not it names a member. Either way the member's other sessions end (all of
// them, for a reset), any reset link still open ends, and the member is e-mailed. A reset signs no one
// in and leaves two-factor sign-in as it is.
import { randomBytes } from 'node:crypto';
import type { SignedIn } from '../../domain/actors.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../domain/passwords.js';
import { CONSOLE_PATH, newSessionToken } from '../../domain/sessions.js';
import { passwordChangedEmail, passwordResetEmail } from '../../outbox/member-messages.js';
import { recordAuditEvent, type AuditOutcome } from '../../store/audit-events.js';
import { endResetsOf, findUsableReset, insertPasswordReset, useReset } from '../../store/password-resets.js';
import { deleteSessionsOf, rotateSessionToken } from '../../store/user-sessions.js';
import { findUser, findUserByEmail, membershipsOf, updateUser, type User } from '../../store/users.js';
import { userAudit } from './auth.js';
import type { RequestMeta } from './auth-context.js';
import type { UseCaseContext } from '../platform/context.js';
import { enqueueEmail } from '../platform/notify.js';
import { authOf, beginSecretCheck, memberNotice } from './secret-checks.js';

/** The console's page a reset link leads to. */
export const CONSOLE_RESET_PATH = `${CONSOLE_PATH}/reset-password`;

export type PasswordChange =
  | { kind: 'changed'; sessionToken: string; otherSessionsEnded: number }
  | { kind: 'wrong_password' }
  | { kind: 'weak'; message: string }
  | { kind: 'throttled'; retryAfter: number };

/** A new password, given the current one: every other session of the member ends, and this one gets a new id. */
export async function changePassword(ctx: UseCaseContext, me: SignedIn, current: string, next: string, meta: RequestMeta): Promise<PasswordChange> {
  const user = (await findUser(ctx.db, me.userId))!;
  // Said before the current password is checked, so that a weak choice costs no attempt.
  const problem = passwordProblem(next, [user.email, user.name ?? '']);
  if (problem) return { kind: 'weak', message: problem };
  const check = await beginSecretCheck(ctx, user.email, user, meta);
  if (check.kind === 'throttled') return check;
  if (!(await verifyPassword(current, user.passwordHash))) {
    await check.failed();
    return { kind: 'wrong_password' };
  }
  await check.passed();
  const hash = await hashPassword(next);
  const changed = await ctx.db.transaction(async (tx) => {
    await updateUser(tx, user.id, { passwordHash: hash });
    const otherSessionsEnded = await deleteSessionsOf(tx, user.id, me.sessionId);
    await endResetsOf(tx, user.id, new Date());
    const sessionToken = newSessionToken();
    await rotateSessionToken(tx, me.sessionId, sessionToken);
    await enqueueEmail(tx, me.businessId, 'member.password_changed', passwordChangedEmail({ ...memberNotice(ctx, user.email, meta), by: 'change' }));
    await recordAuditEvent(tx, { ...userAudit(me, meta), action: 'auth.password_changed', targetIds: [me.userId] });
    return { kind: 'changed' as const, sessionToken, otherSessionsEnded };
  });
  ctx.outbox.nudge();
  return changed;
}

/** Records a step of a reset in each business of the member (once without a business when there is none). */
async function recordReset(
  ctx: UseCaseContext,
  event: { action: string; user: User | undefined; email?: string; businessIds: readonly number[]; targets: string[]; outcome: AuditOutcome; status: number },
  meta: RequestMeta,
): Promise<void> {
  for (const businessId of event.businessIds.length > 0 ? event.businessIds : [null])
    await recordAuditEvent(ctx.db, {
      businessId,
      actor: event.user
        ? { kind: 'user', id: event.user.id, email: event.user.email }
        : { kind: 'anonymous', ...(event.email ? { email: event.email.slice(0, 254) } : {}) },
      action: event.action,
      targetIds: event.targets,
      outcome: event.outcome,
      status: event.status,
      clientAddress: meta.address,
      userAgent: meta.userAgent,
      requestId: meta.requestId,
    });
}

export type ResetRequest = { kind: 'accepted' } | { kind: 'throttled'; retryAfter: number };

/**
 * E-mails a one-time link to the member with this e-mail, who has a password and belongs to a
 * business; anyone else gets the same answer after much the same work, and no e-mail. Past the
 * account's limit no more links go out this window (the answer stays the same); past the client's,
 * the client is told to wait.
 */
export async function requestPasswordReset(ctx: UseCaseContext, email: string, meta: RequestMeta, now = Date.now()): Promise<ResetRequest> {
  const { resets, resetLinkMs } = authOf(ctx);
  const limit = await resets.request(email, meta.address, now);
  const user = await findUserByEmail(ctx.db, email);
  // Read for an unknown e-mail too (no user has the empty id), so that both take the same time.
  const memberships = await membershipsOf(ctx.db, user?.id ?? '');
  const businessIds = memberships.map((m) => m.businessId);
  const asked = { action: 'auth.password_reset_requested', user, email, businessIds };
  if (limit.retryAfter !== undefined) {
    await recordReset(ctx, { ...asked, targets: user ? [user.id] : [], outcome: 'refused', status: 429 }, meta);
    return { kind: 'throttled', retryAfter: limit.retryAfter };
  }
  const member = user?.passwordHash && memberships.length > 0 && limit.mayEmail ? user : undefined;
  await ctx.db.transaction(async (tx) => {
    await endResetsOf(tx, member?.id ?? '', new Date(now));
    if (!member) return recordReset({ ...ctx, db: tx }, { ...asked, targets: user ? [user.id] : [], outcome: 'refused', status: 202 }, meta);
    const token = randomBytes(32).toString('base64url');
    const reset = await insertPasswordReset(tx, { token, userId: member.id, expiresAt: new Date(now + resetLinkMs), clientAddress: meta.address });
    const url = `${ctx.publicUrl}${CONSOLE_RESET_PATH}?token=${token}`;
    const message = passwordResetEmail({ to: member.email, url, expiresAt: reset.expiresAt, at: new Date(now).toISOString(), address: meta.address });
    await enqueueEmail(tx, businessIds[0]!, 'member.password_reset', message);
    await recordReset({ ...ctx, db: tx }, { ...asked, targets: [member.id, reset.id], outcome: 'succeeded', status: 202 }, meta);
  });
  if (member) ctx.outbox.nudge();
  return { kind: 'accepted' };
}

/** Whose password a reset link sets, while it can be used. */
export async function openPasswordReset(ctx: UseCaseContext, token: string): Promise<{ email: string; expiresAt: string } | undefined> {
  const reset = await findUsableReset(ctx.db, token, new Date());
  const user = reset && (await findUser(ctx.db, reset.userId));
  return reset && user ? { email: user.email, expiresAt: reset.expiresAt } : undefined;
}

export type ResetOutcome = { kind: 'done'; email: string; sessionsEnded: number } | { kind: 'gone' } | { kind: 'invalid'; errors: Record<string, string> };

/** Sets the new password through a reset link: the link is used up, every session of the member ends, and they are told. */
export async function completePasswordReset(
  ctx: UseCaseContext,
  token: string,
  form: { password: string; confirmation: string },
  meta: RequestMeta,
): Promise<ResetOutcome> {
  const reset = await findUsableReset(ctx.db, token, new Date());
  const user = reset && (await findUser(ctx.db, reset.userId));
  const businessIds = user ? (await membershipsOf(ctx.db, user.id)).map((m) => m.businessId) : [];
  const done = { action: 'auth.password_reset', user, businessIds };
  if (!reset || !user) {
    await recordReset(ctx, { ...done, targets: [], outcome: 'refused', status: 410 }, meta);
    return { kind: 'gone' };
  }
  const problem = passwordProblem(form.password, [user.email, user.name ?? '']);
  const errors: Record<string, string> = problem
    ? { password: problem }
    : form.password !== form.confirmation
      ? { password_confirmation: 'The password confirmation does not match.' }
      : {};
  if (Object.keys(errors).length > 0) {
    await recordReset(ctx, { ...done, targets: [user.id, reset.id], outcome: 'refused', status: 422 }, meta);
    return { kind: 'invalid', errors };
  }
  const hash = await hashPassword(form.password);
  const outcome = await ctx.db.transaction(async (tx): Promise<ResetOutcome> => {
    const now = new Date();
    if (!(await useReset(tx, reset.id, now))) return { kind: 'gone' };
    await updateUser(tx, user.id, { passwordHash: hash });
    const sessionsEnded = await deleteSessionsOf(tx, user.id);
    await endResetsOf(tx, user.id, now);
    if (businessIds[0] !== undefined)
      await enqueueEmail(tx, businessIds[0], 'member.password_changed', passwordChangedEmail({ ...memberNotice(ctx, user.email, meta), by: 'reset' }));
    await recordReset({ ...ctx, db: tx }, { ...done, targets: [user.id, reset.id], outcome: 'succeeded', status: 200 }, meta);
    return { kind: 'done', email: user.email, sessionsEnded };
  });
  if (outcome.kind === 'gone') await recordReset(ctx, { ...done, targets: [user.id, reset.id], outcome: 'refused', status: 410 }, meta);
  else ctx.outbox.nudge();
  return outcome;
}
