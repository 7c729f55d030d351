// The business's team: members and their roles, invitations, and whether two-factor sign-in is
// required. A business always keeps an owner, and only an owner makes or unmakes owners (a full API
// key counts as the owner's own); both are decided under the business's lock, so two requests cannot
// each remove one of two owners. A member whose role changes or who is removed loses their sessions.
import { randomBytes } from 'node:crypto';
import type { Actor, SignedIn } from '../domain/actors.js';
import { CONSOLE_SETUP_PATH } from '../domain/sessions.js';
import type { Role } from '../domain/permissions.js';
import { findUsableLink, insertAccountLink, listOpenInvitations, revokeLink, type AccountLink } from '../store/account-links.js';
import { recordAuditEvent } from '../store/audit-events.js';
import { findBusinessName, lockBusiness } from '../store/businesses.js';
import type { Executor } from '../store/executor.js';
import { deleteSessionsOf } from '../store/user-sessions.js';
import { countOwners, deleteMembership, listMembers, membershipIn, setRequireTwoFactor, setRole, type Member } from '../store/users.js';
import type { UseCaseContext } from './context.js';
import type { RequestMeta } from './auth-context.js';
import { notifyInvitation } from './notify.js';

export const INVITATION_VALID_MS = 72 * 3_600_000;

/** Who acts on the team: a member (by their session) or an API key. */
export interface TeamActor {
  actor: Actor;
  signedIn?: SignedIn;
}

export type TeamOutcome<T> = { kind: 'done'; value: T } | { kind: 'not_found' } | { kind: 'refused'; field: string; message: string };

const ONLY_OWNERS = 'Only an owner can make, invite or remove an owner.';
const LAST_OWNER = 'A business must keep at least one owner.';

async function actsAsOwner(db: Executor, who: TeamActor, businessId: number): Promise<boolean> {
  if (!who.signedIn) return who.actor.kind === 'api_key';
  return (await membershipIn(db, who.signedIn.userId, businessId))?.role === 'owner';
}

function audit(who: TeamActor, businessId: number, meta: RequestMeta) {
  return { businessId, actor: who.actor, outcome: 'succeeded' as const, clientAddress: meta.address, userAgent: meta.userAgent, requestId: meta.requestId };
}

export async function teamMembers(ctx: UseCaseContext, businessId: number): Promise<Member[]> {
  return listMembers(ctx.db, businessId);
}

async function memberOf(db: Executor, businessId: number, userId: string): Promise<Member | undefined> {
  return (await listMembers(db, businessId)).find((member) => member.userId === userId);
}

export async function changeRole(
  ctx: UseCaseContext,
  who: TeamActor,
  businessId: number,
  userId: string,
  role: Role,
  meta: RequestMeta,
): Promise<TeamOutcome<Member>> {
  return ctx.db.transaction(async (tx) => {
    await lockBusiness(tx, businessId);
    const target = await memberOf(tx, businessId, userId);
    if (!target) return { kind: 'not_found' };
    if ((role === 'owner' || target.role === 'owner') && role !== target.role && !(await actsAsOwner(tx, who, businessId)))
      return { kind: 'refused', field: 'role', message: ONLY_OWNERS };
    if (target.role === 'owner' && role !== 'owner' && (await countOwners(tx, businessId)) <= 1) return { kind: 'refused', field: 'role', message: LAST_OWNER };
    if (role !== target.role) {
      await setRole(tx, businessId, userId, role);
      await deleteSessionsOf(tx, userId);
      await recordAuditEvent(tx, { ...audit(who, businessId, meta), action: 'team.member_role_changed', targetIds: [userId] });
    }
    return { kind: 'done', value: { ...target, role } };
  });
}

export async function removeMember(ctx: UseCaseContext, who: TeamActor, businessId: number, userId: string, meta: RequestMeta): Promise<TeamOutcome<Member>> {
  return ctx.db.transaction(async (tx) => {
    await lockBusiness(tx, businessId);
    const target = await memberOf(tx, businessId, userId);
    if (!target) return { kind: 'not_found' };
    if (target.role === 'owner' && !(await actsAsOwner(tx, who, businessId))) return { kind: 'refused', field: 'user_id', message: ONLY_OWNERS };
    if (target.role === 'owner' && (await countOwners(tx, businessId)) <= 1) return { kind: 'refused', field: 'user_id', message: LAST_OWNER };
    await deleteMembership(tx, businessId, userId);
    await deleteSessionsOf(tx, userId);
    await recordAuditEvent(tx, { ...audit(who, businessId, meta), action: 'team.member_removed', targetIds: [userId] });
    return { kind: 'done', value: target };
  });
}

/** The address of the console's page where a link's holder sets their name and password. */
export function accountLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${CONSOLE_SETUP_PATH}?token=${token}`;
}

export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

export async function invite(
  ctx: UseCaseContext,
  who: TeamActor,
  businessId: number,
  invitation: { email: string; role: Role },
  meta: RequestMeta,
): Promise<TeamOutcome<AccountLink>> {
  const outcome = await ctx.db.transaction(async (tx): Promise<TeamOutcome<AccountLink>> => {
    if (invitation.role === 'owner' && !(await actsAsOwner(tx, who, businessId))) return { kind: 'refused', field: 'role', message: ONLY_OWNERS };
    const token = newLinkToken();
    const link = await insertAccountLink(tx, {
      token,
      purpose: 'invitation',
      businessId,
      email: invitation.email,
      role: invitation.role,
      invitedBy: who.signedIn?.userId ?? null,
      expiresAt: new Date(Date.now() + INVITATION_VALID_MS),
    });
    const business = (await findBusinessName(tx, businessId)) ?? 'A business';
    await notifyInvitation(tx, businessId, { to: link.email, business, role: link.role, url: accountLinkUrl(ctx.publicUrl, token), expiresAt: link.expiresAt });
    await recordAuditEvent(tx, { ...audit(who, businessId, meta), action: 'team.invitation_created', targetIds: [link.id] });
    return { kind: 'done', value: link };
  });
  if (outcome.kind === 'done') ctx.outbox.nudge();
  return outcome;
}

export async function openInvitations(ctx: UseCaseContext, businessId: number): Promise<AccountLink[]> {
  return listOpenInvitations(ctx.db, businessId, new Date());
}

export async function revokeInvitation(
  ctx: UseCaseContext,
  who: TeamActor,
  businessId: number,
  id: string,
  meta: RequestMeta,
): Promise<TeamOutcome<AccountLink>> {
  return ctx.db.transaction(async (tx) => {
    const open = (await listOpenInvitations(tx, businessId, new Date())).find((link) => link.id === id);
    if (!open || !(await revokeLink(tx, id, businessId))) return { kind: 'not_found' };
    await recordAuditEvent(tx, { ...audit(who, businessId, meta), action: 'team.invitation_revoked', targetIds: [id] });
    return { kind: 'done', value: open };
  });
}

export async function requireTwoFactor(ctx: UseCaseContext, who: TeamActor, businessId: number, required: boolean, meta: RequestMeta): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await setRequireTwoFactor(tx, businessId, required);
    await recordAuditEvent(tx, { ...audit(who, businessId, meta), action: 'team.two_factor_requirement_changed', targetIds: [] });
  });
}

export { findUsableLink };
export type { AccountLink, Member };
