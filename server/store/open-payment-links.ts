import type { DateRange } from '../domain/time.js';
import { OPEN_LINK_ACTIVE, OPEN_LINK_INACTIVE } from '../domain/statuses.js';
import { newId } from '../domain/ids.js';
import type { Executor } from './executor.js';
import { fetchPage, whereCreatedBetween, type Page, type PageRequest } from './pagination.js';
import { dailyCount, liveCount } from './record-counts.js';
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
}

export interface OpenPaymentLinkRecord extends OpenPaymentLinkFields {
  _id: string;
  business_id: number;
  status_id: number;
  created_at: string;
  updated_at: string;
}

export interface OpenPaymentLinkFilters {
  active?: boolean;
  reference?: string;
  reference_2?: string;
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
  'created_at',
  'updated_at',
];

function toRecord(row: OpenPaymentLinkRecord): OpenPaymentLinkRecord {
  return {
    ...row,
    business_id: Number(row.business_id),
    minimum_amount: Number(row.minimum_amount),
    status_id: Number(row.status_id),
    created_at: toIsoMicros(row.created_at),
    updated_at: toIsoMicros(row.updated_at),
  };
}

function live(db: Executor, businessId: number) {
  return db.sql(TABLE).where({ business_id: businessId }).whereNull('deleted_at');
}

export async function insertOpenPaymentLink(db: Executor, businessId: number, fields: OpenPaymentLinkFields): Promise<OpenPaymentLinkRecord> {
  const now = nowIso();
  const row = { _id: newId(), business_id: businessId, ...fields, status_id: OPEN_LINK_ACTIVE, created_at: now, updated_at: now };
  await db.run(db.sql(TABLE).insert(row));
  return toRecord(row);
}

export async function findOpenPaymentLink(db: Executor, businessId: number, id: string): Promise<OpenPaymentLinkRecord | undefined> {
  const row = await db.first<OpenPaymentLinkRecord>(live(db, businessId).select(COLUMNS).where({ _id: id }));
  return row ? toRecord(row) : undefined;
}

export async function updateOpenPaymentLink(
  db: Executor,
  businessId: number,
  id: string,
  fields: OpenPaymentLinkFields,
): Promise<OpenPaymentLinkRecord | undefined> {
  const [row] = await db.all<OpenPaymentLinkRecord>(
    live(db, businessId)
      .where({ _id: id })
      .update({ ...fields, updated_at: nowIso() })
      .returning(COLUMNS),
  );
  return row ? toRecord(row) : undefined;
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
  const query = live(db, businessId).select(COLUMNS);
  if (filters.active !== undefined) query.where('status_id', filters.active ? OPEN_LINK_ACTIVE : OPEN_LINK_INACTIVE);
  if (filters.reference !== undefined) query.where('reference', filters.reference);
  if (filters.reference_2 !== undefined) query.where('reference_2', filters.reference_2);
  whereCreatedBetween(query, filters.createdBetween);
  return fetchPage(db, query, page, toRecord, await knownTotal(db, businessId, filters));
}

/** The total of a list that its counts already know (see payment-links.ts). */
async function knownTotal(db: Executor, businessId: number, filters: OpenPaymentLinkFilters): Promise<number | undefined> {
  if (filters.reference !== undefined || filters.reference_2 !== undefined) return undefined;
  if (filters.active === undefined && filters.createdBetween === undefined) return liveCount(db, businessId, 'open_payment_links');
  const statuses = filters.active === undefined ? [OPEN_LINK_ACTIVE, OPEN_LINK_INACTIVE] : [filters.active ? OPEN_LINK_ACTIVE : OPEN_LINK_INACTIVE];
  return dailyCount(db, businessId, 'open_payment_links', statuses.map(String), filters.createdBetween);
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

export async function isOpenPaymentLinkPayable(db: Executor, id: string): Promise<boolean> {
  const row = await db.first(db.sql(TABLE).select('_id').where({ _id: id, status_id: OPEN_LINK_ACTIVE }).whereNull('deleted_at'));
  return Boolean(row);
}
