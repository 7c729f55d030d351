import type { components } from '../../generated/openapi.js';
import { ok } from '../http/envelope.js';
import type { Operations } from '../http/operations.js';
import { isId } from '../domain/ids.js';
import { NotFoundError } from '../http/errors.js';
import { findToken, insertToken, type TokenRecord } from '../store/tokens.js';
import type { HandlerDeps } from './deps.js';

type Token = components['schemas']['Token'];

export function activationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/tokenization/activation/${token}`;
}

export function tokenizationOperations({ db, publicUrl }: HandlerDeps) {
  const present = (record: TokenRecord): Token => ({
    _id: record._id,
    email: record.email,
    phone_no: record.phone_no,
    redirect_url: record.redirect_url,
    title: record.title,
    description: record.description,
    token: record.token,
    activation_url: activationUrl(publicUrl, record.token),
    status: record.status,
    card: record.card && { brand: record.card.brand as NonNullable<Token['card']>['brand'], last4: record.card.last4, exp_month: record.card.exp_month, exp_year: record.card.exp_year },
    created_at: record.created_at,
    updated_at: record.updated_at,
  });

  return {
    createToken: {
      async handle({ body, business, db }) {
        const record = await insertToken(db, business.id, {
          email: body.email,
          phone_no: body.phone_no ?? null,
          redirect_url: body.redirect_url ?? null,
          title: body.title,
          description: body.description,
        });
        return ok(present(record));
      },
    },
    getToken: {
      async handle({ path, business }) {
        const record = isId(path.token_id) ? await findToken(db, business.id, path.token_id) : undefined;
        if (!record) throw new NotFoundError('Token not found.');
        return ok(present(record));
      },
    },
  } satisfies Operations;
}
