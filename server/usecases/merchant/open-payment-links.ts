// Open payment links: reusable links where any payer pays at least a minimum amount, and the reports
// of what they collected.
import { isId } from '../../domain/ids.js';
import type { DateRange } from '../../domain/time.js';
import * as store from '../../store/open-payment-links.js';
import type { OpenLinkChange, OpenPaymentLinkFields, OpenPaymentLinkFilters, OpenPaymentLinkRecord } from '../../store/open-payment-links.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import { collectionTotals, recentCollections, topCollections, type CollectionRecord, type CollectionTotals } from '../../store/open-link-collections.js';
import type { UseCaseContext } from '../platform/context.js';

export type { CollectionRecord, OpenLinkChange, OpenPaymentLinkFields, OpenPaymentLinkFilters, OpenPaymentLinkRecord };

export async function createOpenPaymentLink(ctx: UseCaseContext, businessId: number, fields: OpenPaymentLinkFields): Promise<OpenPaymentLinkRecord> {
  return store.insertOpenPaymentLink(ctx.db, businessId, fields);
}

export async function getOpenPaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<OpenPaymentLinkRecord | undefined> {
  return isId(id) ? store.findOpenPaymentLink(ctx.db, businessId, id) : undefined;
}

export async function updateOpenPaymentLink(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
  fields: OpenPaymentLinkFields,
): Promise<OpenPaymentLinkRecord | undefined> {
  return isId(id) ? store.updateOpenPaymentLink(ctx.db, businessId, id, fields) : undefined;
}

export async function deleteOpenPaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<OpenPaymentLinkRecord | undefined> {
  return isId(id) ? store.deleteOpenPaymentLink(ctx.db, businessId, id) : undefined;
}

export async function listOpenPaymentLinks(
  ctx: UseCaseContext,
  businessId: number,
  filters: OpenPaymentLinkFilters,
  page: PageRequest,
): Promise<Page<OpenPaymentLinkRecord>> {
  return store.listOpenPaymentLinks(ctx.db, businessId, filters, page);
}

export interface TotalCollection {
  link: OpenPaymentLinkRecord;
  totals: CollectionTotals;
  /** The most recent collections, when asked for. */
  recent: CollectionRecord[] | undefined;
}

export async function totalCollection(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
  range: DateRange | undefined,
  recentLimit: number | undefined,
): Promise<TotalCollection | undefined> {
  const link = await getOpenPaymentLink(ctx, businessId, id);
  if (!link) return undefined;
  const totals = await collectionTotals(ctx.db, link._id, range);
  const recent = recentLimit === undefined ? undefined : await recentCollections(ctx.db, link._id, recentLimit, range);
  return { link, totals, recent };
}

export async function topCollection(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
  range: DateRange | undefined,
  limit: number,
): Promise<{ link: OpenPaymentLinkRecord; top: CollectionRecord[] } | undefined> {
  const link = await getOpenPaymentLink(ctx, businessId, id);
  if (!link) return undefined;
  return { link, top: await topCollections(ctx.db, link._id, limit, range) };
}

export async function pauseOpenPaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<OpenLinkChange> {
  return isId(id) ? store.pauseOpenPaymentLink(ctx.db, businessId, id) : { outcome: 'missing' };
}

export async function resumeOpenPaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<OpenLinkChange> {
  return isId(id) ? store.resumeOpenPaymentLink(ctx.db, businessId, id) : { outcome: 'missing' };
}
