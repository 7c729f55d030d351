// The audit log (`migrations/0032_audit_events.ts`): rows are inserted with the change they record, through the executor
// (or transaction) that makes that change, and never updated; the retention sweep deletes the oldest.
import { actorId, actorLabel, type Actor } from '../domain/actors.js';
import { newId } from '../domain/ids.js';
import type { Page, PageRequest } from '../domain/paging.js';
import type { DateRange } from '../domain/time.js';
import type { Executor } from './executor.js';
import { cappedCount, listedThrough } from './pagination.js';
import { nowIso, toIsoMicros } from './timestamps.js';

/** How long events are kept unless the operator says otherwise (AUDIT_RETENTION_DAYS). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

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
  /** The HTTP status of the answer, when the event is a request's. */
  status?: number | null;
  /** Why it was refused or failed, as the caller was told. */
  reason?: string | null;
  /** What the change changed (old and new values, what was made or revoked). */
  details?: AuditDetails | null;
}

export type AuditDetails = Record<string, string | number | boolean | null | readonly string[]>;

/** How a request's answer reads in the log: 2xx succeeded, 4xx refused (nothing changed), else failed. */
export function outcomeOf(status: number): AuditOutcome {
  if (status >= 200 && status < 300) return 'succeeded';
  return status >= 400 && status < 500 ? 'refused' : 'failed';
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
      actor_id: actorId(event.actor)?.slice(0, 64) ?? null,
      actor_label: actorLabel(event.actor)?.slice(0, 320) ?? null,
      action: event.action.slice(0, 64),
      outcome: event.outcome,
      status: event.status ?? null,
      reason: event.reason?.slice(0, 500) ?? null,
      details: event.details ? JSON.stringify(event.details) : null,
      client_address: event.clientAddress?.slice(0, 64) ?? null,
      user_agent: event.userAgent?.slice(0, 512) ?? null,
      request_id: event.requestId?.slice(0, 128) ?? null,
    }),
  );
  const targets = [...new Set(event.targetIds.map((target) => target.slice(0, 64)))].slice(0, 16);
  if (targets.length > 0) {
    await db.run(
      db
        .sql('audit_event_targets')
        .insert(targets.map((target) => ({ event_id: id, business_id: event.businessId, target_id: target, created_at: createdAt }))),
    );
  }
  return id;
}

/** Whether an event committed (an executor's transaction may have been rolled back after recording it). */
export async function auditEventExists(db: Executor, id: string): Promise<boolean> {
  return (await db.first(db.sql('audit_events').select('_id').where('_id', id))) !== undefined;
}

export interface AuditEventRecord {
  _id: string;
  actor: { kind: Actor['kind']; id: string | null; label: string | null };
  action: string;
  target_ids: string[];
  outcome: AuditOutcome;
  status: number | null;
  reason: string | null;
  details: AuditDetails | null;
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  created_at: string;
}

export interface AuditFilters {
  actorId?: string;
  action?: string;
  targetId?: string;
  createdBetween?: DateRange;
}

interface EventRow {
  _id: string;
  actor_kind: Actor['kind'];
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  outcome: AuditOutcome;
  status: number | string | null;
  reason: string | null;
  details: string | null;
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  created_at: string | Date;
}

/**
 * One page of the business's log. A target filter reads the targets' index (with the event's other
 * filters checked on each event it finds); otherwise the events' own index for the actor or the
 * action given, or for the business alone. Totals are capped as every list's are.
 */
export async function listAuditEvents(db: Executor, businessId: number, filters: AuditFilters, page: PageRequest): Promise<Page<AuditEventRecord>> {
  const range = filters.createdBetween;
  let query;
  let idColumn: string;
  let timeColumn: string;
  if (filters.targetId !== undefined) {
    query = listedThrough(db, 'audit_event_targets', 'audit_event_targets_business_id_target_id_created_at_event_id_index')
      .where({ 'audit_event_targets.business_id': businessId, 'audit_event_targets.target_id': filters.targetId })
      .join('audit_events', 'audit_events._id', 'audit_event_targets.event_id');
    if (filters.actorId !== undefined) query.where('audit_events.actor_id', filters.actorId);
    if (filters.action !== undefined) query.where('audit_events.action', filters.action);
    idColumn = 'audit_event_targets.event_id';
    timeColumn = 'audit_event_targets.created_at';
  } else {
    const index =
      filters.actorId !== undefined
        ? 'audit_events_business_id_actor_id_created_at__id_index'
        : filters.action !== undefined
          ? 'audit_events_business_id_action_created_at__id_index'
          : 'audit_events_business_id_created_at__id_index';
    query = listedThrough(db, 'audit_events', index).where('business_id', businessId);
    if (filters.actorId !== undefined) query.where('actor_id', filters.actorId);
    if (filters.action !== undefined) query.where('action', filters.action);
    idColumn = '_id';
    timeColumn = 'created_at';
  }
  if (range) query.where(timeColumn, '>=', range.start).andWhere(timeColumn, '<=', range.end);
  const { total, totalAtLeast } = await cappedCount(db, query);
  const offset = (page.page - 1) * page.perPage;
  if (offset >= total) return { rows: [], total, totalAtLeast };
  const ids = (
    await db.all<{ id: string }>(
      query
        .clone()
        .select(`${idColumn} as id`)
        .orderBy([
          { column: timeColumn, order: page.direction },
          { column: idColumn, order: page.direction },
        ])
        .limit(page.perPage, { skipBinding: true })
        .offset(offset),
    )
  ).map((row) => row.id);
  if (ids.length === 0) return { rows: [], total, totalAtLeast };
  const rows = await db.all<EventRow>(db.sql('audit_events').whereIn('_id', ids));
  const targets = await db.all<{ event_id: string; target_id: string }>(db.sql('audit_event_targets').select('event_id', 'target_id').whereIn('event_id', ids));
  const byId = new Map(rows.map((row) => [row._id, row]));
  return {
    rows: ids.map((id) => {
      const row = byId.get(id)!;
      return {
        _id: row._id,
        actor: { kind: row.actor_kind, id: row.actor_id, label: row.actor_label },
        action: row.action,
        target_ids: targets.filter((target) => target.event_id === id).map((target) => target.target_id),
        outcome: row.outcome,
        status: row.status === null ? null : Number(row.status),
        reason: row.reason,
        details: row.details === null ? null : (JSON.parse(row.details) as AuditDetails),
        client_address: row.client_address,
        user_agent: row.user_agent,
        request_id: row.request_id,
        created_at: toIsoMicros(row.created_at),
      };
    }),
    total,
    totalAtLeast,
  };
}

/** Deletes up to `batch` events older than `before`, with their targets; how many went. */
export async function deleteAuditEventsBefore(db: Executor, before: string, batch: number): Promise<number> {
  return db.transaction(async (tx) => {
    const ids = (
      await tx.all<{ _id: string }>(
        tx.sql('audit_events').select('_id').where('created_at', '<', before).orderBy('created_at').limit(batch, { skipBinding: true }),
      )
    ).map((row) => row._id);
    if (ids.length === 0) return 0;
    await tx.run(tx.sql('audit_event_targets').whereIn('event_id', ids).delete());
    return tx.run(tx.sql('audit_events').whereIn('_id', ids).delete());
  });
}
