// Making members: the operator's (create-user, and the owner of the demo business at first start),
// directly with a password or through a one-time link, and what its holder does with a link (a new
// owner's, or an invitation's), on the console's page through the API or on the older server-rendered
// page: sets their name and password (or, with an account already, confirms their password) and joins
// the business with the link's role.
import { isEmail } from '../domain/email.js';
import { hashPassword, passwordProblem, verifyPassword } from '../domain/passwords.js';
import type { Role } from '../domain/permissions.js';
import { findUsableLink, insertAccountLink, useLink, type AccountLink } from '../store/account-links.js';
import { recordAuditEvent } from '../store/audit-events.js';
import { findBusinessName } from '../store/businesses.js';
import { findOrInsertUser, findUserByEmail, updateUser, upsertMembership } from '../store/users.js';
import type { UseCaseContext } from './context.js';
import { accountLinkUrl, newLinkToken } from './team.js';

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
  { kind: 'done'; email: string; businessId: number; role: Role } | { kind: 'gone' } | { kind: 'invalid'; errors: Record<string, string> };

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
    if (!(await verifyPassword(form.password, existing?.passwordHash))) return { kind: 'invalid', errors: { password: 'The password is incorrect.' } };
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
  return ctx.db.transaction(async (tx) => {
    if (!(await useLink(tx, link.id))) return { kind: 'gone' };
    const user = await findOrInsertUser(tx, email);
    if (hash) await updateUser(tx, user.id, { passwordHash: hash, name: form.name.trim() });
    await upsertMembership(tx, link.businessId, user.id, link.role);
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
