// The ledger: every movement of a business's funds, one immutable row each (migration
// 0044_settlement_ledger.ts). Only the payout that takes an entry is written afterwards, once.
import type { Page, PageRequest } from '../domain/paging.js';
import type { DateRange } from '../domain/time.js';
import { localDay } from '../domain/local-days.js';
import { findBusinessTimeZone } from './business-profile.js';
import type { Executor } from './executor.js';
import { fetchFixedPage, listedThrough } from './pagination.js';
import { toIsoMicros } from './timestamps.js';

export type BalanceTransactionType = 'charge' | 'refund' | 'refund_failure' | 'adjustment' | 'payout' | 'payout_failure';
export type BalanceSourceType = 'payment' | 'refund' | 'payout';

export interface BalanceTransactionRecord {
  _id: string;
  business_id: number;
  type: BalanceTransactionType;
  /** Sen, signed: money in is positive. */
  amount: number;
  fee: number;
  net: number;
  currency: string;
  /** The business's local day the funds are available on. */
  available_on: string;
  source_type: BalanceSourceType;
  source_id: string;
  acquirer_reference: string | null;
  payout_id: string | null;
  description: string | null;
  created_at: string;
}

export type NewBalanceTransaction = Omit<BalanceTransactionRecord, 'net' | 'payout_id'> & { payout_id?: string | null };

const COLUMNS = [
  '_id',
  'business_id',
  'type',
  'amount',
  'fee',
  'net',
  'currency',
  'available_on',
  'source_type',
  'source_id',
  'acquirer_reference',
  'payout_id',
  'description',
  'created_at',
] as const;

function toRecord(row: BalanceTransactionRecord): BalanceTransactionRecord {
  return {
    ...row,
    business_id: Number(row.business_id),
    amount: Number(row.amount),
    fee: Number(row.fee),
    net: Number(row.net),
    created_at: toIsoMicros(row.created_at),
  };
}

/**
 * Writes an entry, unless its source already has one of its type (adjustments excepted): then
 * undefined, and nothing is written, so whichever path records a movement first records it once.
 */
export async function insertBalanceTransaction(db: Executor, entry: NewBalanceTransaction): Promise<BalanceTransactionRecord | undefined> {
  const row: BalanceTransactionRecord = { payout_id: null, ...entry, net: entry.amount - entry.fee };
  const insert = db.sql('balance_transactions').insert(row);
  const inserted = await db.all(
    entry.type === 'adjustment'
      ? insert.returning('_id')
      : // The partial unique index of the migration, named by its columns and predicate.
        insert.onConflict(db.sql.raw(`(type, source_id) where type <> 'adjustment'`)).ignore().returning('_id'),
  );
  if (inserted.length !== 1) return undefined;
  await addToDailySums(db, row, localDay(row.created_at, await findBusinessTimeZone(db, row.business_id)));
  return toRecord(row);
}

type SummedEntry = Pick<BalanceTransactionRecord, 'business_id' | 'currency' | 'type' | 'amount' | 'fee' | 'net'>;

/** Counts an entry into its day's sums (the business's day of its creation), in the caller's transaction. */
export async function addToDailySums(db: Executor, entry: SummedEntry, day: string, count = 1): Promise<void> {
  const plus = (column: string, value: number) => db.sql.raw('?? + ?', [`balance_daily_sums.${column}`, value]);
  await db.run(
    db
      .sql('balance_daily_sums')
      .insert({ business_id: entry.business_id, currency: entry.currency, day, type: entry.type, count, amount: entry.amount, fee: entry.fee, net: entry.net })
      .onConflict(['business_id', 'currency', 'day', 'type'])
      .merge({ count: plus('count', count), amount: plus('amount', entry.amount), fee: plus('fee', entry.fee), net: plus('net', entry.net) }),
  );
}

export async function findBalanceTransaction(db: Executor, businessId: number, id: string): Promise<BalanceTransactionRecord | undefined> {
  const row = await db.first<BalanceTransactionRecord>(db.sql('balance_transactions').select(COLUMNS).where({ _id: id, business_id: businessId }));
  return row ? toRecord(row) : undefined;
}

/** The entry of one kind a source has, if any (a payment's charge, a refund's refund). */
export async function findEntryOfSource(db: Executor, type: BalanceTransactionType, sourceId: string): Promise<BalanceTransactionRecord | undefined> {
  const row = await db.first<BalanceTransactionRecord>(db.sql('balance_transactions').select(COLUMNS).where({ type, source_id: sourceId }));
  return row ? toRecord(row) : undefined;
}

export interface BalanceTransactionFilters {
  type?: BalanceTransactionType;
  payoutId?: string;
  sourceId?: string;
  createdBetween?: DateRange;
  /** Local days, both ends included. */
  availableOnBetween?: { from: string; to: string };
}

const EQUALITY_FILTERS = { type: 'type', payoutId: 'payout_id', sourceId: 'source_id' } as const;

export async function listBalanceTransactions(
  db: Executor,
  businessId: number,
  filters: BalanceTransactionFilters,
  page: PageRequest,
): Promise<Page<BalanceTransactionRecord>> {
  const set = (Object.keys(EQUALITY_FILTERS) as (keyof typeof EQUALITY_FILTERS)[]).filter((name) => filters[name] !== undefined);
  const dated = filters.createdBetween !== undefined;
  const available = filters.availableOnBetween !== undefined;
  // A payout or a source has few entries: its own index finds them, and sorting them is cheap. Any other
  // list filtered by available days comes in that order, out of an index that holds it: in creation
  // order a range of days meant sorting every entry in it (a year's: the whole ledger).
  const narrow = set.find((name) => name !== 'type');
  const index = narrow
    ? `balance_transactions_${EQUALITY_FILTERS[narrow]}_page_index`
    : available
      ? filters.type !== undefined
        ? 'balance_transactions_type_available_on_page_index'
        : 'balance_transactions_available_on_page_index'
      : filters.type !== undefined
        ? 'balance_transactions_type_page_index'
        : 'balance_transactions_page_index';
  type Param = 'businessId' | 'type' | 'payoutId' | 'sourceId' | 'createdFrom' | 'createdTo' | 'availableFrom' | 'availableTo';
  return fetchFixedPage<BalanceTransactionRecord, Param>(
    db,
    `balance transactions list ${set.join(',')}${dated ? ' dated' : ''}${available ? ' available' : ''}`,
    (_sql, param) => {
      const query = listedThrough(db, 'balance_transactions', index)
        .where({ business_id: param('businessId') })
        .select(COLUMNS);
      for (const name of set) query.where(EQUALITY_FILTERS[name], param(name));
      if (dated) query.where('created_at', '>=', param('createdFrom')).andWhere('created_at', '<=', param('createdTo'));
      if (available) query.where('available_on', '>=', param('availableFrom')).andWhere('available_on', '<=', param('availableTo'));
      return query;
    },
    {
      businessId,
      type: filters.type,
      payoutId: filters.payoutId,
      sourceId: filters.sourceId,
      createdFrom: filters.createdBetween?.start,
      createdTo: filters.createdBetween?.end,
      availableFrom: filters.availableOnBetween?.from,
      availableTo: filters.availableOnBetween?.to,
    },
    page,
    toRecord,
    undefined,
    available ? 'available_on' : undefined,
  );
}

export interface BalanceSum {
  currency: string;
  /** Sen. */
  amount: number;
}

/** What is not yet paid out, by currency: available (on or before `today`) and pending (after it). */
export async function unpaidBalance(db: Executor, businessId: number, today: string): Promise<{ available: BalanceSum[]; pending: BalanceSum[] }> {
  const rows = await db.all<{ currency: string; available: number | string | null; pending: number | string | null }>(
    db
      .sql('balance_transactions')
      .where({ business_id: businessId })
      .whereNull('payout_id')
      .groupBy('currency')
      .orderBy('currency')
      .select('currency')
      .select(db.sql.raw('sum(case when available_on <= ? then net else 0 end) as available', [today]))
      .select(db.sql.raw('sum(case when available_on > ? then net else 0 end) as pending', [today])),
  );
  return {
    available: rows.map((row) => ({ currency: row.currency, amount: Number(row.available ?? 0) })),
    pending: rows.map((row) => ({ currency: row.currency, amount: Number(row.pending ?? 0) })),
  };
}

/** Entries available on or before `asOf` that no payout took yet, in one currency. */
export async function unpaidAvailableEntries(db: Executor, businessId: number, currency: string, asOf: string): Promise<{ ids: string[]; net: number }> {
  const rows = await db.all<{ _id: string; net: number | string }>(
    db
      .sql('balance_transactions')
      .where({ business_id: businessId, currency })
      .whereNull('payout_id')
      .andWhere('available_on', '<=', asOf)
      .select('_id', 'net'),
  );
  return { ids: rows.map((row) => row._id), net: rows.reduce((sum, row) => sum + Number(row.net), 0) };
}

/** Currencies a business has entries in that no payout took yet. */
export async function unpaidCurrencies(db: Executor, businessId: number): Promise<string[]> {
  const rows = await db.all<{ currency: string }>(
    db.sql('balance_transactions').where({ business_id: businessId }).whereNull('payout_id').distinct('currency').orderBy('currency'),
  );
  return rows.map((row) => row.currency);
}

/** Gives entries to a payout; only those no payout took meanwhile. Answers how many it took. */
export async function assignToPayout(db: Executor, ids: readonly string[], payoutId: string): Promise<number> {
  let taken = 0;
  // In chunks, under SQLite's limit of bound parameters.
  for (let from = 0; from < ids.length; from += 500) {
    taken += await db.run(
      db
        .sql('balance_transactions')
        .whereIn('_id', ids.slice(from, from + 500))
        .whereNull('payout_id')
        .update({ payout_id: payoutId }),
    );
  }
  return taken;
}

/** What a payout's items add up to: its entries other than the payout's own. */
export async function payoutItemsSum(db: Executor, payoutId: string): Promise<{ net: number; count: number }> {
  const row = await db.first<{ net: number | string | null; count: number | string }>(
    db.sql('balance_transactions').where({ payout_id: payoutId }).whereNot({ type: 'payout' }).select(db.sql.raw('sum(net) as net, count(*) as count')),
  );
  return { net: Number(row?.net ?? 0), count: Number(row?.count ?? 0) };
}

/** The daily sums of a business's days `from`..`to` (both included) by type, and the net of every day before `from` and up to `to`. */
export async function sumsBetweenDays(
  db: Executor,
  businessId: number,
  currency: string,
  from: string,
  to: string,
): Promise<{ opening: number; closing: number; byType: Map<BalanceTransactionType, { amount: number; fee: number; net: number; count: number }> }> {
  const netWhere = async (where: (query: ReturnType<Executor['sql']>) => unknown) => {
    const query = db.sql('balance_daily_sums').where({ business_id: businessId, currency }).select(db.sql.raw('sum(net) as net'));
    where(query);
    return Number((await db.first<{ net: number | string | null }>(query))?.net ?? 0);
  };
  const rows = await db.all<{ type: BalanceTransactionType; amount: number | string; fee: number | string; net: number | string; count: number | string }>(
    db
      .sql('balance_daily_sums')
      .where({ business_id: businessId, currency })
      .andWhere('day', '>=', from)
      .andWhere('day', '<=', to)
      .groupBy('type')
      .select('type', db.sql.raw('sum(amount) as amount, sum(fee) as fee, sum(net) as net, sum(count) as count')),
  );
  return {
    opening: await netWhere((query) => query.andWhere('day', '<', from)),
    closing: await netWhere((query) => query.andWhere('day', '<=', to)),
    byType: new Map(rows.map((row) => [row.type, { amount: Number(row.amount), fee: Number(row.fee), net: Number(row.net), count: Number(row.count) }])),
  };
}

/** Every currency a business has entries in. */
export async function ledgerCurrencies(db: Executor, businessId: number): Promise<string[]> {
  const rows = await db.all<{ currency: string }>(db.sql('balance_daily_sums').where({ business_id: businessId }).distinct('currency').orderBy('currency'));
  return rows.map((row) => row.currency);
}

/** Businesses with entries available by `asOf` (a local day, give or take a zone) that no payout took yet. */
export async function businessesWithAvailableFunds(db: Executor, asOf: string, limit: number): Promise<number[]> {
  const rows = await db.all<{ business_id: number | string }>(
    listedThrough(db, 'balance_transactions', 'balance_transactions_unpaid_by_day_index')
      .whereNull('payout_id')
      .andWhere('available_on', '<=', asOf)
      .distinct('business_id')
      .orderBy('business_id')
      .limit(limit),
  );
  return rows.map((row) => Number(row.business_id));
}

/** A business's entry of one type by the acquirer's reference of the movement (an adjustment synced from the acquirer). */
export async function findEntryByAcquirerReference(
  db: Executor,
  businessId: number,
  type: BalanceTransactionType,
  acquirerReference: string,
): Promise<BalanceTransactionRecord | undefined> {
  const row = await db.first<BalanceTransactionRecord>(
    db.sql('balance_transactions').select(COLUMNS).where({ business_id: businessId, type, acquirer_reference: acquirerReference }),
  );
  return row ? toRecord(row) : undefined;
}
