// Two-factor sign-in with TOTP (RFC 6238, the `otpauth` library): a secret offered, turned on by a
// valid code with ten single-use recovery codes (kept as hashes), turned off with the current
// password and a current code, both checked through the one throttle of secret checks. A code is
// accepted once: the time step it was good for is recorded, and an equal or earlier one refused. The
// member is e-mailed when it goes on (with its new recovery codes) or off, and when the recovery codes
// are replaced.
import { randomBytes } from 'node:crypto';
import type { TOTP } from 'otpauth';
import { verifyPassword } from '../../domain/passwords.js';
import { newSessionToken } from '../../domain/sessions.js';
import { recoveryCodesEmail, twoFactorEmail } from '../../outbox/member-messages.js';
import { openSecret, sealSecret } from '../../secrets/seal.js';
import { recordAuditEvent } from '../../store/audit-events.js';
import { rotateSessionToken, deleteSessionsOf } from '../../store/user-sessions.js';
import { claimTotpStep, findUser, replaceRecoveryCodes, updateUser, useRecoveryCode, type User } from '../../store/users.js';
import type { Executor } from '../../store/executor.js';
import type { UseCaseContext } from '../platform/context.js';
import type { SignedIn } from '../../domain/actors.js';
import type { RequestMeta } from './auth-context.js';
import { enqueueEmail } from '../platform/notify.js';
import { beginSecretCheck, memberNotice } from './secret-checks.js';

const PERIOD = 30;
const ISSUER = 'Payment Collection Service';
export const RECOVERY_CODE_COUNT = 10;

const secretContext = (userId: string) => `users.totp_secret:${userId}`;

/** otpauth, loaded by the first sign-in that needs it (or by the warm-up once listening): a start-up has no use for it. */
export const loadTotp = () => import('otpauth');

async function totpFor(secret: string, label: string): Promise<TOTP> {
  const { Secret, TOTP } = await loadTotp();
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });
}

async function openTotp(ctx: UseCaseContext, user: User): Promise<TOTP | undefined> {
  return user.totpSecret ? await totpFor(openSecret(ctx.secretsKey, user.totpSecret, secretContext(user.id)), user.email) : undefined;
}

/**
 * Whether `code` is the user's current code (one step either side, for clocks a little apart), and
 * not one already used: the step it matched is claimed, so a second use of the same code fails.
 */
export async function acceptTotpCode(ctx: UseCaseContext, db: Executor, user: User, code: string, now = Date.now()): Promise<boolean> {
  const totp = await openTotp(ctx, user);
  if (!totp || !/^\d{6}$/.test(code)) return false;
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return false;
  return claimTotpStep(db, user.id, Math.floor(now / 1000 / PERIOD) + delta);
}

/** A recovery code as shown: ten characters in two groups, from an alphabet without look-alikes. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => alphabet[byte % alphabet.length]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

export function normalRecoveryCode(code: string): string {
  const compact = code.trim().toLowerCase().replace(/[\s-]/g, '');
  return compact.length === 10 ? `${compact.slice(0, 5)}-${compact.slice(5)}` : compact;
}

export async function acceptRecoveryCode(db: Executor, userId: string, code: string): Promise<boolean> {
  return useRecoveryCode(db, userId, normalRecoveryCode(code));
}

export interface TotpOffer {
  secret: string;
  uri: string;
  qrSvg: string;
}

export type TotpOutcome<T> =
  | { kind: 'done'; value: T }
  | { kind: 'already_enabled' }
  | { kind: 'not_enabled' }
  | { kind: 'invalid_code' }
  | { kind: 'wrong_password' }
  | { kind: 'throttled'; retryAfter: number };

/** A new secret for the user, pending until confirmed (replacing one offered before). */
export async function offerTotp(ctx: UseCaseContext, me: SignedIn): Promise<TotpOutcome<TotpOffer>> {
  const user = (await findUser(ctx.db, me.userId))!;
  if (user.totpEnabledAt) return { kind: 'already_enabled' };
  const { Secret } = await loadTotp();
  const secret = new Secret({ size: 20 }).base32;
  await updateUser(ctx.db, user.id, { totpSecret: sealSecret(ctx.secretsKey, secret, secretContext(user.id)), totpLastStep: null });
  const uri = (await totpFor(secret, user.email)).toString();
  const { default: QRCode } = await import('qrcode');
  return { kind: 'done', value: { secret, uri, qrSvg: await QRCode.toString(uri, { type: 'svg', margin: 2 }) } };
}

/** Turns two-factor on with a valid code: ten recovery codes, the session's id renewed, the user's other sessions ended. */
export async function confirmTotp(
  ctx: UseCaseContext,
  me: SignedIn,
  code: string,
  meta: RequestMeta,
): Promise<TotpOutcome<{ recoveryCodes: string[]; sessionToken: string }>> {
  const outcome = await ctx.db.transaction(async (tx): Promise<TotpOutcome<{ recoveryCodes: string[]; sessionToken: string }>> => {
    const user = (await findUser(tx, me.userId))!;
    if (user.totpEnabledAt) return { kind: 'already_enabled' };
    if (!(await acceptTotpCode(ctx, tx, user, code))) return { kind: 'invalid_code' };
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await updateUser(tx, user.id, { totpEnabledAt: new Date().toISOString() });
    await replaceRecoveryCodes(tx, user.id, recoveryCodes);
    const sessionToken = newSessionToken();
    await rotateSessionToken(tx, me.sessionId, sessionToken);
    await deleteSessionsOf(tx, user.id, me.sessionId);
    await enqueueEmail(tx, me.businessId, 'member.two_factor_on', twoFactorEmail({ ...memberNotice(ctx, user.email, meta), on: true }));
    await recordAuditEvent(tx, { ...auditBase(me, meta), action: 'auth.totp_enabled' });
    return { kind: 'done', value: { recoveryCodes, sessionToken } };
  });
  if (outcome.kind === 'done') ctx.outbox.nudge();
  return outcome;
}

/**
 * Turns two-factor off with the current password and a current code (or a recovery code): one
 * attempt at the account's secrets, counted before either is checked.
 */
export async function disableTotp(ctx: UseCaseContext, me: SignedIn, proof: TwoFactorProof, meta: RequestMeta): Promise<TotpOutcome<{ sessionToken: string }>> {
  return withTwoFactorProof(ctx, me, proof, meta, async (tx, current) => {
    await updateUser(tx, current.id, { totpSecret: null, totpEnabledAt: null, totpLastStep: null });
    await replaceRecoveryCodes(tx, current.id, []);
    const sessionToken = newSessionToken();
    await rotateSessionToken(tx, me.sessionId, sessionToken);
    await deleteSessionsOf(tx, current.id, me.sessionId);
    await enqueueEmail(tx, me.businessId, 'member.two_factor_off', twoFactorEmail({ ...memberNotice(ctx, current.email, meta), on: false }));
    await recordAuditEvent(tx, { ...auditBase(me, meta), action: 'auth.totp_disabled' });
    return { sessionToken };
  });
}

/**
 * Ten new recovery codes in place of the old ones, given the current password and a current code
 * (or a recovery code), checked as turning two-factor off is. Sessions stay as they are: the codes
 * are replaced, not the way in.
 */
export async function regenerateRecoveryCodes(
  ctx: UseCaseContext,
  me: SignedIn,
  proof: TwoFactorProof,
  meta: RequestMeta,
): Promise<TotpOutcome<{ recoveryCodes: string[] }>> {
  return withTwoFactorProof(ctx, me, proof, meta, async (tx, current) => {
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await replaceRecoveryCodes(tx, current.id, recoveryCodes);
    await enqueueEmail(tx, me.businessId, 'member.recovery_codes_replaced', recoveryCodesEmail(memberNotice(ctx, current.email, meta)));
    await recordAuditEvent(tx, { ...auditBase(me, meta), action: 'auth.recovery_codes_regenerated' });
    return { recoveryCodes };
  });
}

/** The password and a second factor, as turning two-factor off or replacing the recovery codes asks for them. */
export interface TwoFactorProof {
  password: string;
  totpCode?: string | undefined;
  recoveryCode?: string | undefined;
}

/**
 * What changes a member's two-factor set-up takes: two-factor on, the password (throttled as every
 * secret is), then, in one transaction with `work`, a current code or an unused recovery code. A wrong
 * password or code counts as a failed attempt; the e-mail `work` queued is sent once it commits.
 */
async function withTwoFactorProof<T>(
  ctx: UseCaseContext,
  me: SignedIn,
  proof: TwoFactorProof,
  meta: RequestMeta,
  work: (tx: Executor, current: User) => Promise<T>,
): Promise<TotpOutcome<T>> {
  const user = (await findUser(ctx.db, me.userId))!;
  if (!user.totpEnabledAt) return { kind: 'not_enabled' };
  const check = await beginSecretCheck(ctx, user.email, user, meta);
  if (check.kind === 'throttled') return check;
  if (!(await verifyPassword(proof.password, user.passwordHash))) {
    await check.failed();
    return { kind: 'wrong_password' };
  }
  const outcome = await ctx.db.transaction(async (tx): Promise<TotpOutcome<T>> => {
    const current = (await findUser(tx, me.userId))!;
    if (!current.totpEnabledAt) return { kind: 'not_enabled' };
    if (!(await acceptedProof(ctx, tx, current, proof))) return { kind: 'invalid_code' };
    return { kind: 'done', value: await work(tx, current) };
  });
  if (outcome.kind === 'invalid_code') await check.failed();
  else await check.passed();
  if (outcome.kind === 'done') ctx.outbox.nudge();
  return outcome;
}

/** A current code or an unused recovery code (which is then spent). */
async function acceptedProof(ctx: UseCaseContext, tx: Executor, user: User, proof: { totpCode?: string | undefined; recoveryCode?: string | undefined }) {
  if (proof.totpCode) return acceptTotpCode(ctx, tx, user, proof.totpCode);
  if (proof.recoveryCode) return acceptRecoveryCode(tx, user.id, proof.recoveryCode);
  return false;
}

function auditBase(me: SignedIn, meta: RequestMeta) {
  return {
    businessId: me.businessId,
    actor: { kind: 'user' as const, id: me.userId, email: me.email },
    targetIds: [me.userId],
    outcome: 'succeeded' as const,
    clientAddress: meta.address,
    userAgent: meta.userAgent,
    requestId: meta.requestId,
  };
}
