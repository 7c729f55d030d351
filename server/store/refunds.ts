// Refunds of payments: one row per request to give money back, written (pending) before the
// acquirer is asked and settled with its answer.
import type { Executor } from './executor.js';
import { listedThrough } from './pagination.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundRecord {
  _id: string;
  business_id: number;
  payment_id: string;
  /** Cents. */
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  provider_reference: string | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

export type NewRefund = Pick<RefundRecord, '_id' | 'business_id' | 'payment_id' | 'amount' | 'currency' | 'reason'>;

function toRefund(row: RefundRecord): RefundRecord {
  return {
    ...row,
    business_id: Number(row.business_id),
    amount: Number(row.amount),
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

export async function insertPendingRefund(db: Executor, refund: NewRefund): Promise<RefundRecord> {
  const now = nowIso();
  const row: RefundRecord = {
    ...refund,
    status: 'pending',
    provider_reference: null,
    failure_code: null,
    failure_message: null,
    created_at: now,
    updated_at: now,
  };
  await db.run(db.sql('refunds').insert(row));
  return toRefund(row);
}

export type RefundSettlement =
  { status: 'succeeded' | 'pending'; acquirerReference: string } | { status: 'failed'; acquirerReference: string | null; code: string; message: string };

/** Settles a pending refund; undefined when it is no longer pending (settled meanwhile by the acquirer's notification). */
export async function settleRefund(db: Executor, id: string, settlement: RefundSettlement): Promise<RefundRecord | undefined> {
  const failure = settlement.status === 'failed' ? { failure_code: settlement.code, failure_message: settlement.message.slice(0, 200) } : {};
  const [row] = await db.all<RefundRecord>(
    db
      .sql('refunds')
      .where({ _id: id, status: 'pending' })
      .update({ status: settlement.status, provider_reference: settlement.acquirerReference, ...failure, updated_at: nowIso() })
      .returning('*'),
  );
  return row ? toRefund(row) : undefined;
}

/**
 * A refund the acquirer reported done that failed afterwards (Stripe: a card closed since the
 * payment). Undefined when it was not `succeeded` (already failed, or still pending).
 */
export async function failSucceededRefund(db: Executor, id: string, failure: { code: string; message: string }): Promise<RefundRecord | undefined> {
  const [row] = await db.all<RefundRecord>(
    db
      .sql('refunds')
      .where({ _id: id, status: 'succeeded' })
      .update({ status: 'failed', failure_code: failure.code, failure_message: failure.message.slice(0, 200), updated_at: nowIso() })
      .returning('*'),
  );
  return row ? toRefund(row) : undefined;
}

export async function findRefund(db: Executor, id: string): Promise<RefundRecord | undefined> {
  const row = await db.first<RefundRecord>(db.sql('refunds').where({ _id: id }));
  return row ? toRefund(row) : undefined;
}

export async function findRefundByAcquirerReference(db: Executor, paymentId: string, acquirerReference: string): Promise<RefundRecord | undefined> {
  const row = await db.first<RefundRecord>(db.sql('refunds').where({ payment_id: paymentId, provider_reference: acquirerReference }));
  return row ? toRefund(row) : undefined;
}

/**
 * A refund made at the acquirer without us (its dashboard), recorded as the acquirer reports it;
 * undefined when the payment already has a row for that acquirer refund (recorded meanwhile by
 * another path: the unique index decides, and the loser adds nothing).
 */
export async function insertAcquirerRefund(
  db: Executor,
  refund: NewRefund & { status: 'pending' | 'succeeded'; provider_reference: string },
): Promise<RefundRecord | undefined> {
  const now = nowIso();
  const row: RefundRecord = { ...refund, failure_code: null, failure_message: null, created_at: now, updated_at: now };
  const inserted = await db.all(
    db
      .sql('refunds')
      .insert(row)
      // The partial unique index of `migrations/0019_one_row_per_acquirer_refund.ts`, named by its columns and predicate.
      .onConflict(db.sql.raw('(payment_id, provider_reference) where provider_reference is not null'))
      .ignore()
      .returning('_id'),
  );
  return inserted.length === 1 ? toRefund(row) : undefined;
}

/**
 * Refunds the acquirer answered `pending`, last looked at before `before`: the sweep asks the
 * acquirer how they stand in case its notification never came. Oldest first.
 */
export async function listStaleAcquirerRefunds(db: Executor, before: string, limit: number): Promise<RefundRecord[]> {
  const rows = await db.all<RefundRecord>(
    db.sql('refunds').where({ status: 'pending' }).whereNotNull('provider_reference').andWhere('updated_at', '<', before).orderBy('updated_at').limit(limit),
  );
  return rows.map(toRefund);
}

/** Takes a refund for one look by the sweep: of several instances, one asks; the next look waits its grace again. */
export async function touchRefund(db: Executor, refund: RefundRecord, at: string): Promise<boolean> {
  return (await db.run(db.sql('refunds').where({ _id: refund._id, status: 'pending', updated_at: refund.updated_at }).update({ updated_at: at }))) === 1;
}

/**
 * Refunds still pending, last touched before `before`, that the acquirer never answered (no
 * `provider_reference`): the process that asked stopped, or the acquirer's call threw. Oldest first.
 */
export async function listStaleRefunds(db: Executor, before: string, limit: number): Promise<RefundRecord[]> {
  const rows = await db.all<RefundRecord>(
    db.sql('refunds').where({ status: 'pending' }).whereNull('provider_reference').andWhere('updated_at', '<', before).orderBy('updated_at').limit(limit),
  );
  return rows.map(toRefund);
}

/**
 * Takes a stale refund for one sweep: its `updated_at` moves to the sweep's time `at` only if it is
 * still what was read, so of several instances sweeping at once one asks the acquirer again, and a
 * sweep that lists it afterwards no longer finds it stale.
 */
export async function claimStaleRefund(db: Executor, refund: RefundRecord, at: string): Promise<boolean> {
  const changed = await db.run(
    db.sql('refunds').where({ _id: refund._id, status: 'pending', updated_at: refund.updated_at }).whereNull('provider_reference').update({ updated_at: at }),
  );
  return changed === 1;
}

/** A payment's refunds, oldest first. */
export async function listRefunds(db: Executor, paymentId: string): Promise<RefundRecord[]> {
  const rows = await db.all<RefundRecord>(
    db
      .sql('refunds')
      .where({ payment_id: paymentId })
      .orderBy([
        { column: 'created_at', order: 'asc' },
        { column: '_id', order: 'asc' },
      ]),
  );
  return rows.map(toRefund);
}

/** The refunds of several payments, oldest first, grouped by payment. */
export async function refundsOfPayments(db: Executor, paymentIds: readonly string[]): Promise<Map<string, RefundRecord[]>> {
  const grouped = new Map<string, RefundRecord[]>();
  if (paymentIds.length === 0) return grouped;
  // Through the payment's index: in created_at order, SQLite (without statistics) walked every refund instead.
  const rows = await db.all<RefundRecord>(
    listedThrough(db, 'refunds', 'refunds_payment_id_created_at__id_index')
      .whereIn('payment_id', paymentIds)
      .orderBy([
        { column: 'created_at', order: 'asc' },
        { column: '_id', order: 'asc' },
      ]),
  );
  for (const row of rows.map(toRefund)) grouped.set(row.payment_id, [...(grouped.get(row.payment_id) ?? []), row]);
  return grouped;
}
