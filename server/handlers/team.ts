// The business's team: members and roles, invitations, the two-factor requirement.
import type { components } from '../../generated/openapi.js';
import type { OperationRequest, OperationId, SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import {
  changeRole,
  invite,
  openInvitations,
  removeMember,
  requireTwoFactor,
  revokeInvitation,
  teamMembers,
  type AccountLink,
  type Member,
  type TeamActor,
} from '../usecases/members/team.js';
import { metaOf } from './auth.js';
import { ok } from './envelope.js';

function who(request: OperationRequest<OperationId>): TeamActor {
  return { actor: request.caller?.actor ?? { kind: 'anonymous' }, signedIn: request.caller?.signedIn };
}

function presentMember(member: Member): components['schemas']['Member'] {
  return {
    user_id: member.userId,
    email: member.email,
    name: member.name,
    role: member.role,
    two_factor_enabled: member.twoFactor,
    joined_at: member.joinedAt,
  };
}

function presentInvitation(link: AccountLink): components['schemas']['Invitation'] {
  return { _id: link.id, email: link.email, role: link.role, invited_by: link.invitedBy, created_at: link.createdAt, expires_at: link.expiresAt };
}

const refused = (field: string, message: string) => ({ message: 'The given data was invalid.' as const, errors: { [field]: [message] } });
const NOT_FOUND = { message: 'Not found.' };

export const teamHandlers = {
  listTeamMembers: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok((await teamMembers(ctx, business.id)).map(presentMember)));
    },
  },
  updateTeamMember: {
    async handle(request, ctx, respond) {
      const outcome = await changeRole(ctx, who(request), request.business.id, request.path.user_id, request.body.role, metaOf(request));
      if (outcome.kind === 'not_found') return respond.with404(NOT_FOUND);
      if (outcome.kind === 'refused') return respond.with422(refused(outcome.field, outcome.message));
      return respond.with200(ok(presentMember(outcome.value)));
    },
  },
  removeTeamMember: {
    async handle(request, ctx, respond) {
      const outcome = await removeMember(ctx, who(request), request.business.id, request.path.user_id, metaOf(request));
      if (outcome.kind === 'not_found') return respond.with404(NOT_FOUND);
      if (outcome.kind === 'refused') return respond.with422(refused(outcome.field, outcome.message));
      return respond.with200(ok({ ...presentMember(outcome.value.member), revoked_api_key_ids: outcome.value.revokedApiKeyIds }));
    },
  },
  listTeamInvitations: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok((await openInvitations(ctx, business.id)).map(presentInvitation)));
    },
  },
  createTeamInvitation: {
    async handle(request, ctx, respond) {
      const outcome = await invite(ctx, who(request), request.business.id, { email: request.body.email, role: request.body.role }, metaOf(request));
      if (outcome.kind === 'refused') return respond.with422(refused(outcome.field, outcome.message));
      if (outcome.kind === 'not_found') throw new Error('an invitation has no record to miss');
      // Without SMTP the e-mail is a file on the server: the inviter is the one who can pass the link on.
      return respond.with200(ok({ ...presentInvitation(outcome.value), ...(ctx.mailFolder !== undefined && { url: outcome.value.url }) }));
    },
  },
  revokeTeamInvitation: {
    async handle(request, ctx, respond) {
      const outcome = await revokeInvitation(ctx, who(request), request.business.id, request.path.invitation_id, metaOf(request));
      if (outcome.kind !== 'done') return respond.with404(NOT_FOUND);
      return respond.with200(ok(presentInvitation(outcome.value)));
    },
  },
  updateTeamSettings: {
    async handle(request, ctx, respond) {
      const outcome = await requireTwoFactor(ctx, who(request), request.business.id, request.body.require_two_factor, metaOf(request));
      if (outcome.kind === 'refused') return respond.with422(refused(outcome.field, outcome.message));
      if (outcome.kind === 'not_found') throw new Error('a business has its settings');
      return respond.with200(ok({ require_two_factor: outcome.value.required }));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
