// Making members: the operator's (create-user, and the owner of the demo business at first start),
// directly with a password or through a one-time link, and what its holder does with a link (a new
// owner's, or an invitation's), on the console's page through the API or on the older server-rendered
// page: sets their name and password (or, with an account already, confirms their password, through
// the one throttle of secret checks) and joins the business with the link's role.
import { isEmail } from '../../domain/email.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../domain/passwords.js';
import type { Role } from '../../domain/permissions.js';
import { findUsableLink, insertAccountLink, useLink, type AccountLink } from '../../store/account-links.js';
import { recordAuditEvent } from '../../store/audit-events.js';
import { findBusinessName, lockBusiness } from '../../store/businesses.js';
import {
  findOrInsertUser,
  findUserByEmail,
  insertMembership,
  membershipIn,
  membershipsOf,
  updateUser,
  upsertMembership,
  type User,
} from '../../store/users.js';
import type { RequestMeta } from './auth-context.js';
import type { UseCaseContext } from '../platform/context.js';
import { beginSecretCheck } from './secret-checks.js';
import { accountLinkUrl, newLinkToken } from './team.js';

const ALREADY_A_MEMBER = 'You are already a member of this business: an owner or admin can change your role instead.';

/** What the holder of a link that expired, was used or was revoked is told, on the page and by the API. */
export const ACCOUNT_LINK_GONE = 'This link has expired, was already used or was revoked. Ask for a new one.';

/** How long a link the operator made stays good. */
export const SETUP_LINK_VALID_MS = 72 * 3_600_000;

export type CreateMemberOutcome = { kind: 'created'; userId: string } | { kind: 'weak_password'; message: string };

/** A member with a password, at once (create-user with NEW_USER_PASSWORD, tests). */
export async function createMember(
  ctx: Pick<UseCaseContext, 'db'>,
  member: { businessId: number; email: string; role: Role; password: string; name?: string },
): Promise<CreateMemberOutcome> {
  const problem = passwordProblem(member.password, [member.email, member.name ?? '']);
  if (problem) return { kind: 'weak_password', message: problem };
  const hash = await hashPassword(member.password);
  const userId = await ctx.db.transaction(async (tx) => {
    const user = await findOrInsertUser(tx, member.email);
    await updateUser(tx, user.id, { passwordHash: hash, ...(member.name ? { name: member.name } : {}) });
    await upsertMembership(tx, member.businessId, user.id, member.role);
    await recordAuditEvent(tx, {
      businessId: member.businessId,
      actor: { kind: 'operator' },
      action: 'team.member_created',
      targetIds: [user.id],
      outcome: 'succeeded',
      clientAddress: null,
      userAgent: null,
      requestId: null,
    });
    return user.id;
  });
  return { kind: 'created', userId };
}

/** A one-time link to the set-password page, for the operator to hand over. */
export async function createSetupLink(ctx: Pick<UseCaseContext, 'db' | 'publicUrl'>, link: { businessId: number; email: string; role: Role }): Promise<string> {
  const token = newLinkToken();
  await insertAccountLink(ctx.db, { token, purpose: 'set_password', ...link, invitedBy: null, expiresAt: new Date(Date.now() + SETUP_LINK_VALID_MS) });
  return accountLinkUrl(ctx.publicUrl, token);
}

export interface OpenLink {
  link: AccountLink;
  /** The e-mail has an account with a password: its holder confirms that password instead of setting one. */
  existingAccount: boolean;
}

export async function openAccountLink(ctx: Pick<UseCaseContext, 'db'>, token: string): Promise<OpenLink | undefined> {
  const link = await findUsableLink(ctx.db, token, new Date());
  if (!link) return undefined;
  // The first owner's link names no e-mail: its holder gives theirs on the page.
  const user = link.email ? await findUserByEmail(ctx.db, link.email) : undefined;
  return { link, existingAccount: Boolean(user?.passwordHash) };
}

/** What a link is for, as its holder's page shows it before they use it. */
export async function describeAccountLink(ctx: Pick<UseCaseContext, 'db'>, token: string): Promise<(OpenLink & { businessName: string }) | undefined> {
  const opened = await openAccountLink(ctx, token);
  if (!opened) return undefined;
  return { ...opened, businessName: (await findBusinessName(ctx.db, opened.link.businessId)) ?? '' };
}

/** The first owner's link: the demo business's owner, made at the first start of a database without users. */
export async function createOwnerLink(ctx: Pick<UseCaseContext, 'db' | 'publicUrl'>, businessId: number): Promise<string> {
  return createSetupLink(ctx, { businessId, email: '', role: 'owner' });
}

export type CompleteOutcome =
  | { kind: 'done'; email: string; businessId: number; role: Role }
  | { kind: 'gone' }
  | { kind: 'invalid'; errors: Record<string, string> }
  | { kind: 'throttled'; retryAfter: number };

/**
 * Confirms the password of the account a link names, through the one throttle of secret checks. A
 * wrong password, or an attempt the throttle refused, is recorded in the log of the link's business
 * and of each business the account belongs to: the operation is public, so no caller's row records it.
 */
async function confirmAccountPassword(
  ctx: UseCaseContext,
  link: AccountLink,
  user: User | undefined,
  email: string,
  password: string,
  meta: RequestMeta,
): Promise<CompleteOutcome | undefined> {
  const check = await beginSecretCheck(ctx, email, user, meta);
  const record = async (status: 422 | 429) => {
    const businessIds = new Set([link.businessId, ...(user ? await membershipsOf(ctx.db, user.id) : []).map((m) => m.businessId)]);
    for (const businessId of businessIds)
      await recordAuditEvent(ctx.db, {
        businessId,
        actor: { kind: 'anonymous', email: email.slice(0, 254) },
        action: 'auth.link_password_failed',
        targetIds: [...(user ? [user.id] : []), link.id],
        outcome: status === 429 ? 'refused' : 'failed',
        status,
        clientAddress: meta.address,
        userAgent: meta.userAgent,
        requestId: meta.requestId,
      });
  };
  if (check.kind === 'throttled') {
    if (check.audit) await record(429);
    return { kind: 'throttled', retryAfter: check.retryAfter };
  }
  if (!(await verifyPassword(password, user?.passwordHash))) {
    await check.failed();
    await record(422);
    return { kind: 'invalid', errors: { password: 'The password is incorrect.' } };
  }
  await check.passed();
  return undefined;
}

export async function completeAccountLink(
  ctx: UseCaseContext,
  token: string,
  form: { name: string; password: string; confirmation: string; email?: string },
  meta: { address: string; userAgent: string | null; requestId?: string | null },
): Promise<CompleteOutcome> {
  const opened = await openAccountLink(ctx, token);
  if (!opened) return { kind: 'gone' };
  const { link } = opened;
  const email = link.email || (form.email ?? '').trim();
  if (!link.email) {
    if (!email) return { kind: 'invalid', errors: { email: 'The email field is required.' } };
    if (!isEmail(email)) return { kind: 'invalid', errors: { email: 'The email must be a valid email address.' } };
    if ((await findUserByEmail(ctx.db, email))?.passwordHash) return { kind: 'invalid', errors: { email: 'This e-mail already has an account.' } };
  }
  const existing = await findUserByEmail(ctx.db, email);
  let hash: string | undefined;
  if (opened.existingAccount) {
    const refused = await confirmAccountPassword(ctx, link, existing, email, form.password, { ...meta, requestId: meta.requestId ?? null });
    if (refused) return refused;
  } else {
    const errors: Record<string, string> = {};
    const name = form.name.trim();
    if (!name) errors.name = 'The name field is required.';
    else if (name.length > 100) errors.name = 'The name must not be greater than 100 characters.';
    const problem = passwordProblem(form.password, [email, name]);
    if (problem) errors.password = problem;
    else if (form.password !== form.confirmation) errors.password_confirmation = 'The password confirmation does not match.';
    if (Object.keys(errors).length > 0) return { kind: 'invalid', errors };
    hash = await hashPassword(form.password);
  }
  return ctx.db.transaction(async (tx): Promise<CompleteOutcome> => {
    // Under the lock the team's rules are decided under: a link never changes a membership (it would
    // bypass "only an owner unmakes an owner" and "a business keeps an owner"), so a member is refused.
    await lockBusiness(tx, link.businessId);
    const user = await findOrInsertUser(tx, email);
    if (await membershipIn(tx, user.id, link.businessId)) return { kind: 'invalid', errors: { email: ALREADY_A_MEMBER } };
    if (!(await useLink(tx, link.id))) return { kind: 'gone' };
    if (hash) await updateUser(tx, user.id, { passwordHash: hash, name: form.name.trim() });
    await insertMembership(tx, link.businessId, user.id, link.role);
    await recordAuditEvent(tx, {
      businessId: link.businessId,
      actor: { kind: 'user', id: user.id, email: user.email },
      action: link.purpose === 'invitation' ? 'team.invitation_accepted' : 'auth.password_set',
      targetIds: [user.id, link.id],
      outcome: 'succeeded',
      clientAddress: meta.address,
      userAgent: meta.userAgent,
      requestId: meta.requestId ?? null,
    });
    return { kind: 'done', email: user.email, businessId: link.businessId, role: link.role };
  });
}
