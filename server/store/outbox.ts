// The outbox table: entries are enqueued inside the transaction of the change that causes them and
// claimed by workers with a lease, so several server processes on one database never deliver the
// same entry at the same time. Only the lease holder can settle an entry.
import type { Knex } from 'knex';
import type { Executor } from './executor.js';
import { isoMicros } from '../domain/time.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export type OutboxChannel = 'email' | 'webhook';
export type OutboxStatus = 'pending' | 'delivered' | 'dead';

export interface NewOutboxEntry {
  business_id: number;
  channel: OutboxChannel;
  topic: string;
  payload: unknown;
}

export interface OutboxEntry {
  id: number;
  business_id: number;
  channel: OutboxChannel;
  topic: string;
  payload: unknown;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

interface OutboxRow extends Omit<OutboxEntry, 'payload'> {
  payload: string;
}

function toEntry(row: OutboxRow): OutboxEntry {
  return {
    id: Number(row.id),
    business_id: Number(row.business_id),
    channel: row.channel,
    topic: row.topic,
    payload: JSON.parse(row.payload),
    status: row.status,
    attempts: Number(row.attempts),
    next_attempt_at: toIsoMicros(row.next_attempt_at),
    last_error: row.last_error,
    created_at: toIsoMicros(row.created_at),
    delivered_at: row.delivered_at ? toIsoMicros(row.delivered_at) : null,
  };
}

const COLUMNS = ['id', 'business_id', 'channel', 'topic', 'payload', 'status', 'attempts', 'next_attempt_at', 'last_error', 'created_at', 'delivered_at'];

export async function enqueue(db: Executor, entry: NewOutboxEntry): Promise<number> {
  const now = nowIso();
  const [row] = await db.all<{ id: number }>(
    db.sql('outbox').insert({ ...entry, payload: JSON.stringify(entry.payload), status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, updated_at: now }).returning('id'),
  );
  return Number(row!.id);
}

/**
 * Leases up to `limit` due entries to `owner` and counts the attempt. The conditions are repeated
 * on the outer UPDATE so that, on PostgreSQL, a worker that waited for another's row lock re-checks
 * them and skips rows that were claimed meanwhile.
 */
export async function claimDue(db: Executor, owner: string, leaseMs: number, limit: number, now = new Date()): Promise<OutboxEntry[]> {
  const nowText = isoMicros(now);
  const leaseUntil = isoMicros(new Date(now.getTime() + leaseMs));
  const claimable = (query: Knex.QueryBuilder) =>
    query
      .where('status', 'pending')
      .andWhere('next_attempt_at', '<=', nowText)
      .andWhere((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', nowText));
  const due = claimable(db.sql('outbox').select('id')).orderBy([{ column: 'next_attempt_at' }, { column: 'id' }]).limit(limit);
  const rows = await db.all<OutboxRow>(
    claimable(db.sql('outbox').whereIn('id', due))
      .update({ lease_owner: owner, lease_expires_at: leaseUntil, attempts: db.sql.raw('attempts + 1'), updated_at: nowText })
      .returning(COLUMNS),
  );
  return rows.map(toEntry);
}

export interface AttemptRecord {
  worker: string;
  attempt: number;
  started_at: string;
  outcome: 'delivered' | 'failed';
  error: string | null;
}

async function recordAttempt(db: Executor, id: number, attempt: AttemptRecord): Promise<void> {
  await db.run(db.sql('outbox_attempts').insert({ outbox_id: id, ...attempt, error: attempt.error?.slice(0, 500) ?? null, finished_at: nowIso() }));
}

/** Settles a delivered entry; false when this worker no longer holds its lease. */
export async function markDelivered(db: Executor, id: number, attempt: AttemptRecord): Promise<boolean> {
  return db.transaction(async (trx) => {
    const now = nowIso();
    const changed = await trx.run(
      trx
        .sql('outbox')
        .where({ id, lease_owner: attempt.worker, status: 'pending' })
        .update({ status: 'delivered', delivered_at: now, lease_owner: null, lease_expires_at: null, last_error: null, updated_at: now }),
    );
    await recordAttempt(trx, id, attempt);
    return changed === 1;
  });
}

/** Settles a failed attempt: due again at `retryAt`, or dead when there is no retry left. */
export async function markFailed(db: Executor, id: number, attempt: AttemptRecord & { error: string }, retryAt: Date | null): Promise<boolean> {
  return db.transaction(async (trx) => {
    const changed = await trx.run(
      trx
        .sql('outbox')
        .where({ id, lease_owner: attempt.worker, status: 'pending' })
        .update({
          status: retryAt ? 'pending' : 'dead',
          next_attempt_at: retryAt ? isoMicros(retryAt) : trx.sql.raw('next_attempt_at'),
          lease_owner: null,
          lease_expires_at: null,
          last_error: attempt.error.slice(0, 500),
          updated_at: nowIso(),
        }),
    );
    await recordAttempt(trx, id, attempt);
    return changed === 1;
  });
}

export async function listOutbox(db: Executor, where: Partial<Pick<OutboxEntry, 'business_id' | 'channel' | 'topic' | 'status'>> = {}): Promise<OutboxEntry[]> {
  const rows = await db.all<OutboxRow>(db.sql('outbox').select(COLUMNS).where(where).orderBy('id'));
  return rows.map(toEntry);
}

export async function listAttempts(db: Executor, outboxId: number): Promise<(AttemptRecord & { finished_at: string })[]> {
  return db.all(db.sql('outbox_attempts').select('worker', 'attempt', 'started_at', 'finished_at', 'outcome', 'error').where({ outbox_id: outboxId }).orderBy('id'));
}
