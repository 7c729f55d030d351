// The business's team: members and their roles, invitations, and whether two-factor sign-in is
// required. Owner-level acts (making, unmaking, inviting or removing an owner; the two-factor
// requirement) are decided by the role of the member signed in: never by a key, whatever it holds
// (the gate refuses keys on these operations; this is the same rule again, where it is decided). A
// business always keeps an owner; both rules are decided under the business's lock, so two requests
// cannot each remove one of two owners. A member whose role changes or who is removed loses their
// sessions, and removal revokes the keys they made. An invitation goes to someone not yet a member,
// one open invitation per address (a new one replaces it), within a daily quota per business.
import { randomBytes } from 'node:crypto';
import type { Actor, SignedIn } from '../../domain/actors.js';
import { CONSOLE_SETUP_PATH } from '../../domain/sessions.js';
import type { Role } from '../../domain/permissions.js';
import { findUsableLink, insertAccountLink, listOpenInvitations, revokeLink, type AccountLink } from '../../store/account-links.js';
import { revokeKeysOfMember } from '../../store/api-keys.js';
import { recordAuditEvent, type AuditDetails } from '../../store/audit-events.js';
import { findBusinessName, lockBusiness } from '../../store/businesses.js';
import type { Executor } from '../../store/executor.js';
import { DEFAULT_INVITATIONS_PER_DAY, countInvitation } from '../../store/invitation-counts.js';
import { deleteSessionsOf } from '../../store/user-sessions.js';
import {
  countOwners,
  deleteMembership,
  emailKey,
  findUser,
  listMembers,
  membershipIn,
  requiresTwoFactor,
  setRequireTwoFactor,
  setRole,
  type Member,
} from '../../store/users.js';
import type { UseCaseContext } from '../platform/context.js';
import type { RequestMeta } from './auth-context.js';
import { notifyInvitation } from '../platform/notify.js';

export const INVITATION_VALID_MS = 72 * 3_600_000;

/** Who acts on the team: a member (by their session) or, refused by every owner-level rule, an API key. */
export interface TeamActor {
  actor: Actor;
  signedIn?: SignedIn;
}

export type TeamOutcome<T> = { kind: 'done'; value: T } | { kind: 'not_found' } | { kind: 'refused'; field: string; message: string };

const ONLY_OWNERS = 'Only an owner can make, invite or remove an owner.';
const ONLY_OWNERS_TWO_FACTOR = 'Only an owner can change whether the business requires two-factor sign-in.';
const LAST_OWNER = 'A business must keep at least one owner.';
const ALREADY_A_MEMBER = 'This person is already a member of the business: change their role instead.';

/** Whether the person behind the request is, now, an owner of the business. A key never is. */
async function actsAsOwner(db: Executor, who: TeamActor, businessId: number): Promise<boolean> {
  if (!who.signedIn) return false;
  return (await membershipIn(db, who.signedIn.userId, businessId))?.role === 'owner';
}

function audit(who: TeamActor, businessId: number, meta: RequestMeta, details: AuditDetails) {
  return {
    businessId,
    actor: who.actor,
    outcome: 'succeeded' as const,
    clientAddress: meta.address,
    userAgent: meta.userAgent,
    requestId: meta.requestId,
    details,
  };
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
  const outcome = await ctx.db.transaction(async (tx): Promise<TeamOutcome<Member>> => {
    await lockBusiness(tx, businessId);
    const target = await memberOf(tx, businessId, userId);
    if (!target) return { kind: 'not_found' };
    if ((role === 'owner' || target.role === 'owner') && role !== target.role && !(await actsAsOwner(tx, who, businessId)))
      return { kind: 'refused', field: 'role', message: ONLY_OWNERS };
    if (target.role === 'owner' && role !== 'owner' && (await countOwners(tx, businessId)) <= 1) return { kind: 'refused', field: 'role', message: LAST_OWNER };
    if (role !== target.role) {
      await setRole(tx, businessId, userId, role);
      await deleteSessionsOf(tx, userId);
      await recordAuditEvent(tx, {
        ...audit(who, businessId, meta, { email: target.email, old_role: target.role, new_role: role }),
        action: 'team.member_role_changed',
        targetIds: [userId],
      });
    }
    return { kind: 'done', value: { ...target, role } };
  });
  // The member's keys hold at most what their role holds: what they may do has changed.
  if (outcome.kind === 'done') ctx.apiKeys?.changed();
  return outcome;
}

/** A member removed, with the keys they made (revoked with them). */
export interface RemovedMember {
  member: Member;
  revokedApiKeyIds: string[];
}

export async function removeMember(
  ctx: UseCaseContext,
  who: TeamActor,
  businessId: number,
  userId: string,
  meta: RequestMeta,
): Promise<TeamOutcome<RemovedMember>> {
  const outcome = await ctx.db.transaction(async (tx): Promise<TeamOutcome<RemovedMember>> => {
    await lockBusiness(tx, businessId);
    const target = await memberOf(tx, businessId, userId);
    if (!target) return { kind: 'not_found' };
    if (target.role === 'owner' && !(await actsAsOwner(tx, who, businessId))) return { kind: 'refused', field: 'user_id', message: ONLY_OWNERS };
    if (target.role === 'owner' && (await countOwners(tx, businessId)) <= 1) return { kind: 'refused', field: 'user_id', message: LAST_OWNER };
    await deleteMembership(tx, businessId, userId);
    await deleteSessionsOf(tx, userId);
    const revokedApiKeyIds = await revokeKeysOfMember(tx, businessId, userId);
    await recordAuditEvent(tx, {
      ...audit(who, businessId, meta, { email: target.email, old_role: target.role, revoked_api_key_ids: revokedApiKeyIds }),
      action: 'team.member_removed',
      targetIds: [userId, ...revokedApiKeyIds],
    });
    return { kind: 'done', value: { member: target, revokedApiKeyIds } };
  });
  if (outcome.kind === 'done') ctx.apiKeys?.changed();
  return outcome;
}

/** The address of the console's page where a link's holder sets their name and password. */
export function accountLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${CONSOLE_SETUP_PATH}?token=${token}`;
}

export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

function nextUtcMidnight(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

export async function invite(
  ctx: UseCaseContext,
  who: TeamActor,
  businessId: number,
  invitation: { email: string; role: Role },
  meta: RequestMeta,
  now = new Date(),
): Promise<TeamOutcome<AccountLink & { url: string }>> {
  const outcome = await ctx.db.transaction(async (tx): Promise<TeamOutcome<AccountLink & { url: string }>> => {
    // Under the lock, two invitations to one address at once leave one open.
    await lockBusiness(tx, businessId);
    if (invitation.role === 'owner' && !(await actsAsOwner(tx, who, businessId))) return { kind: 'refused', field: 'role', message: ONLY_OWNERS };
    const address = emailKey(invitation.email);
    if ((await listMembers(tx, businessId)).some((member) => emailKey(member.email) === address))
      return { kind: 'refused', field: 'email', message: ALREADY_A_MEMBER };
    const limit = ctx.invitationsPerDay ?? DEFAULT_INVITATIONS_PER_DAY;
    if (!(await countInvitation(tx, businessId, now.toISOString().slice(0, 10), limit)))
      return {
        kind: 'refused',
        field: 'email',
        message: `The business has sent its ${limit} invitations of the day; it can send more from ${nextUtcMidnight(now)} (UTC midnight). Nothing was sent.`,
      };
    // One open invitation per address: a new one replaces the last (its link stops working).
    const replaced = (await listOpenInvitations(tx, businessId, now)).filter((open) => emailKey(open.email) === address);
    for (const open of replaced) await revokeLink(tx, open.id, businessId);
    const token = newLinkToken();
    const link = await insertAccountLink(tx, {
      token,
      purpose: 'invitation',
      businessId,
      email: invitation.email,
      role: invitation.role,
      invitedBy: who.signedIn?.userId ?? null,
      expiresAt: new Date(now.getTime() + INVITATION_VALID_MS),
    });
    const business = (await findBusinessName(tx, businessId)) ?? 'A business';
    const url = accountLinkUrl(ctx.publicUrl, token);
    await notifyInvitation(tx, businessId, { to: link.email, business, role: link.role, url, expiresAt: link.expiresAt });
    await recordAuditEvent(tx, {
      ...audit(who, businessId, meta, { email: link.email, role: link.role, replaced_invitation_ids: replaced.map((open) => open.id) }),
      action: 'team.invitation_created',
      targetIds: [link.id],
    });
    return { kind: 'done', value: { ...link, url } };
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
    await recordAuditEvent(tx, { ...audit(who, businessId, meta, { email: open.email, role: open.role }), action: 'team.invitation_revoked', targetIds: [id] });
    return { kind: 'done', value: open };
  });
}

/** Whether every member must sign in with two-factor: the owner's to decide. */
export async function requireTwoFactor(
  ctx: UseCaseContext,
  who: TeamActor,
  businessId: number,
  required: boolean,
  meta: RequestMeta,
): Promise<TeamOutcome<{ required: boolean }>> {
  const outcome = await ctx.db.transaction(async (tx): Promise<TeamOutcome<{ required: boolean }>> => {
    await lockBusiness(tx, businessId);
    if (!(await actsAsOwner(tx, who, businessId))) return { kind: 'refused', field: 'require_two_factor', message: ONLY_OWNERS_TWO_FACTOR };
    // Else the owner would lock themselves out of the very setting that lets them undo it.
    if (required && !(await findUser(tx, who.signedIn!.userId))?.totpEnabledAt)
      return { kind: 'refused', field: 'require_two_factor', message: 'Turn on two-factor sign-in for yourself before requiring it of every member.' };
    const before = await requiresTwoFactor(tx, businessId);
    await setRequireTwoFactor(tx, businessId, required);
    await recordAuditEvent(tx, {
      ...audit(who, businessId, meta, { setting: 'require_two_factor', old_value: before, new_value: required }),
      action: 'team.two_factor_requirement_changed',
      targetIds: [],
    });
    return { kind: 'done', value: { required } };
  });
  // Members' keys hold nothing while the rule is not met by their maker: what they may do has changed.
  if (outcome.kind === 'done') ctx.apiKeys?.changed();
  return outcome;
}

export { findUsableLink };
export type { AccountLink, Member };
