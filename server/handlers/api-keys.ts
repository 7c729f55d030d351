// The API-key operations: a business's own keys, made (the secret shown once), listed and revoked.
import type { components } from '../../generated/openapi.js';
import type { SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { createApiKey, listApiKeys, MAX_LIVE_KEYS_PER_BUSINESS, revokeApiKey, type ApiKeyRecord } from '../usecases/merchant/api-keys.js';
import { expiresAtRule } from '../domain/rules.js';
import { ok } from './envelope.js';

type ApiKey = components['schemas']['ApiKey'];

function presentApiKey(record: ApiKeyRecord): ApiKey {
  return { ...record };
}

export const apiKeyHandlers = {
  createApiKey: {
    rules: [expiresAtRule],
    async handle({ body, business, caller }, ctx, respond) {
      const result = await createApiKey(ctx, business.id, caller!, {
        name: body.name,
        permissions: body.permissions ?? null,
        expiresAt: body.expires_at ? new Date(body.expires_at).toISOString() : null,
      });
      if (result.outcome === 'invalid') return respond.with422({ message: 'The given data was invalid.', errors: result.errors });
      if (result.outcome === 'full')
        return respond.with409({ message: `A business has at most ${MAX_LIVE_KEYS_PER_BUSINESS} live API keys. Revoke one first.` });
      return respond.with200(ok({ ...presentApiKey(result.record), secret: result.key }));
    },
  },
  listApiKeys: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok((await listApiKeys(ctx, business.id)).map(presentApiKey)));
    },
  },
  revokeApiKey: {
    async handle({ path, business, caller }, ctx, respond) {
      const result = await revokeApiKey(ctx, business.id, caller!, path.api_key_id);
      if (result.outcome === 'not_found') return respond.with404({ message: 'API key not found.' });
      if (result.outcome === 'too_powerful')
        return respond.with403({
          message: `This key or role may not revoke a key holding permissions it lacks: ${result.lacking.join(', ')}.`,
          required_permission: result.lacking[0],
        });
      return respond.with200(ok(presentApiKey(result.record)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
