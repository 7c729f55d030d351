// Every check of a member's secret (a password, a TOTP code, a recovery code) goes through here, so
// that each is throttled the same way: counted before the check by the one throttle the composition
// root hands in (usecases/members/auth-context.ts), given back when it passes, kept when it fails, and the
// member e-mailed when failures pile up.
import { CONSOLE_PATH } from '../../domain/sessions.js';
import { failedAttemptsEmail, type MemberNotice } from '../../outbox/member-messages.js';
import { membershipsOf, type User } from '../../store/users.js';
import type { AuthContext, RequestMeta } from './auth-context.js';
import type { UseCaseContext } from '../platform/context.js';
import { enqueueEmail } from '../platform/notify.js';

/** The console's page where a member asks for a password-reset link. */
export const CONSOLE_FORGOT_PASSWORD_PATH = `${CONSOLE_PATH}/forgot-password`;

export function authOf(ctx: UseCaseContext): AuthContext {
  if (!ctx.auth) throw new Error('the use-case context has no auth settings');
  return ctx.auth;
}

export type SecretCheck = { kind: 'throttled'; retryAfter: number; audit: boolean } | { kind: 'counted'; passed(): Promise<void>; failed(): Promise<void> };

/**
 * Counts an attempt at the account's secrets from the request's address before they are checked.
 * `email` is the account as asked for (an unknown one is counted too); `user` the account, if any.
 */
export async function beginSecretCheck(ctx: UseCaseContext, email: string, user: User | undefined, meta: RequestMeta, now = Date.now()): Promise<SecretCheck> {
  const attempt = await authOf(ctx).throttle.attempt({ email, userId: user?.id }, meta.address, now);
  if (attempt.kind === 'throttled') return attempt;
  return {
    kind: 'counted',
    passed: attempt.passed,
    failed: async () => {
      if ((await attempt.failed()) && user) await tellOfFailures(ctx, user, meta, now);
    },
  };
}

async function tellOfFailures(ctx: UseCaseContext, user: User, meta: RequestMeta, now: number): Promise<void> {
  const [membership] = await membershipsOf(ctx.db, user.id);
  if (!membership) return;
  await ctx.db.transaction(async (tx) => {
    await enqueueEmail(tx, membership.businessId, 'member.failed_attempts', failedAttemptsEmail(memberNotice(ctx, user.email, meta, now)));
  });
  ctx.outbox.nudge();
}

/** What every notice to a member says of the change: to whom, when, from where, and where to reset the password. */
export function memberNotice(ctx: Pick<UseCaseContext, 'publicUrl'>, to: string, meta: RequestMeta, now = Date.now()): MemberNotice {
  return { to, at: new Date(now).toISOString(), address: meta.address || null, resetUrl: `${ctx.publicUrl}${CONSOLE_FORGOT_PASSWORD_PATH}` };
}
