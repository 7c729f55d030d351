// Members signing in and their sessions: sign-in (password, then a TOTP or recovery code when
// two-factor is on), who is signed in, sign-out, the session list, and the current business. An
// unknown e-mail and a wrong password get the same outcome after the same work (a dummy hash is
// checked for an unknown e-mail). Every attempt is counted before its secrets are checked, by the one
// throttle of every secret check (secret-checks.ts). Every sign-in, failed or throttled one and
// change is recorded in the audit log in the transaction that makes it.
import type { Actor, SignedIn } from '../../domain/actors.js';
import { verifyPassword } from '../../domain/passwords.js';
import { permissionsOf, type Permission, type Role } from '../../domain/permissions.js';
import { DEFAULT_SESSION_SETTINGS, csrfTokenOf, newSessionToken, type SessionSettings } from '../../domain/sessions.js';
import { recordAuditEvent } from '../../store/audit-events.js';
import type { Executor } from '../../store/executor.js';
import {
  deleteSession,
  findSessionByToken,
  insertSession,
  listSessions,
  rotateSessionToken,
  setSessionBusiness,
  touchSession,
  type UserSession,
} from '../../store/user-sessions.js';
import { countUnusedRecoveryCodes, findUser, findUserByEmail, membershipsOf, type Membership, type User } from '../../store/users.js';
import type { UseCaseContext } from '../platform/context.js';
import { authOf, beginSecretCheck } from './secret-checks.js';
import { acceptRecoveryCode, acceptTotpCode } from './two-factor.js';
import type { RequestMeta } from './auth-context.js';

export { DEFAULT_SESSION_SETTINGS, type SessionSettings };
export type { AuthContext, RequestMeta, SecretThrottle } from './auth-context.js';

export type { SignedIn };

/** What the API gate makes of a session cookie: a caller of the same shape as a key's. */
export interface SessionCaller {
  business: { id: number; name: string };
  actor: Actor;
  permissions: ReadonlySet<Permission>;
  rateKey: string;
  signedIn: SignedIn;
}

/** What the member may do in the business: nothing while the business requires two-factor and they have not set it up. */
function effectivePermissions(membership: Membership, user: User): ReadonlySet<Permission> {
  return membership.requireTwoFactor && !user.totpEnabledAt ? new Set() : permissionsOf(membership.role);
}

/** The caller behind a session cookie while the session lives; an ended session is deleted. */
export async function sessionCaller(ctx: UseCaseContext, token: string, now = new Date()): Promise<SessionCaller | undefined> {
  const { sessions } = authOf(ctx);
  const session = await findSessionByToken(ctx.db, token);
  if (!session) return undefined;
  const idleSince = now.getTime() - Date.parse(session.lastSeenAt);
  if (Date.parse(session.expiresAt) <= now.getTime() || idleSince >= sessions.idleMs) {
    await deleteSession(ctx.db, session.id);
    return undefined;
  }
  const [user, memberships] = await Promise.all([findUser(ctx.db, session.userId), membershipsOf(ctx.db, session.userId)]);
  const membership = memberships.find((m) => m.businessId === session.businessId) ?? memberships[0];
  if (!user || !membership) {
    await deleteSession(ctx.db, session.id);
    return undefined;
  }
  if (membership.businessId !== session.businessId) await setSessionBusiness(ctx.db, session.id, membership.businessId);
  // A write per request would cost every request a commit: the idle clock is kept to within a small part of its length.
  if (idleSince > Math.min(60_000, sessions.idleMs / 10)) await touchSession(ctx.db, session.id, now);
  return {
    signedIn: { sessionId: session.id, userId: user.id, email: user.email, businessId: membership.businessId },
    business: { id: membership.businessId, name: membership.businessName },
    actor: { kind: 'user', id: user.id, email: user.email },
    permissions: effectivePermissions(membership, user),
    rateKey: `user:${user.id}`,
  };
}

export interface LoginInput {
  email: string;
  password: string;
  totpCode?: string | undefined;
  recoveryCode?: string | undefined;
  /** The session cookie the request came with, ended by the sign-in (a new id every time). */
  previousToken?: string | undefined;
}

export type LoginOutcome =
  | { kind: 'signed_in'; token: string; me: Me }
  | { kind: 'refused' }
  | { kind: 'two_factor_required' }
  | { kind: 'two_factor_invalid' }
  | { kind: 'throttled'; retryAfter: number };

/**
 * Records a failed or throttled sign-in: in the log of each business the account belongs to, where
 * its owners look for attempts on their members' accounts, or once without a business for an e-mail
 * that names no member.
 */
async function recordAttempt(
  ctx: UseCaseContext,
  input: LoginInput,
  meta: RequestMeta,
  user: User | undefined,
  businessIds: readonly number[],
  outcome: { action: 'auth.login_failed'; status: 401 } | { action: 'auth.login_throttled'; status: 429 },
): Promise<void> {
  for (const businessId of businessIds.length > 0 ? businessIds : [null])
    await recordAuditEvent(ctx.db, {
      businessId,
      actor: { kind: 'anonymous', email: input.email.slice(0, 254) },
      action: outcome.action,
      targetIds: user ? [user.id] : [],
      outcome: outcome.status === 429 ? 'refused' : 'failed',
      status: outcome.status,
      clientAddress: meta.address,
      userAgent: meta.userAgent,
      requestId: meta.requestId,
    });
}

const FAILED = { action: 'auth.login_failed', status: 401 } as const;

export async function login(ctx: UseCaseContext, input: LoginInput, meta: RequestMeta, now = Date.now()): Promise<LoginOutcome> {
  const { throttle, sessions } = authOf(ctx);
  const user = await findUserByEmail(ctx.db, input.email);
  // Read for an unknown e-mail too (no user has the empty id), so that it costs what a wrong password does.
  const memberships = await membershipsOf(ctx.db, user?.id ?? '');
  const businessIds = memberships.map((m) => m.businessId);
  const check = await beginSecretCheck(ctx, input.email, user, meta, now);
  if (check.kind === 'throttled') {
    if (check.audit) await recordAttempt(ctx, input, meta, user, businessIds, { action: 'auth.login_throttled', status: 429 });
    return { kind: 'throttled', retryAfter: check.retryAfter };
  }
  const passwordOk = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !passwordOk || memberships.length === 0) {
    await check.failed();
    await recordAttempt(ctx, input, meta, user, businessIds, FAILED);
    return { kind: 'refused' };
  }
  const previous = input.previousToken ? await findSessionByToken(ctx.db, input.previousToken) : undefined;
  const business = memberships.find((m) => previous?.userId === user.id && m.businessId === previous.businessId) ?? memberships[0]!;
  const outcome = await ctx.db.transaction(async (tx): Promise<LoginOutcome> => {
    if (user.totpEnabledAt) {
      if (!input.totpCode && !input.recoveryCode) return { kind: 'two_factor_required' };
      const accepted = input.totpCode ? await acceptTotpCode(ctx, tx, user, input.totpCode, now) : await acceptRecoveryCode(tx, user.id, input.recoveryCode!);
      if (!accepted) return { kind: 'two_factor_invalid' };
    }
    if (previous) await deleteSession(tx, previous.id);
    const token = newSessionToken();
    const sessionId = await insertSession(tx, {
      token,
      userId: user.id,
      businessId: business.businessId,
      expiresAt: new Date(now + sessions.lifetimeMs),
      clientAddress: meta.address,
      userAgent: meta.userAgent,
    });
    await throttle.signedInFrom(tx, user.id, meta.address, now);
    await recordAuditEvent(tx, {
      businessId: business.businessId,
      actor: { kind: 'user', id: user.id, email: user.email },
      action: 'auth.login',
      targetIds: [user.id, sessionId],
      outcome: 'succeeded',
      clientAddress: meta.address,
      userAgent: meta.userAgent,
      requestId: meta.requestId,
    });
    return {
      kind: 'signed_in',
      token,
      me: await describe(tx, { sessionId, userId: user.id, email: user.email, businessId: business.businessId }, csrfTokenOf(token)),
    };
  });
  // Settled once the transaction is over: the audit row of a failure is written on its own.
  if (outcome.kind === 'two_factor_invalid') {
    await check.failed();
    await recordAttempt(ctx, input, meta, user, [business.businessId], FAILED);
  } else {
    // The password was right (and the code, when one was asked): the attempt was the member's.
    await check.passed();
  }
  return outcome;
}

export interface Me {
  user: { id: string; email: string; name: string | null; twoFactor: boolean; recoveryCodesLeft: number };
  memberships: { businessId: number; businessName: string; role: Role; requireTwoFactor: boolean }[];
  business: { id: number; name: string };
  role: Role;
  permissions: Permission[];
  /** The business requires two-factor and the member has not set it up: they may do nothing there until they do. */
  twoFactorSetupRequired: boolean;
  sessionId: string;
  csrfToken: string;
}

async function describe(db: Executor, signedIn: SignedIn, csrfToken: string): Promise<Me> {
  const [user, memberships] = await Promise.all([findUser(db, signedIn.userId), membershipsOf(db, signedIn.userId)]);
  const membership = memberships.find((m) => m.businessId === signedIn.businessId) ?? memberships[0]!;
  return {
    user: {
      id: user!.id,
      email: user!.email,
      name: user!.name,
      twoFactor: Boolean(user!.totpEnabledAt),
      recoveryCodesLeft: user!.totpEnabledAt ? await countUnusedRecoveryCodes(db, user!.id) : 0,
    },
    memberships,
    business: { id: membership.businessId, name: membership.businessName },
    role: membership.role,
    permissions: [...effectivePermissions(membership, user!)],
    twoFactorSetupRequired: membership.requireTwoFactor && !user!.totpEnabledAt,
    sessionId: signedIn.sessionId,
    csrfToken,
  };
}

export async function whoAmI(ctx: UseCaseContext, me: SignedIn, sessionToken: string): Promise<Me> {
  return describe(ctx.db, me, csrfTokenOf(sessionToken));
}

export function userAudit(me: SignedIn, meta: RequestMeta) {
  return {
    businessId: me.businessId,
    actor: { kind: 'user' as const, id: me.userId, email: me.email },
    outcome: 'succeeded' as const,
    clientAddress: meta.address,
    userAgent: meta.userAgent,
    requestId: meta.requestId,
  };
}

export async function logout(ctx: UseCaseContext, me: SignedIn, meta: RequestMeta): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await deleteSession(tx, me.sessionId);
    await recordAuditEvent(tx, { ...userAudit(me, meta), action: 'auth.logout', targetIds: [me.userId, me.sessionId] });
  });
}

export async function sessionsOf(ctx: UseCaseContext, me: SignedIn): Promise<UserSession[]> {
  return listSessions(ctx.db, me.userId);
}

/** Ends one of the member's own sessions; false when they have none with that id. */
export async function endSession(ctx: UseCaseContext, me: SignedIn, sessionId: string, meta: RequestMeta): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    if ((await deleteSession(tx, sessionId, me.userId)) === 0) return false;
    await recordAuditEvent(tx, { ...userAudit(me, meta), action: 'auth.session_ended', targetIds: [me.userId, sessionId] });
    return true;
  });
}

/** Makes `businessId` the session's current business (with a new session id: the role in effect changes); undefined when not a member. */
export async function switchBusiness(ctx: UseCaseContext, me: SignedIn, businessId: number, meta: RequestMeta): Promise<{ token: string; me: Me } | undefined> {
  return ctx.db.transaction(async (tx) => {
    const memberships = await membershipsOf(tx, me.userId);
    if (!memberships.some((m) => m.businessId === businessId)) return undefined;
    await setSessionBusiness(tx, me.sessionId, businessId);
    const token = newSessionToken();
    await rotateSessionToken(tx, me.sessionId, token);
    await recordAuditEvent(tx, { ...userAudit(me, meta), businessId, action: 'auth.business_switched', targetIds: [me.userId, me.sessionId] });
    return { token, me: await describe(tx, { ...me, businessId }, csrfTokenOf(token)) };
  });
}
