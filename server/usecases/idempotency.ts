// Runs a write under an Idempotency-Key (Stripe's semantics): reserve the key, run the request,
// keep its reply. Requests that fail validation never get here, so, as with Stripe, they keep nothing.
import { createHash } from 'node:crypto';
import { reserveKey, saveResponse } from '../store/idempotency.js';
import type { UseCaseContext } from './context.js';

export interface KeptReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface IdempotentRequest {
  businessId: number;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

export type IdempotentOutcome =
  | { kind: 'ran'; reply: KeptReply }
  /** The reply kept for an earlier request with this key. */
  | { kind: 'replay'; reply: KeptReply }
  /** The key was used with another request. */
  | { kind: 'mismatch' }
  /** The first request with the key is still running. */
  | { kind: 'in_flight' };

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

/**
 * `work` runs with a context whose executor is a transaction that also keeps its reply: a crash
 * between two commits would leave the record written and the key in flight, and a later retry
 * would write it twice. `answerFor` turns a failure of `work` into the reply its retries get.
 */
export async function runIdempotent(
  ctx: UseCaseContext,
  request: IdempotentRequest,
  work: (ctx: UseCaseContext) => Promise<KeptReply>,
  answerFor: (error: unknown) => KeptReply,
): Promise<IdempotentOutcome> {
  const reservation = await reserveKey(ctx.db, request.businessId, request.key, requestHash(request.method, request.path, request.body));
  switch (reservation.kind) {
    case 'replay':
      return { kind: 'replay', reply: { status: reservation.status, body: reservation.body } };
    case 'mismatch':
    case 'in_flight':
      return { kind: reservation.kind };
  }
  try {
    const reply = await ctx.db.transaction(async (tx) => {
      const answer = await work({ ...ctx, db: tx });
      await saveResponse(tx, reservation.id, answer.status, answer.body);
      return answer;
    });
    // Whatever the work enqueued is committed only now.
    ctx.outbox.nudge();
    return { kind: 'ran', reply };
  } catch (error) {
    // What the first attempt answered, error or not, is what its retries get (Stripe keeps 500s too).
    const answer = answerFor(error);
    await saveResponse(ctx.db, reservation.id, answer.status, answer.body);
    throw error;
  }
}
