import { newId, newTokenValue } from '../domain/ids.js';
import type { Executor } from './db.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export type TokenStatus = 'pending' | 'active';

export interface TokenFields {
  email: string;
  phone_no: string | null;
  redirect_url: string | null;
  title: string;
  description: string;
}

export interface TokenRecord extends TokenFields {
  _id: string;
  business_id: number;
  token: string;
  status: TokenStatus;
  created_at: string;
  updated_at: string;
}

export async function insertToken(db: Executor, businessId: number, fields: TokenFields): Promise<TokenRecord> {
  const now = nowIso();
  const row: TokenRecord = { _id: newId(), business_id: businessId, ...fields, token: newTokenValue(), status: 'pending', created_at: now, updated_at: now };
  await db('tokens').insert(row);
  return { ...row, created_at: toIsoMicros(now), updated_at: toIsoMicros(now) };
}
