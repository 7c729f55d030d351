import type { Knex } from 'knex';
import type { Locale } from '../domain/locales.js';
import type { DateRange } from '../domain/time.js';
import { newId } from '../domain/ids.js';
import { fixedQuery, type Executor } from './executor.js';
import { notExpiredAt } from './expiry.js';
import { fetchFixedPage, listedThrough } from './pagination.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { PAYMENT_LINK_COUNTS } from './counters/declaration.js';
import { countOf } from './record-counts.js';
import { nowIso, toIsoMicros } from './timestamps.js';
import { readThroughSearch, textSearchValue, whereTextFound } from './text-search.js';

/**
 * `Paused` by the merchant, `Expired` once its `expires_at` has passed while it was `Active`; only an
 * `Active` link can be paid. A pause outlives the expiry: a paused link stays `Paused` (and is not
 * announced as expired), and cannot be resumed until a PUT gives it a later `expires_at`.
 */
export type PaymentLinkStatus = 'Active' | 'Paid' | 'Paused' | 'Expired';

/** What a merchant writes: copied field by field from a validated body, never spread from it. */
export interface PaymentLinkFields {
  email: string;
  phone_no: string | null;
  currency: string;
  /** Cents. */
  amount: number;
  title: string;
  description: string | null;
  redirect_url: string | null;
  reference: string | null;
  reference_2: string | null;
  /** After this instant the link takes no payment; null: never. */
  expires_at: string | null;
  /** The language its payer is expected to read; null: the business's default. */
  locale: Locale | null;
}

export interface PaymentLinkRecord extends PaymentLinkFields {
  _id: string;
  business_id: number;
  status: PaymentLinkStatus;
  paid: boolean;
  created_at: string;
  updated_at: string;
}

export interface PaymentLinkFilters {
  status?: PaymentLinkStatus;
  reference?: string;
  reference_2?: string;
  email?: string;
  /** Part of the title, any case (text-search.ts). */
  title?: string;
  createdBetween?: DateRange;
}

const TABLE = 'payment_links';
const COLUMNS = [
  '_id',
  'business_id',
  'email',
  'phone_no',
  'currency',
  'amount',
  'title',
  'description',
  'redirect_url',
  'reference',
  'reference_2',
  'status',
  'paid',
  'expires_at',
  'locale',
  'created_at',
  'updated_at',
];

/** Whether an expiry instant has passed. */
export function hasExpired(expiresAt: string | null, now = Date.now()): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now;
}

function toRecord(row: PaymentLinkRecord): PaymentLinkRecord {
  const expiresAt = row.expires_at === null || row.expires_at === undefined ? null : toIsoMicros(row.expires_at);
  // Between its expiry and the sweep that marks it, a link already reads as what it is.
  const lapsed = row.status === 'Active' && hasExpired(expiresAt);
  return {
    ...row,
    business_id: Number(row.business_id),
    amount: Number(row.amount),
    paid: Boolean(row.paid),
    expires_at: expiresAt,
    locale: row.locale ?? null,
    status: lapsed ? 'Expired' : row.status,
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

function live(db: Executor, businessId: number) {
  return db.sql(TABLE).where({ business_id: businessId }).whereNull('deleted_at');
}

/** The columns an insert binds per call; a new link is always Active and unpaid. */
const INSERTED = COLUMNS.filter((column) => column !== 'status' && column !== 'paid') as (keyof PaymentLinkRecord)[];

export async function insertPaymentLink(db: Executor, businessId: number, fields: PaymentLinkFields): Promise<PaymentLinkRecord> {
  const now = nowIso();
  const row: PaymentLinkRecord = { _id: newId(), business_id: businessId, ...fields, status: 'Active', paid: false, created_at: now, updated_at: now };
  await db.run(
    fixedQuery(
      db,
      'payment_links insert',
      (sql, param) => sql(TABLE).insert({ ...Object.fromEntries(INSERTED.map((column) => [column, param(column)])), status: 'Active', paid: false }),
      row,
    ),
  );
  return toRecord(row);
}

export async function findPaymentLink(db: Executor, businessId: number, id: string): Promise<PaymentLinkRecord | undefined> {
  const row = await db.first<PaymentLinkRecord>(
    fixedQuery(
      db,
      'payment_links by id',
      (sql, param) =>
        sql(TABLE)
          .where({ business_id: param('businessId') })
          .whereNull('deleted_at')
          .select(COLUMNS)
          .where({ _id: param('id') }),
      { businessId, id },
    ),
  );
  return row ? toRecord(row) : undefined;
}

export type ChangeResult = { outcome: 'changed'; record: PaymentLinkRecord } | { outcome: 'paid' } | { outcome: 'missing' };

/** Tells a paid link (409) from one that is not there (404) after a guarded write changed nothing. */
async function whyUnchanged(db: Executor, businessId: number, id: string): Promise<ChangeResult> {
  const current = await findPaymentLink(db, businessId, id);
  return current?.paid ? { outcome: 'paid' } : { outcome: 'missing' };
}

/** Replaces the writable fields of an unpaid link; the `paid = false` guard makes it safe against a racing payment. */
export async function updatePaymentLink(db: Executor, businessId: number, id: string, fields: PaymentLinkFields): Promise<ChangeResult> {
  const [row] = await db.all<PaymentLinkRecord>(
    live(db, businessId)
      .where({ _id: id, paid: false })
      // New fields, whose expires_at (validated) is in the future or absent, give an expired link a new
      // life; a paused one stays paused.
      .update({ ...fields, status: db.sql.raw(`case when status = 'Expired' then 'Active' else status end`), updated_at: nowIso() })
      .returning(COLUMNS),
  );
  return row ? { outcome: 'changed', record: toRecord(row) } : whyUnchanged(db, businessId, id);
}

export type PauseResult = ChangeResult | { outcome: 'expired'; record: PaymentLinkRecord };

/** Active to Paused (a paused link stays paused); a paid or expired link is not changed. */
export async function pausePaymentLink(db: Executor, businessId: number, id: string): Promise<PauseResult> {
  return moveStatus(db, businessId, id, 'Active', 'Paused');
}

/** Paused to Active, unless its expires_at has passed meanwhile (it stays paused); an active link stays active. */
export async function resumePaymentLink(db: Executor, businessId: number, id: string): Promise<PauseResult> {
  return moveStatus(db, businessId, id, 'Paused', 'Active');
}

async function moveStatus(db: Executor, businessId: number, id: string, from: PaymentLinkStatus, to: PaymentLinkStatus): Promise<PauseResult> {
  const [row] = await db.all<PaymentLinkRecord>(
    live(db, businessId).where({ _id: id, status: from }).modify(notExpiredAt, nowIso()).update({ status: to, updated_at: nowIso() }).returning(COLUMNS),
  );
  if (row) return { outcome: 'changed', record: toRecord(row) };
  return currentFor(db, businessId, id, to);
}

/** Why a pause or resume changed nothing: already there (answered as done), paid, expired or missing. */
async function currentFor(db: Executor, businessId: number, id: string, wanted: PaymentLinkStatus): Promise<PauseResult> {
  const current = await findPaymentLink(db, businessId, id);
  if (!current) return { outcome: 'missing' };
  if (current.status === wanted) return { outcome: 'changed', record: current };
  if (current.paid) return { outcome: 'paid' };
  return { outcome: 'expired', record: current };
}

/**
 * Marks active links whose expiry has passed `Expired`, at most `limit` of them, and answers them;
 * the caller announces each in the same transaction. A paused link is left paused.
 */
export async function expireDuePaymentLinks(db: Executor, limit: number): Promise<PaymentLinkRecord[]> {
  const now = nowIso();
  // The due ids first, then the update by id: an UPDATE ... WHERE _id IN (subquery) read every live link's
  // row on SQLite (its planner walked the status index for the outer statement), a stall at a million links.
  const due = await db.all<{ _id: string }>(
    db.sql(TABLE).select('_id').where('status', 'Active').where('expires_at', '<=', now).whereNull('deleted_at').limit(limit),
  );
  if (due.length === 0) return [];
  const rows = await db.all<PaymentLinkRecord>(
    db
      .sql(TABLE)
      .whereIn(
        '_id',
        due.map((row) => row._id),
      )
      .where('status', 'Active')
      .update({ status: 'Expired', updated_at: now })
      .returning(COLUMNS),
  );
  return rows.map(toRecord);
}

/** Soft-deletes an unpaid link and returns it as it was. */
export async function deletePaymentLink(db: Executor, businessId: number, id: string): Promise<ChangeResult> {
  const [row] = await db.all<PaymentLinkRecord>(live(db, businessId).where({ _id: id, paid: false }).update({ deleted_at: nowIso() }).returning(COLUMNS));
  return row ? { outcome: 'changed', record: toRecord(row) } : whyUnchanged(db, businessId, id);
}

const TEXT_AND_STATUS_FILTERS = ['reference', 'reference_2', 'email', 'status'] as const;

/** The table a list reads: through the index of its first exact filter, else from the links a title search finds, else through status's or the list's order. */
function listedFrom(db: Executor, set: readonly (typeof TEXT_AND_STATUS_FILTERS)[number][], titled: boolean): Knex.QueryBuilder {
  const exact = set.find((name) => name !== 'status');
  if (exact === undefined && titled) return readThroughSearch(db, TABLE);
  const leading = exact ?? set[0];
  return listedThrough(db, TABLE, leading ? `${TABLE}_${leading}_page_index` : `${TABLE}_business_id_created_at__id_index`);
}

export async function listPaymentLinks(db: Executor, businessId: number, filters: PaymentLinkFilters, page: PageRequest): Promise<Page<PaymentLinkRecord>> {
  const set = TEXT_AND_STATUS_FILTERS.filter((name) => filters[name] !== undefined);
  const dated = filters.createdBetween !== undefined;
  const titled = filters.title !== undefined;
  return fetchFixedPage(
    db,
    `payment_links list ${set.join(',')}${dated ? ' dated' : ''}${titled ? ' titled' : ''}`,
    (sql, param) => {
      const query = listedFrom(db, set, titled)
        .where({ business_id: param('businessId') })
        .whereNull('deleted_at')
        .select(COLUMNS);
      for (const name of set) query.where(name, param(name));
      if (dated) query.where('created_at', '>=', param('createdFrom')).andWhere('created_at', '<=', param('createdTo'));
      if (titled) whereTextFound(db.dialect, sql, query, TABLE, param('title'));
      return query;
    },
    {
      businessId,
      status: filters.status,
      reference: filters.reference,
      reference_2: filters.reference_2,
      email: filters.email,
      title: filters.title === undefined ? undefined : textSearchValue(db.dialect, filters.title),
      createdFrom: filters.createdBetween?.start,
      createdTo: filters.createdBetween?.end,
    },
    page,
    toRecord,
    await knownTotal(db, businessId, filters),
  );
}

/**
 * The total of a list that its counts already know: unfiltered, or filtered by status and dates only
 * (filters that can match most of a business's links). Text filters are selective: their matches
 * are counted through their own indexes.
 */
async function knownTotal(db: Executor, businessId: number, filters: PaymentLinkFilters): Promise<number | undefined> {
  if (filters.reference !== undefined || filters.reference_2 !== undefined || filters.email !== undefined || filters.title !== undefined) return undefined;
  return countOf(db, PAYMENT_LINK_COUNTS, businessId, { status: filters.status }, filters.createdBetween);
}

/** For the hosted page: any business's link, deleted ones included so the page can say so. */
export async function findPaymentLinkForPayer(db: Executor, id: string): Promise<(PaymentLinkRecord & { deleted: boolean }) | undefined> {
  const row = await db.first<PaymentLinkRecord & { deleted_at: string | null }>(
    db
      .sql(TABLE)
      .select([...COLUMNS, 'deleted_at'])
      .where({ _id: id }),
  );
  return row ? { ...toRecord(row), deleted: row.deleted_at !== null } : undefined;
}

/**
 * Marks a live, active, unexpired link paid. Returns false when another payment got there first, or
 * the link was paused or has expired: the guards make the update itself the arbiter.
 */
export async function claimPaymentLinkAsPaid(db: Executor, id: string, at: string = nowIso()): Promise<boolean> {
  const changed = await db.run(
    db
      .sql(TABLE)
      .where({ _id: id, paid: false, status: 'Active' })
      .whereNull('deleted_at')
      // Expiry is decided here, at the time the payment is recorded with: no payment lands after it.
      .modify(notExpiredAt, at)
      .update({ status: 'Paid', paid: true, updated_at: at }),
  );
  return changed === 1;
}
