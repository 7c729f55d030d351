// Runs a write under an Idempotency-Key: reserve the key, run the operation, store its response.
// Requests that fail validation never reach here, so, as with Stripe, they store nothing.
import { createHash } from 'node:crypto';
import type { Db, Executor } from '../store/db.js';
import { reserveKey, saveResponse } from '../store/idempotency.js';
import { ConflictError, ValidationError, toErrorResponse } from './errors.js';

export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
}

export async function withIdempotency(
  db: Db,
  request: { businessId: number; key: string; method: string; path: string; body: unknown },
  run: (trx: Executor) => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const reservation = await reserveKey(db, request.businessId, request.key, requestHash(request.method, request.path, request.body));
  switch (reservation.kind) {
    case 'replay':
      return { status: reservation.status, body: reservation.body, headers: { 'Idempotent-Replayed': 'true' } };
    case 'mismatch':
      throw new ValidationError({ idempotency_key: ['This idempotency key was already used with a different request.'] });
    case 'in_flight':
      throw new ConflictError('A request with this Idempotency-Key is still being processed. Retry it later.');
  }
  try {
    // The write and the answer kept for its retries commit together: a crash between two commits
    // would leave the record written and the key in flight, and a later retry would write it twice.
    return await db.transaction(async (trx) => {
      const response = await run(trx);
      await saveResponse(trx, reservation.id, response.status, response.body);
      return response;
    });
  } catch (error) {
    // What the first attempt answered, error or not, is what its retries get (Stripe keeps 500s too).
    const answer = toErrorResponse(error);
    await saveResponse(db, reservation.id, answer.status, answer.body);
    throw error;
  }
}
