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
  /** The webhook endpoint (row key) a webhook entry is for. */
  endpoint_id?: number | null;
  channel: OutboxChannel;
  topic: string;
  payload: unknown;
}

export interface OutboxEntry {
  id: number;
  business_id: number;
  endpoint_id: number | null;
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
    endpoint_id: row.endpoint_id == null ? null : Number(row.endpoint_id),
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

const COLUMNS = [
  'id',
  'business_id',
  'endpoint_id',
  'channel',
  'topic',
  'payload',
  'status',
  'attempts',
  'next_attempt_at',
  'last_error',
  'created_at',
  'delivered_at',
];

export async function enqueue(db: Executor, entry: NewOutboxEntry): Promise<number> {
  const now = nowIso();
  const [row] = await db.all<{ id: number }>(
    db
      .sql('outbox')
      .insert({
        ...entry,
        payload: JSON.stringify(entry.payload),
        // A webhook's event id, by which GET /api/events finds it.
        event_id: entry.channel === 'webhook' ? ((entry.payload as { id?: string }).id ?? null) : null,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })
      .returning('id'),
  );
  return Number(row!.id);
}

/** An entry that is due and not leased: what a worker picks from before claiming. */
export interface ClaimableEntry {
  id: number;
  business_id: number;
  channel: OutboxChannel;
}

/**
 * The rows of `query` an UPDATE of several outbox rows may take: on PostgreSQL those it can lock now,
 * locked in id order, so that two such statements (a claim, a deferred queue) never take each other's
 * rows in opposite orders and deadlock; a row another statement holds is left to it. SQLite has one
 * writer, so no order to keep.
 */
function lockedInOrder(db: Executor, query: Knex.QueryBuilder): Knex.QueryBuilder {
  if (db.dialect !== 'postgres') return query;
  return db.sql('outbox').whereIn('id', query.clone().select('id').orderBy('id').forUpdate().skipLocked());
}

function claimable(query: Knex.QueryBuilder, nowText: string): Knex.QueryBuilder {
  return query
    .where('status', 'pending')
    .andWhere('next_attempt_at', '<=', nowText)
    .andWhere((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', nowText));
}

/**
 * Up to `limit` due, unleased entries, oldest first, leaving out the (business, channel) pairs in
 * `exclude` (those a worker already delivers as much of as it allows one business).
 */
export async function listClaimable(
  db: Executor,
  options: { limit: number; exclude?: Pick<ClaimableEntry, 'business_id' | 'channel'>[]; now?: Date },
): Promise<ClaimableEntry[]> {
  const exclude = options.exclude ?? [];
  const query = claimable(db.sql('outbox').select('id', 'business_id', 'channel'), isoMicros(options.now ?? new Date()));
  if (exclude.length > 0) {
    query.andWhere((q) => {
      for (const pair of exclude) q.whereNot((p) => p.where({ business_id: pair.business_id, channel: pair.channel }));
    });
  }
  const rows = await db.all<ClaimableEntry>(query.orderBy([{ column: 'next_attempt_at' }, { column: 'id' }]).limit(options.limit));
  return rows.map((row) => ({ id: Number(row.id), business_id: Number(row.business_id), channel: row.channel }));
}

/**
 * Leases the entries `ids` to `owner` and counts the attempt, skipping any that another worker claimed
 * since they were listed: the claim conditions are repeated on the UPDATE, which on PostgreSQL
 * re-checks them after waiting for another worker's row lock, and on SQLite runs under the one
 * write lock.
 */
export async function claimEntries(db: Executor, owner: string, ids: number[], leaseMs: number, now = new Date()): Promise<OutboxEntry[]> {
  if (ids.length === 0) return [];
  const nowText = isoMicros(now);
  const leaseUntil = isoMicros(new Date(now.getTime() + leaseMs));
  const rows = await db.all<OutboxRow>(
    lockedInOrder(db, claimable(db.sql('outbox').whereIn('id', ids), nowText))
      .update({ lease_owner: owner, lease_expires_at: leaseUntil, attempts: db.sql.raw('attempts + 1'), updated_at: nowText })
      .returning(COLUMNS),
  );
  return rows.map(toEntry).sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}

/** Leases up to `limit` due entries to `owner`, oldest first, and counts the attempt. */
export async function claimDue(db: Executor, owner: string, leaseMs: number, limit: number, now = new Date()): Promise<OutboxEntry[]> {
  const due = await listClaimable(db, { limit, now });
  return claimEntries(
    db,
    owner,
    due.map((entry) => entry.id),
    leaseMs,
    now,
  );
}

export interface AttemptRecord {
  worker: string;
  attempt: number;
  started_at: string;
  outcome: 'delivered' | 'failed';
  error: string | null;
  /** What a webhook receiver answered, when it answered. */
  http_status?: number | null;
}

/** The entry an attempt is for: its business and endpoint are kept with the attempt, for an endpoint's list of them. */
export type AttemptedEntry = Pick<OutboxEntry, 'id' | 'business_id' | 'endpoint_id'>;

async function recordAttempt(db: Executor, entry: AttemptedEntry, attempt: AttemptRecord): Promise<void> {
  await db.run(
    db.sql('outbox_attempts').insert({
      outbox_id: entry.id,
      business_id: entry.business_id,
      endpoint_id: entry.endpoint_id,
      ...attempt,
      error: attempt.error?.slice(0, 500) ?? null,
      finished_at: nowIso(),
    }),
  );
}

/** Settles a delivered entry; false when this worker no longer holds its lease. */
export async function markDelivered(db: Executor, entry: AttemptedEntry, attempt: AttemptRecord): Promise<boolean> {
  const { id } = entry;
  return db.transaction(async (trx) => {
    const now = nowIso();
    const changed = await trx.run(
      trx
        .sql('outbox')
        .where({ id, lease_owner: attempt.worker, status: 'pending' })
        .update({ status: 'delivered', delivered_at: now, lease_owner: null, lease_expires_at: null, last_error: null, updated_at: now }),
    );
    await recordAttempt(trx, entry, attempt);
    return changed === 1;
  });
}

/** Settles a failed attempt: due again at `retryAt`, or dead when there is no retry left. */
export async function markFailed(db: Executor, entry: AttemptedEntry, attempt: AttemptRecord & { error: string }, retryAt: Date | null): Promise<boolean> {
  const { id } = entry;
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
    await recordAttempt(trx, entry, attempt);
    return changed === 1;
  });
}

/**
 * Gives a claimed entry back without an attempt (its endpoint is known to be failing): due again at
 * `until`, the attempt the claim counted taken back, nothing recorded in outbox_attempts.
 */
export async function deferEntry(db: Executor, id: number, worker: string, until: Date): Promise<boolean> {
  const changed = await db.run(
    db
      .sql('outbox')
      .where({ id, lease_owner: worker, status: 'pending' })
      .update({ next_attempt_at: isoMicros(until), attempts: db.sql.raw('attempts - 1'), lease_owner: null, lease_expires_at: null, updated_at: nowIso() }),
  );
  return changed === 1;
}

/**
 * Puts back, in one statement, every unleased pending entry of one business's channel that would
 * come due before `until` (its endpoint is known to be failing), so that they are not claimed one by
 * one only to be put back. No attempt is counted.
 */
export async function deferQueue(db: Executor, queue: Pick<ClaimableEntry, 'business_id' | 'channel'>, until: Date, now = new Date()): Promise<number> {
  const nowText = isoMicros(now);
  return db.run(
    lockedInOrder(
      db,
      db
        .sql('outbox')
        .where({ business_id: queue.business_id, channel: queue.channel, status: 'pending' })
        .andWhere('next_attempt_at', '<', isoMicros(until))
        .andWhere((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', nowText)),
    ).update({ next_attempt_at: isoMicros(until), updated_at: nowText }),
  );
}

/**
 * Deletes delivered and dead entries settled before `before`, with their attempts (first, for the
 * foreign key), `batchSize` entries per transaction so that no write lock is held for long: on
 * SQLite every other writer waits for it. Pending entries are never deleted. Resolves with how many
 * entries were deleted and in how many batches.
 */
export async function pruneSettled(
  db: Executor,
  options: { before: Date; batchSize: number; shouldStop?: () => boolean },
): Promise<{ deleted: number; batches: number }> {
  const before = isoMicros(options.before);
  let deleted = 0;
  let batches = 0;
  for (const status of ['delivered', 'dead'] as const) {
    for (;;) {
      if (options.shouldStop?.()) return { deleted, batches };
      // next_attempt_at is indexed with status and is never later than the settling time, so the
      // index narrows the search; updated_at (the settling time) is the exact rule. Settled entries
      // never change again, so the ids can be read before the transaction that deletes them.
      const rows = await db.all<{ id: number }>(
        db
          .sql('outbox')
          .select('id')
          .where('status', status)
          .andWhere('next_attempt_at', '<', before)
          .andWhere('updated_at', '<', before)
          .limit(options.batchSize),
      );
      const ids = rows.map((row) => Number(row.id));
      if (ids.length === 0) break;
      const removed = await db.transaction(async (tx) => {
        await tx.run(tx.sql('outbox_attempts').whereIn('outbox_id', ids).delete());
        return tx.run(tx.sql('outbox').whereIn('id', ids).andWhere('status', status).delete());
      });
      deleted += removed;
      batches += 1;
      if (ids.length < options.batchSize) break;
    }
  }
  return { deleted, batches };
}

export async function listOutbox(db: Executor, where: Partial<Pick<OutboxEntry, 'business_id' | 'channel' | 'topic' | 'status'>> = {}): Promise<OutboxEntry[]> {
  const rows = await db.all<OutboxRow>(db.sql('outbox').select(COLUMNS).where(where).orderBy('id'));
  return rows.map(toEntry);
}

export async function listAttempts(db: Executor, outboxId: number): Promise<(AttemptRecord & { finished_at: string })[]> {
  return db.all(
    db.sql('outbox_attempts').select('worker', 'attempt', 'started_at', 'finished_at', 'outcome', 'error').where({ outbox_id: outboxId }).orderBy('id'),
  );
}
