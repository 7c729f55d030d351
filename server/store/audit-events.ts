// The audit log (migration 0032): rows are inserted with the change they record, through the executor
// (or transaction) that makes that change, and never updated.
import { actorId, actorLabel, type Actor } from '../domain/actors.js';
import { newId } from '../domain/ids.js';
import type { Executor } from './executor.js';
import { nowIso } from './timestamps.js';

export type AuditOutcome = 'succeeded' | 'failed' | 'refused';

export interface AuditEventInput {
  businessId: number | null;
  actor: Actor;
  /** The operationId of an API write, or an event of sign-in and its kin (`auth.login`, ...). */
  action: string;
  targetIds: readonly string[];
  outcome: AuditOutcome;
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

export async function recordAuditEvent(db: Executor, event: AuditEventInput): Promise<string> {
  const id = newId();
  const createdAt = nowIso();
  await db.run(
    db.sql('audit_events').insert({
      _id: id,
      business_id: event.businessId,
      created_at: createdAt,
      actor_kind: event.actor.kind,
      actor_id: actorId(event.actor),
      actor_label: actorLabel(event.actor)?.slice(0, 320) ?? null,
      action: event.action,
      outcome: event.outcome,
      client_address: event.clientAddress,
      user_agent: event.userAgent?.slice(0, 512) ?? null,
      request_id: event.requestId,
    }),
  );
  const targets = [...new Set(event.targetIds)];
  if (targets.length > 0) {
    await db.run(
      db
        .sql('audit_event_targets')
        .insert(targets.map((target) => ({ event_id: id, business_id: event.businessId, target_id: target, created_at: createdAt }))),
    );
  }
  return id;
}
