// Runs a write under an Idempotency-Key (Stripe's semantics): reserve the key, run the request,
// keep its reply. Requests that fail validation never get here, so, as with Stripe, they keep nothing.
//
// Most requests run as one transaction that also keeps the reply. An operation that asks an acquirer
// cannot: the call must not hold a transaction open, and a crash during it must leave the pending
// record for the pending sweep rather than roll it back. Those run in atomic phases (Stripe's recovery
// points): each transaction of the use case keeps the answer that is true once it commits, the
// provisional one (pending) first, so a retry replays it instead of running the work again.
import { createHash } from 'node:crypto';
import type { IdempotentOutcome, IdempotentRequest } from '../../domain/idempotent-requests.js';
import type { Executor } from '../../store/executor.js';
import { releaseKey, reserveKey, saveResponse } from '../../store/idempotency.js';
import type { KeepReply, KeptReply, UseCaseContext } from './context.js';

export type { IdempotentOutcome, IdempotentRequest };

/** Keeps, in a phase's transaction, the answer its outcome gives; a use case's side of `KeepReply`. */
export type KeepAnswer<Outcome> = (tx: Executor, outcome: Outcome) => Promise<void>;

/** What a handler passes to a phased use case: its outcomes rendered as replies and kept, when the request has a key. */
export function keepingAnswers<Outcome>(ctx: UseCaseContext, render: (outcome: Outcome) => KeptReply): KeepAnswer<Outcome> | undefined {
  const keep = ctx.keep;
  return keep && ((tx, outcome) => keep(tx, render(outcome)));
}

/**
 * A phased handler's rendering of its outcomes, each outcome rendered once: the reply kept under the key
 * in the phase's transaction is the very reply sent for it, so a retry replays the first answer byte for
 * byte (its `meta.timestamp` too, which a second rendering a moment later could move to the next second).
 * Outcomes are told apart by what they say, not by identity: a use case may keep an outcome and return
 * an equal one built afresh (a spread of the same records).
 */
export function renderedOnce<Outcome extends object, Reply extends KeptReply>(render: (outcome: Outcome) => Reply): (outcome: Outcome) => Reply {
  const rendered = new Map<string, Reply>();
  return (outcome) => {
    const said = JSON.stringify(outcome);
    const reply = rendered.get(said) ?? render(outcome);
    rendered.set(said, reply);
    return reply;
  };
}

/** One phase: its writes and the answer they make true commit in one transaction. */
export async function phase<Outcome>(ctx: UseCaseContext, keep: KeepAnswer<Outcome> | undefined, write: (tx: Executor) => Promise<Outcome>): Promise<Outcome> {
  return ctx.db.transaction(async (tx) => {
    const outcome = await write(tx);
    await keep?.(tx, outcome);
    return outcome;
  });
}

/**
 * A refusal that says when to try again (`Retry-After`, e.g. a daily cap reached) is not kept, as
 * Stripe keeps no 429: the retry it invites, with the same key, runs the request then. The request's
 * transaction is rolled back, so whatever it wrote goes with it.
 */
function saysWhenToRetry(reply: KeptReply): boolean {
  return reply.headers !== undefined && Object.keys(reply.headers).some((name) => name.toLowerCase() === 'retry-after');
}

class NotKept extends Error {
  constructor(readonly reply: KeptReply) {
    super('the reply is not kept under its Idempotency-Key');
  }
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

/**
 * `work` runs with a context whose executor is a transaction that also keeps its reply: a crash
 * between two commits would leave the record written and the key in flight, and a later retry
 * would write it twice. `answerFor` turns a failure of `work` into the reply its retries get.
 * With `atomicPhases`, `work` runs on the database itself and keeps its answers through `ctx.keep`.
 */
export async function runIdempotent(
  ctx: UseCaseContext,
  request: IdempotentRequest,
  work: (ctx: UseCaseContext) => Promise<KeptReply>,
  answerFor: (error: unknown) => KeptReply,
): Promise<IdempotentOutcome> {
  const reservation = await reserveKey(ctx.db, request.businessId, request.key, requestHash(request.method, request.path, request.body), ctx.secretsKey);
  switch (reservation.kind) {
    case 'replay':
      return { kind: 'replay', reply: { status: reservation.status, body: reservation.body } };
    case 'mismatch':
    case 'in_flight':
      return { kind: reservation.kind };
  }
  if (request.atomicPhases) return runInPhases(ctx, reservation.id, work, answerFor);
  try {
    const reply = await ctx.db.transaction(async (tx) => {
      const answer = await work({ ...ctx, db: tx });
      if (saysWhenToRetry(answer)) throw new NotKept(answer);
      await saveResponse(tx, reservation.id, answer.status, answer.body, ctx.secretsKey);
      return answer;
    });
    // Whatever the work enqueued is committed only now.
    ctx.outbox.nudge();
    return { kind: 'ran', reply };
  } catch (error) {
    if (error instanceof NotKept) {
      await releaseKey(ctx.db, reservation.id);
      return { kind: 'ran', reply: error.reply };
    }
    // What the first attempt answered, error or not, is what its retries get (Stripe keeps 500s too).
    const answer = answerFor(error);
    await saveResponse(ctx.db, reservation.id, answer.status, answer.body, ctx.secretsKey);
    throw error;
  }
}

/**
 * What the work answers before its first phase commits (a 404, a 409) is kept as any reply is. Once a
 * phase has kept an answer, that answer stands: it is true of what committed (a pending record the
 * sweep will settle), so a later failure of this request does not replace it, and no retry runs the
 * work again. A phase whose commit failed after keeping leaves nothing behind, nor does a crash before
 * the first commit: the key stays in flight and a retry past ABANDONED_AFTER_MS runs the work afresh.
 */
async function runInPhases(
  ctx: UseCaseContext,
  id: number,
  work: (ctx: UseCaseContext) => Promise<KeptReply>,
  answerFor: (error: unknown) => KeptReply,
): Promise<IdempotentOutcome> {
  let kept = false;
  const keep: KeepReply = async (tx, reply) => {
    await saveResponse(tx, id, reply.status, reply.body, ctx.secretsKey);
    kept = true;
  };
  let reply: KeptReply;
  try {
    reply = await work({ ...ctx, keep });
  } catch (error) {
    if (!kept) {
      const answer = answerFor(error);
      await saveResponse(ctx.db, id, answer.status, answer.body, ctx.secretsKey);
    }
    throw error;
  }
  if (!kept) await saveResponse(ctx.db, id, reply.status, reply.body, ctx.secretsKey);
  return { kind: 'ran', reply };
}
