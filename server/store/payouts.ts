// Payouts: the sums an acquirer sends to a business's bank account, each the net of the ledger
// entries it took (store/balance-transactions.ts), and how its reconciliation stands.
import type { Page, PageRequest } from '../domain/paging.js';
import type { DateRange } from '../domain/time.js';
import type { Executor } from './executor.js';
import { fetchFixedPage, listedThrough } from './pagination.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export type PayoutStatus = 'pending' | 'in_transit' | 'paid' | 'failed' | 'canceled';
export type ReconciliationStatus = 'matched' | 'mismatched' | 'expected' | 'explained';

export interface PayoutRecord {
  _id: string;
  business_id: number;
  provider: string;
  /** Sen, signed: a negative payout is a debit. */
  amount: number;
  currency: string;
  status: PayoutStatus;
  arrival_date: string;
  acquirer_reference: string;
  bank_reference: string | null;
  transaction_count: number;
  reconciliation_status: ReconciliationStatus;
  reconciliation_reason: string | null;
  reconciliation_checked_at: string | null;
  incomplete_syncs: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

export type NewPayout = Pick<
  PayoutRecord,
  '_id' | 'business_id' | 'provider' | 'amount' | 'currency' | 'status' | 'arrival_date' | 'acquirer_reference' | 'bank_reference'
>;

function toRecord(row: PayoutRecord): PayoutRecord {
  return {
    ...row,
    business_id: Number(row.business_id),
    amount: Number(row.amount),
    transaction_count: Number(row.transaction_count),
    incomplete_syncs: Number(row.incomplete_syncs),
    reconciliation_checked_at: row.reconciliation_checked_at === null ? null : toIsoMicros(row.reconciliation_checked_at),
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

/** Writes a payout unless the acquirer's reference is already recorded for the business: then undefined. */
export async function insertPayout(db: Executor, payout: NewPayout): Promise<PayoutRecord | undefined> {
  const now = nowIso();
  const row: PayoutRecord = {
    ...payout,
    transaction_count: 0,
    reconciliation_status: 'expected',
    reconciliation_reason: null,
    reconciliation_checked_at: null,
    incomplete_syncs: 0,
    failure_code: null,
    failure_message: null,
    created_at: now,
    updated_at: now,
  };
  const inserted = await db.all(db.sql('payouts').insert(row).onConflict(['business_id', 'provider', 'acquirer_reference']).ignore().returning('_id'));
  return inserted.length === 1 ? toRecord(row) : undefined;
}

export async function findPayout(db: Executor, businessId: number, id: string): Promise<PayoutRecord | undefined> {
  const row = await db.first<PayoutRecord>(db.sql('payouts').where({ _id: id, business_id: businessId }));
  return row ? toRecord(row) : undefined;
}

export async function findPayoutByAcquirerReference(db: Executor, businessId: number, provider: string, reference: string): Promise<PayoutRecord | undefined> {
  const row = await db.first<PayoutRecord>(db.sql('payouts').where({ business_id: businessId, provider, acquirer_reference: reference }));
  return row ? toRecord(row) : undefined;
}

export type PayoutChange = Partial<
  Pick<
    PayoutRecord,
    | 'status'
    | 'amount'
    | 'arrival_date'
    | 'bank_reference'
    | 'transaction_count'
    | 'reconciliation_status'
    | 'reconciliation_reason'
    | 'reconciliation_checked_at'
    | 'incomplete_syncs'
    | 'failure_code'
    | 'failure_message'
  >
>;

/** Changes a payout; the guard's states, when given, are those it must be in (else nothing changes: undefined). */
export async function updatePayout(
  db: Executor,
  id: string,
  change: PayoutChange,
  guard: { status?: readonly PayoutStatus[]; reconciliation?: readonly ReconciliationStatus[] } = {},
): Promise<PayoutRecord | undefined> {
  const query = db.sql('payouts').where({ _id: id });
  if (guard.status) query.whereIn('status', guard.status);
  if (guard.reconciliation) query.whereIn('reconciliation_status', guard.reconciliation);
  const [row] = await db.all<PayoutRecord>(query.update({ ...change, updated_at: nowIso() }).returning('*'));
  return row ? toRecord(row) : undefined;
}

export interface PayoutFilters {
  status?: PayoutStatus;
  /** Local days, both ends included. */
  arrivalBetween?: { from: string; to: string };
  createdBetween?: DateRange;
}

export async function listPayouts(db: Executor, businessId: number, filters: PayoutFilters, page: PageRequest): Promise<Page<PayoutRecord>> {
  const arrival = filters.arrivalBetween !== undefined;
  const dated = filters.createdBetween !== undefined;
  const index = filters.status !== undefined ? 'payouts_status_page_index' : arrival ? 'payouts_arrival_date_page_index' : 'payouts_page_index';
  return fetchFixedPage<PayoutRecord, 'businessId' | 'status' | 'arrivalFrom' | 'arrivalTo' | 'createdFrom' | 'createdTo'>(
    db,
    `payouts list ${filters.status !== undefined ? 'status' : ''}${arrival ? ' arrival' : ''}${dated ? ' dated' : ''}`,
    (_sql, param) => {
      const query = listedThrough(db, 'payouts', index)
        .where({ business_id: param('businessId') })
        .select('*');
      if (filters.status !== undefined) query.where('status', param('status'));
      if (arrival) query.where('arrival_date', '>=', param('arrivalFrom')).andWhere('arrival_date', '<=', param('arrivalTo'));
      if (dated) query.where('created_at', '>=', param('createdFrom')).andWhere('created_at', '<=', param('createdTo'));
      return query;
    },
    {
      businessId,
      status: filters.status,
      arrivalFrom: filters.arrivalBetween?.from,
      arrivalTo: filters.arrivalBetween?.to,
      createdFrom: filters.createdBetween?.start,
      createdTo: filters.createdBetween?.end,
    },
    page,
    toRecord,
  );
}

/** Payouts of a business whose deposit no statement has shown yet, arriving between two days. */
export async function payoutsAwaitingDeposit(db: Executor, businessId: number, from: string, to: string): Promise<PayoutRecord[]> {
  const rows = await db.all<PayoutRecord>(
    db
      .sql('payouts')
      .where({ business_id: businessId })
      .whereIn('status', ['in_transit', 'paid'])
      .whereIn('reconciliation_status', ['expected', 'mismatched'])
      .andWhere('arrival_date', '>=', from)
      .andWhere('arrival_date', '<=', to)
      .orderBy('arrival_date'),
  );
  return rows.map(toRecord);
}

/** Payouts still expecting their deposit, across businesses, for the sweep that gives up on them. */
export async function payoutsExpectingDeposit(db: Executor, arrivedBefore: string, limit: number): Promise<PayoutRecord[]> {
  const rows = await db.all<PayoutRecord>(
    db.sql('payouts').where({ reconciliation_status: 'expected', status: 'paid' }).andWhere('arrival_date', '<', arrivedBefore).limit(limit),
  );
  return rows.map(toRecord);
}

/** How many payouts are mismatched, for the operator's metrics. */
export async function countMismatchedPayouts(db: Executor): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('payouts').where({ reconciliation_status: 'mismatched' }).count({ count: '*' }));
  return Number(row?.count ?? 0);
}
