import type { Knex } from 'knex';
import type { Locale } from '../domain/locales.js';
import type { DateRange } from '../domain/time.js';
import { OPEN_LINK_ACTIVE, OPEN_LINK_INACTIVE } from '../domain/statuses.js';
import { newId } from '../domain/ids.js';
import type { Executor } from './executor.js';
import { notExpiredAt } from './expiry.js';
import { fetchPage, listedThrough, whereCreatedBetween } from './pagination.js';
import { readThroughSearch, textSearchValue, whereTextFound } from './text-search.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { OPEN_PAYMENT_LINK_COUNTS } from './counters/declaration.js';
import { countOf } from './record-counts.js';
import { hasExpired } from './payment-links.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export interface OpenPaymentLinkFields {
  currency: string;
  /** Cents. */
  minimum_amount: number;
  title: string;
  description: string | null;
  redirect_url: string | null;
  reference: string | null;
  reference_2: string | null;
  /** After this instant the link takes no payment; null: never. */
  expires_at: string | null;
  /** The most payments the link takes; null: no limit. */
  max_payments: number | null;
  /** The language its payers are expected to read; null: the business's default. */
  locale: Locale | null;
}

/**
 * Why a link is or is not taking payments; `status_id` is 1 exactly when this is `active`. A pause
 * outlives the expiry and the limit: a paused link stays `paused` whatever its expires_at or
 * max_payments, and resuming it is refused while either would close it.
 */
export type OpenLinkState = 'active' | 'paused' | 'expired' | 'exhausted';

export interface OpenPaymentLinkRecord extends OpenPaymentLinkFields {
  _id: string;
  business_id: number;
  status_id: number;
  state: OpenLinkState;
  /** Successful payments so far. */
  payments_count: number;
  created_at: string;
  updated_at: string;
}

export interface OpenPaymentLinkFilters {
  active?: boolean;
  reference?: string;
  reference_2?: string;
  /** Part of the title, any case (text-search.ts). */
  title?: string;
  createdBetween?: DateRange;
}

const TABLE = 'open_payment_links';
const COLUMNS = [
  '_id',
  'business_id',
  'currency',
  'minimum_amount',
  'title',
  'description',
  'redirect_url',
  'reference',
  'reference_2',
  'status_id',
  'state',
  'expires_at',
  'max_payments',
  'payments_count',
  'locale',
  'created_at',
  'updated_at',
];

function toRecord(row: OpenPaymentLinkRecord): OpenPaymentLinkRecord {
  const expiresAt = row.expires_at === null || row.expires_at === undefined ? null : toIsoMicros(row.expires_at);
  // Between its expiry and the sweep that marks it, a link already reads as what it is.
  const lapsed = row.state === 'active' && hasExpired(expiresAt);
  const state = lapsed ? 'expired' : row.state;
  return {
    ...row,
    business_id: Number(row.business_id),
    minimum_amount: Number(row.minimum_amount),
    state,
    status_id: state === 'active' ? OPEN_LINK_ACTIVE : OPEN_LINK_INACTIVE,
    expires_at: expiresAt,
    max_payments: row.max_payments === null || row.max_payments === undefined ? null : Number(row.max_payments),
    payments_count: Number(row.payments_count),
    locale: row.locale ?? null,
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

function live(db: Executor, businessId: number) {
  return db.sql(TABLE).where({ business_id: businessId }).whereNull('deleted_at');
}

export async function insertOpenPaymentLink(db: Executor, businessId: number, fields: OpenPaymentLinkFields): Promise<OpenPaymentLinkRecord> {
  const now = nowIso();
  const row = {
    _id: newId(),
    business_id: businessId,
    ...fields,
    status_id: OPEN_LINK_ACTIVE,
    state: 'active' as const,
    payments_count: 0,
    created_at: now,
    updated_at: now,
  };
  await db.run(db.sql(TABLE).insert(row));
  return toRecord(row);
}

export async function findOpenPaymentLink(db: Executor, businessId: number, id: string): Promise<OpenPaymentLinkRecord | undefined> {
  const row = await db.first<OpenPaymentLinkRecord>(live(db, businessId).select(COLUMNS).where({ _id: id }));
  return row ? toRecord(row) : undefined;
}

/**
 * Replaces the writable fields. New fields can give an expired link a new life (its expires_at,
 * validated, is in the future or absent) and an exhausted one too (a higher max_payments), or
 * exhaust an active one (a max_payments it has reached); a paused link stays paused.
 */
export async function updateOpenPaymentLink(
  db: Executor,
  businessId: number,
  id: string,
  fields: OpenPaymentLinkFields,
): Promise<OpenPaymentLinkRecord | undefined> {
  const full = fields.max_payments === null ? db.sql.raw('false') : db.sql.raw('payments_count >= ?', [fields.max_payments]);
  const state = db.sql.raw(`case when state = 'paused' then 'paused' when ? then 'exhausted' else 'active' end`, [full]);
  const [row] = await db.all<OpenPaymentLinkRecord>(
    live(db, businessId)
      .where({ _id: id })
      .update({
        ...fields,
        state,
        status_id: db.sql.raw(`case when (?) = 'active' then ${OPEN_LINK_ACTIVE} else ${OPEN_LINK_INACTIVE} end`, [state]),
        updated_at: nowIso(),
      })
      .returning(COLUMNS),
  );
  return row ? toRecord(row) : undefined;
}

export type OpenLinkChange =
  | { outcome: 'changed'; record: OpenPaymentLinkRecord }
  | { outcome: 'refused'; reason: 'expired' | 'exhausted'; record: OpenPaymentLinkRecord }
  | { outcome: 'missing' };

/** Active to paused (a paused link stays paused); an expired or exhausted link is refused. */
export async function pauseOpenPaymentLink(db: Executor, businessId: number, id: string): Promise<OpenLinkChange> {
  return moveState(db, businessId, id, 'active', 'paused');
}

/** Paused to active, unless its expires_at has passed or it has taken max_payments (it stays paused); an active link stays active. */
export async function resumeOpenPaymentLink(db: Executor, businessId: number, id: string): Promise<OpenLinkChange> {
  return moveState(db, businessId, id, 'paused', 'active');
}

async function moveState(db: Executor, businessId: number, id: string, from: OpenLinkState, to: OpenLinkState): Promise<OpenLinkChange> {
  const [row] = await db.all<OpenPaymentLinkRecord>(
    live(db, businessId)
      .where({ _id: id, state: from })
      .modify(notExpiredAt, nowIso())
      .modify((query) => (to === 'active' ? notFull(db, query) : query))
      .update({ state: to, status_id: to === 'active' ? OPEN_LINK_ACTIVE : OPEN_LINK_INACTIVE, updated_at: nowIso() })
      .returning(COLUMNS),
  );
  if (row) return { outcome: 'changed', record: toRecord(row) };
  const current = await findOpenPaymentLink(db, businessId, id);
  if (!current) return { outcome: 'missing' };
  if (current.state === to) return { outcome: 'changed', record: current };
  // A paused link refused its resume before its expiry can only be full.
  const exhausted = current.state === 'exhausted' || (current.state === 'paused' && !hasExpired(current.expires_at));
  return { outcome: 'refused', reason: exhausted ? 'exhausted' : 'expired', record: current };
}

/** Rows of a link under its max_payments, or without one. */
function notFull(db: Executor, query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.andWhere((q) => q.whereNull('max_payments').orWhere('payments_count', '<', db.sql.ref('max_payments')));
}

/** Marks active open links whose expiry has passed expired, at most `limit` of them, and answers them; a paused link is left paused. */
export async function expireDueOpenPaymentLinks(db: Executor, limit: number): Promise<OpenPaymentLinkRecord[]> {
  const now = nowIso();
  // The due ids first, then the update by id, as expireDuePaymentLinks does and says why.
  const due = await db.all<{ _id: string }>(
    db.sql(TABLE).select('_id').where('state', 'active').where('expires_at', '<=', now).whereNull('deleted_at').limit(limit),
  );
  if (due.length === 0) return [];
  const rows = await db.all<OpenPaymentLinkRecord>(
    db
      .sql(TABLE)
      .whereIn(
        '_id',
        due.map((row) => row._id),
      )
      .where('state', 'active')
      .update({ state: 'expired', status_id: OPEN_LINK_INACTIVE, updated_at: now })
      .returning(COLUMNS),
  );
  return rows.map(toRecord);
}

/** Soft-deletes the link and returns it as it was; its payments stay for reporting. */
export async function deleteOpenPaymentLink(db: Executor, businessId: number, id: string): Promise<OpenPaymentLinkRecord | undefined> {
  const [row] = await db.all<OpenPaymentLinkRecord>(live(db, businessId).where({ _id: id }).update({ deleted_at: nowIso() }).returning(COLUMNS));
  return row ? toRecord(row) : undefined;
}

export async function listOpenPaymentLinks(
  db: Executor,
  businessId: number,
  filters: OpenPaymentLinkFilters,
  page: PageRequest,
): Promise<Page<OpenPaymentLinkRecord>> {
  const exact = (['reference', 'reference_2'] as const).find((name) => filters[name] !== undefined);
  const filter = exact ?? (filters.active !== undefined ? 'status_id' : undefined);
  const index = filter ? `${TABLE}_${filter}_page_index` : `${TABLE}_business_id_created_at__id_index`;
  // A title search leads unless an exact reference does (text-search.ts).
  const table = exact === undefined && filters.title !== undefined ? readThroughSearch(db, TABLE) : listedThrough(db, TABLE, index);
  const query = table.where({ business_id: businessId }).whereNull('deleted_at').select(COLUMNS);
  if (filters.title !== undefined) whereTextFound(db.dialect, db.sql, query, TABLE, textSearchValue(db.dialect, filters.title));
  if (filters.active !== undefined) query.where('status_id', filters.active ? OPEN_LINK_ACTIVE : OPEN_LINK_INACTIVE);
  if (filters.reference !== undefined) query.where('reference', filters.reference);
  if (filters.reference_2 !== undefined) query.where('reference_2', filters.reference_2);
  whereCreatedBetween(query, filters.createdBetween);
  return fetchPage(db, query, page, toRecord, await knownTotal(db, businessId, filters));
}

/** The total of a list that its counts already know (see payment-links.ts). */
async function knownTotal(db: Executor, businessId: number, filters: OpenPaymentLinkFilters): Promise<number | undefined> {
  if (filters.reference !== undefined || filters.reference_2 !== undefined || filters.title !== undefined) return undefined;
  const statusId = filters.active === undefined ? undefined : filters.active ? OPEN_LINK_ACTIVE : OPEN_LINK_INACTIVE;
  return countOf(db, OPEN_PAYMENT_LINK_COUNTS, businessId, { status_id: statusId }, filters.createdBetween);
}

/** For the hosted page: any business's link, deleted ones included so the page can say so. */
export async function findOpenPaymentLinkForPayer(db: Executor, id: string): Promise<(OpenPaymentLinkRecord & { deleted: boolean }) | undefined> {
  const row = await db.first<OpenPaymentLinkRecord & { deleted_at: string | null }>(
    db
      .sql(TABLE)
      .select([...COLUMNS, 'deleted_at'])
      .where({ _id: id }),
  );
  return row ? { ...toRecord(row), deleted: row.deleted_at !== null } : undefined;
}

/**
 * Counts one more payment on a link that can take it: live, active, unexpired, under its
 * max_payments. One guarded UPDATE in the transaction that records the payment decides, so
 * concurrent payers never pass the limit and none pays after the expiry; the payment that reaches
 * the limit closes the link (exhausted).
 */
export async function claimOpenPaymentLink(db: Executor, id: string, at: string = nowIso()): Promise<boolean> {
  const reachesLimit = 'max_payments is not null and payments_count + 1 >= max_payments';
  const changed = await db.run(
    db
      .sql(TABLE)
      .where({ _id: id, state: 'active' })
      .whereNull('deleted_at')
      .modify(notExpiredAt, at)
      .andWhere((q) => q.whereNull('max_payments').orWhere('payments_count', '<', db.sql.ref('max_payments')))
      .update({
        payments_count: db.sql.raw('payments_count + 1'),
        state: db.sql.raw(`case when ${reachesLimit} then 'exhausted' else state end`),
        status_id: db.sql.raw(`case when ${reachesLimit} then ${OPEN_LINK_INACTIVE} else status_id end`),
        // updated_at stays the merchant's last change: payments are counted, not a change to the link.
      }),
  );
  return changed === 1;
}
