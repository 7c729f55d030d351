// The business's redirect signing key: read it (made on first use), or rotate it.
import type { components } from '../../generated/openapi.js';
import type { SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { redirectSigningKeys, rotateRedirectKey, type RedirectSigningKeys } from '../usecases/merchant/redirect-signing.js';
import { ok } from './envelope.js';

function present(keys: RedirectSigningKeys): components['schemas']['RedirectSigningKey'] {
  return { key: keys.key, previous_key_expires_at: keys.previousKeyExpiresAt, created_at: keys.createdAt, updated_at: keys.updatedAt };
}

export const redirectSigningKeyHandlers = {
  getRedirectSigningKey: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok(present(await redirectSigningKeys(ctx, business.id))));
    },
  },
  rotateRedirectSigningKey: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok(present(await rotateRedirectKey(ctx, business.id))));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
