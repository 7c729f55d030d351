// The one way every write through the API runs: its transaction and its audit entry. The router
// (server/http/routes.ts) drafts the entry and asks for a scope; this module decides what commits
// together. Without an Idempotency-Key the handler's work and its entry commit in one transaction
// opened here; under a key, the idempotency use case's transaction holds them and the reply kept for
// retries; an operation run in atomic phases records the entry in its first phase's transaction,
// through the `keep` each phase calls. Whatever no committed transaction recorded (a refusal, a
// failure that rolled back, a replay) `settle` records on its own, so every write leaves one event.
import { reasonOf } from '../../domain/audit-reasons.js';
import { auditEventExists, outcomeOf, recordAuditEvent, type AuditDetails, type AuditEventInput } from '../../store/audit-events.js';
import type { Executor } from '../../store/executor.js';
import type { KeepReply, KeptReply, UseCaseContext } from './context.js';
import { runIdempotent, type IdempotentOutcome, type IdempotentRequest } from './idempotency.js';

/** A write's audit entry as its request goes (the router's `AuditTrail`). */
export interface WriteTrail {
  draft: Pick<AuditEventInput, 'actor' | 'action' | 'targetIds' | 'clientAddress' | 'userAgent' | 'requestId'> & { businessId: number };
  /** What the change changed, noted by its use case through `ctx.audit.note`. */
  details?: Record<string, unknown>;
  /** Recorded in a transaction not yet known to have committed. */
  pendingId?: string;
  /** Recorded and committed. */
  recordedId?: string;
}

/** The ids a reply names as what it made: `data._id` (or `data.id`) of a success. */
function createdIds(reply: KeptReply): string[] {
  if (reply.status < 200 || reply.status >= 300) return [];
  const data = (reply.body as { data?: unknown } | undefined)?.data;
  if (typeof data !== 'object' || data === null) return [];
  const id = (data as { _id?: unknown; id?: unknown })._id ?? (data as { id?: unknown }).id;
  return typeof id === 'string' ? [id] : [];
}

function auditEntry(trail: WriteTrail, status: number, targets: string[] = [], reason?: string): AuditEventInput {
  return {
    ...trail.draft,
    targetIds: [...trail.draft.targetIds, ...targets],
    outcome: outcomeOf(status),
    status,
    reason: reason ?? null,
    details: (trail.details as AuditDetails | undefined) ?? null,
  };
}

/**
 * The request's use-case context inside the transaction `tx` that commits its change: its audit
 * notes go to the trail, and a change to what keys may do is announced again once that commits
 * (announced at once as well, it could be undone by a lookup made before the commit).
 */
function inTransaction(ctx: UseCaseContext, tx: Executor, trail: WriteTrail, afterCommit: (() => void)[]): UseCaseContext {
  return {
    ...ctx,
    db: tx,
    audit: { note: (details) => void (trail.details = { ...trail.details, ...details }) },
    apiKeys: {
      changed() {
        ctx.apiKeys?.changed();
        afterCommit.push(() => ctx.apiKeys?.changed());
      },
    },
  };
}

/** Records the trail's entry in `tx` with the reply it commits with, once per request. */
async function recordIn(tx: Executor, trail: WriteTrail, reply: KeptReply): Promise<void> {
  if (trail.pendingId) return;
  trail.pendingId = await recordAuditEvent(tx, auditEntry(trail, reply.status, createdIds(reply), reply.status >= 400 ? reasonOf(reply.body) : undefined));
}

/** `keep` that also records the audit entry, in the first phase that keeps an answer. */
function keepingAudit(trail: WriteTrail, keep: KeepReply | undefined): KeepReply {
  return async (tx, reply) => {
    await keep?.(tx, reply);
    await recordIn(tx, trail, reply);
  };
}

/**
 * Where handlers get their use-case context: the root one for reads; for writes, one whose executor
 * is the transaction that commits the change, its audit entry and, under an Idempotency-Key, the
 * reply kept for retries (or, for an operation run in atomic phases, the root one with `keep`, which
 * each phase's transaction calls: the first records the entry). `answerFor` turns what a write threw
 * into the reply kept for its key (the HTTP adapter's error answer).
 */
export function auditedWrites(ctx: UseCaseContext, answerFor: (error: unknown) => KeptReply) {
  return {
    plain: ctx,
    async idempotent<R extends KeptReply>(
      request: IdempotentRequest,
      trail: WriteTrail,
      work: (scope: UseCaseContext) => Promise<R>,
    ): Promise<IdempotentOutcome> {
      const afterCommit: (() => void)[] = [];
      const audited = (scope: UseCaseContext) =>
        request.atomicPhases
          ? work({ ...scope, keep: keepingAudit(trail, scope.keep), audit: inTransaction(ctx, scope.db, trail, afterCommit).audit })
          : work(inTransaction(scope, scope.db, trail, afterCommit)).then(async (reply) => (await recordIn(scope.db, trail, reply), reply));
      return runIdempotent(ctx, request, audited, answerFor).finally(() => afterCommit.forEach((signal) => signal()));
    },
    async write<R extends KeptReply>(trail: WriteTrail, atomicPhases: boolean, work: (scope: UseCaseContext) => Promise<R>): Promise<R> {
      if (atomicPhases) return work({ ...ctx, keep: keepingAudit(trail, undefined), audit: inTransaction(ctx, ctx.db, trail, []).audit });
      const afterCommit: (() => void)[] = [];
      const reply = await ctx.db
        .transaction(async (tx) => {
          const answer = await work(inTransaction(ctx, tx, trail, afterCommit));
          await recordIn(tx, trail, answer);
          return answer;
        })
        .finally(() => afterCommit.forEach((signal) => signal()));
      trail.recordedId = trail.pendingId;
      // Whatever the work enqueued is committed only now.
      ctx.outbox.nudge();
      return reply;
    },
    async settle(trail: WriteTrail, status: number, reason?: string): Promise<void> {
      if (trail.recordedId) return;
      // Recorded in a transaction that may since have been rolled back (a reply not kept, a phase whose commit failed).
      if (trail.pendingId && (await auditEventExists(ctx.db, trail.pendingId))) {
        trail.recordedId = trail.pendingId;
        return;
      }
      trail.recordedId = await recordAuditEvent(ctx.db, auditEntry(trail, status, [], reason));
    },
  };
}
