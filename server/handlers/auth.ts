// Members' sign-in, sessions, password and two-factor: each parses, calls one use case, and answers,
// setting the session cookie where the session is made or gets a new id.
import type { components } from '../../generated/openapi.js';
import type { SignedIn } from '../domain/actors.js';
import { clearedSessionCookie, sessionCookie } from '../domain/sessions.js';
import type { OperationRequest, OperationId, SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import {
  DEFAULT_SESSION_SETTINGS,
  endSession,
  login,
  logout,
  sessionsOf,
  switchBusiness,
  whoAmI,
  type Me,
  type RequestMeta,
} from '../usecases/members/auth.js';
import { ACCOUNT_LINK_GONE, completeAccountLink, describeAccountLink } from '../usecases/members/accounts.js';
import { changePassword } from '../usecases/members/passwords.js';
import { confirmTotp, disableTotp, offerTotp, regenerateRecoveryCodes, type TotpOutcome } from '../usecases/members/two-factor.js';
import { ok } from './envelope.js';

const UNAUTHENTICATED = { message: 'Unauthenticated.' };
const REFUSED = { message: 'These credentials do not match our records.' };
const LINK_GONE = { message: ACCOUNT_LINK_GONE };
/** A check of the member's password or codes past the limits on attempts (server/rate-limits/secret-attempts.ts). */
const TOO_MANY_ATTEMPTS = { message: "Too many failed attempts at this account's password or codes. Try again later." };
const retryAfter = (seconds: number) => ({ 'Retry-After': String(seconds) });

/** The statuses an operation that asks for the two-factor proof (password and a code) refuses it with. */
interface ProofRefusals<R409, R422, R429> {
  with409(body: { message: string }): R409;
  with422(body: ReturnType<typeof fieldError>): R422;
  with429(body: { message: string }, headers: Record<string, string>): R429;
}

/** Why a two-factor proof was refused, in the words `disableTotp` and `regenerateRecoveryCodes` share. */
function refusedProof<R409, R422, R429>(
  outcome: Exclude<TotpOutcome<unknown>, { kind: 'done' }>,
  respond: ProofRefusals<R409, R422, R429>,
): R409 | R422 | R429 {
  switch (outcome.kind) {
    case 'wrong_password':
      return respond.with422(fieldError('password', 'The password is incorrect.'));
    case 'invalid_code':
      return respond.with422(fieldError('totp_code', 'The code is invalid.'));
    case 'throttled':
      return respond.with429(TOO_MANY_ATTEMPTS, retryAfter(outcome.retryAfter));
    default:
      return respond.with409({ message: 'Two-factor sign-in is not on.' });
  }
}

export function metaOf(request: OperationRequest<OperationId>): RequestMeta {
  return { address: request.client.address, userAgent: request.client.userAgent?.slice(0, 512) ?? null, requestId: request.client.requestId };
}

/** The member behind the request's session; undefined for a key (these operations are a member's own). */
function signedIn(request: OperationRequest<OperationId>): { me: SignedIn; token: string } | undefined {
  const me = request.caller?.signedIn;
  const token = request.client.sessionToken;
  return me && token ? { me, token } : undefined;
}

function cookieFor(ctx: UseCaseContext, token: string): Record<string, string> {
  const lifetimeMs = (ctx.auth?.sessions ?? DEFAULT_SESSION_SETTINGS).lifetimeMs;
  return { 'Set-Cookie': sessionCookie(token, { secure: ctx.publicUrl.startsWith('https:'), maxAgeSeconds: Math.floor(lifetimeMs / 1000) }) };
}

export function presentMe(me: Me, ctx: UseCaseContext): components['schemas']['Me'] {
  return {
    user: { _id: me.user.id, email: me.user.email, name: me.user.name, two_factor_enabled: me.user.twoFactor, recovery_codes_left: me.user.recoveryCodesLeft },
    business: { business_id: me.business.id, name: me.business.name },
    role: me.role,
    permissions: me.permissions,
    memberships: me.memberships.map((m) => ({
      business_id: m.businessId,
      business_name: m.businessName,
      role: m.role,
      require_two_factor: m.requireTwoFactor,
    })),
    two_factor_setup_required: me.twoFactorSetupRequired,
    mail_folder: ctx.mailFolder ?? null,
    session_id: me.sessionId,
    csrf_token: me.csrfToken,
  };
}

function fieldError(field: string, message: string) {
  return { message: 'The given data was invalid.' as const, errors: { [field]: [message] } };
}

export const authHandlers = {
  login: {
    async handle(request, ctx, respond) {
      const { body } = request;
      const outcome = await login(
        ctx,
        { email: body.email, password: body.password, totpCode: body.totp_code, recoveryCode: body.recovery_code, previousToken: request.client.sessionToken },
        metaOf(request),
      );
      switch (outcome.kind) {
        case 'signed_in':
          return respond.with200(ok(presentMe(outcome.me, ctx)), cookieFor(ctx, outcome.token));
        case 'refused':
          return respond.with401(REFUSED);
        case 'two_factor_required':
          return respond.with401({ message: 'A two-factor code is required.', two_factor_required: true });
        case 'two_factor_invalid':
          return respond.with401({ message: 'The two-factor code is invalid.', two_factor_required: true });
        case 'throttled':
          return respond.with429({ message: 'Too many failed sign-ins. Try again later.' }, retryAfter(outcome.retryAfter));
      }
    },
  },
  logout: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      await logout(ctx, session.me, metaOf(request));
      return respond.with200(ok({ signed_out: true as const }), { 'Set-Cookie': clearedSessionCookie(ctx.publicUrl.startsWith('https:')) });
    },
  },
  getMe: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      return respond.with200(ok(presentMe(await whoAmI(ctx, session.me, session.token), ctx)));
    },
  },
  switchBusiness: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      const switched = await switchBusiness(ctx, session.me, request.body.business_id, metaOf(request));
      if (!switched) return respond.with404({ message: 'You are not a member of that business.' });
      return respond.with200(ok(presentMe(switched.me, ctx)), cookieFor(ctx, switched.token));
    },
  },
  listSessions: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      const sessions = await sessionsOf(ctx, session.me);
      return respond.with200(
        ok(
          sessions.map((s) => ({
            _id: s.id,
            current: s.id === session.me.sessionId,
            created_at: s.createdAt,
            last_seen_at: s.lastSeenAt,
            expires_at: s.expiresAt,
            client_address: s.clientAddress,
            user_agent: s.userAgent,
          })),
        ),
      );
    },
  },
  deleteSession: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      if (!(await endSession(ctx, session.me, request.path.session_id, metaOf(request)))) return respond.with404({ message: 'Session not found.' });
      return respond.with200(ok({ _id: request.path.session_id, ended: true as const }));
    },
  },
  changePassword: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      const outcome = await changePassword(ctx, session.me, request.body.current_password, request.body.password, metaOf(request));
      switch (outcome.kind) {
        case 'wrong_password':
          return respond.with422(fieldError('current_password', 'The password is incorrect.'));
        case 'weak':
          return respond.with422(fieldError('password', outcome.message));
        case 'throttled':
          return respond.with429(TOO_MANY_ATTEMPTS, retryAfter(outcome.retryAfter));
        case 'changed':
          return respond.with200(
            ok({ password_changed: true as const, other_sessions_ended: outcome.otherSessionsEnded }),
            cookieFor(ctx, outcome.sessionToken),
          );
      }
    },
  },
  openAccountLink: {
    async handle(request, ctx, respond) {
      const described = await describeAccountLink(ctx, request.body.token);
      if (!described) return respond.with410(LINK_GONE);
      const { link } = described;
      return respond.with200(
        ok({
          purpose: link.purpose,
          role: link.role,
          email: link.email || null,
          business_name: described.businessName,
          existing_account: described.existingAccount,
          expires_at: link.expiresAt,
        }),
      );
    },
  },
  acceptAccountLink: {
    async handle(request, ctx, respond) {
      const { body } = request;
      const outcome = await completeAccountLink(
        ctx,
        body.token,
        { name: body.name ?? '', password: body.password, confirmation: body.password_confirmation ?? '', email: body.email ?? '' },
        metaOf(request),
      );
      switch (outcome.kind) {
        case 'gone':
          return respond.with410(LINK_GONE);
        case 'throttled':
          return respond.with429(TOO_MANY_ATTEMPTS, retryAfter(outcome.retryAfter));
        case 'invalid':
          return respond.with422({
            message: 'The given data was invalid.',
            errors: Object.fromEntries(Object.entries(outcome.errors).map(([field, message]) => [field, [message]])),
          });
        case 'done':
          return respond.with200(ok({ email: outcome.email, business_id: outcome.businessId, role: outcome.role }));
      }
    },
  },
  startTotp: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      const outcome = await offerTotp(ctx, session.me);
      if (outcome.kind !== 'done') return respond.with409({ message: 'Two-factor sign-in is already on.' });
      return respond.with200(ok({ secret: outcome.value.secret, otpauth_uri: outcome.value.uri, qr_svg: outcome.value.qrSvg }));
    },
  },
  confirmTotp: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      const outcome = await confirmTotp(ctx, session.me, request.body.code, metaOf(request));
      switch (outcome.kind) {
        case 'done':
          return respond.with200(
            ok({ two_factor_enabled: true as const, recovery_codes: outcome.value.recoveryCodes }),
            cookieFor(ctx, outcome.value.sessionToken),
          );
        case 'invalid_code':
          return respond.with422(fieldError('code', 'The code is invalid.'));
        case 'throttled':
          return respond.with429(TOO_MANY_ATTEMPTS, retryAfter(outcome.retryAfter));
        default:
          return respond.with409({ message: outcome.kind === 'already_enabled' ? 'Two-factor sign-in is already on.' : 'Set up two-factor sign-in first.' });
      }
    },
  },
  disableTotp: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      const { password, totp_code: totpCode, recovery_code: recoveryCode } = request.body;
      const outcome = await disableTotp(ctx, session.me, { password, totpCode, recoveryCode }, metaOf(request));
      if (outcome.kind !== 'done') return refusedProof(outcome, respond);
      return respond.with200(ok({ two_factor_enabled: false }), cookieFor(ctx, outcome.value.sessionToken));
    },
  },
  regenerateRecoveryCodes: {
    async handle(request, ctx, respond) {
      const session = signedIn(request);
      if (!session) return respond.with401(UNAUTHENTICATED);
      const { password, totp_code: totpCode, recovery_code: recoveryCode } = request.body;
      const outcome = await regenerateRecoveryCodes(ctx, session.me, { password, totpCode, recoveryCode }, metaOf(request));
      if (outcome.kind !== 'done') return refusedProof(outcome, respond);
      return respond.with200(ok({ two_factor_enabled: true as const, recovery_codes: outcome.value.recoveryCodes }));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
