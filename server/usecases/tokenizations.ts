// Tokens: a record a payer activates by saving a card on its activation page.
import { isId } from '../domain/ids.js';
import { findToken, insertToken, type TokenFields, type TokenRecord } from '../store/tokens.js';
import type { UseCaseContext } from './context.js';

export type { TokenFields, TokenRecord };

export async function createToken(ctx: UseCaseContext, businessId: number, fields: TokenFields): Promise<TokenRecord> {
  return insertToken(ctx.db, businessId, fields);
}

export async function getToken(ctx: UseCaseContext, businessId: number, id: string): Promise<TokenRecord | undefined> {
  return isId(id) ? findToken(ctx.db, businessId, id) : undefined;
}
