// Password resets by e-mail: asking for a link (answered alike for every e-mail), reading one, and
// choosing the new password through it. Each parses, calls one use case, and answers.
import type { SomeHandlers } from '../http/operations.js';
import { ACCOUNT_LINK_GONE } from '../usecases/members/accounts.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { completePasswordReset, openPasswordReset, requestPasswordReset } from '../usecases/members/passwords.js';
import { metaOf } from './auth.js';
import { ok } from './envelope.js';

const LINK_GONE = { message: ACCOUNT_LINK_GONE };

export const passwordResetHandlers = {
  requestPasswordReset: {
    async handle(request, ctx, respond) {
      const outcome = await requestPasswordReset(ctx, request.body.email, metaOf(request));
      if (outcome.kind === 'throttled')
        return respond.with429({ message: 'Too many password resets were asked for. Try again later.' }, { 'Retry-After': String(outcome.retryAfter) });
      return respond.with202(ok({ requested: true as const }));
    },
  },
  openPasswordReset: {
    async handle(request, ctx, respond) {
      const reset = await openPasswordReset(ctx, request.body.token);
      if (!reset) return respond.with410(LINK_GONE);
      return respond.with200(ok({ email: reset.email, expires_at: reset.expiresAt }));
    },
  },
  completePasswordReset: {
    async handle(request, ctx, respond) {
      const { token, password, password_confirmation: confirmation } = request.body;
      const outcome = await completePasswordReset(ctx, token, { password, confirmation }, metaOf(request));
      switch (outcome.kind) {
        case 'gone':
          return respond.with410(LINK_GONE);
        case 'invalid':
          return respond.with422({
            message: 'The given data was invalid.',
            errors: Object.fromEntries(Object.entries(outcome.errors).map(([field, message]) => [field, [message]])),
          });
        case 'done':
          return respond.with200(ok({ email: outcome.email, sessions_ended: outcome.sessionsEnded }));
      }
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
