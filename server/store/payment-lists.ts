// A business's payments, page by page: GET /api/payments and its filters.
import type { Knex } from 'knex';
import type { DateRange } from '../domain/time.js';
import { OPEN_LINK_PAYMENT_COUNTS, PAYMENT_COUNTS } from './counters/declaration.js';
import { countOf } from './record-counts.js';
import type { Executor } from './executor.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { fetchPage, listedThrough, whereCreatedBetween } from './pagination.js';
import { toPayment, type PaymentRecord } from './payments.js';
import type { Search } from '../domain/search-terms.js';
import { readThroughSearch, rowidsFound, textSearchValue, whereTextFound } from './text-search.js';

/** `GET /api/payments` filters, all combined; each an exact match but the search (text-search.ts). */
export interface PaymentFilters {
  search?: Search;
  status?: { statusId: number; refundState: number };
  paymentLinkId?: string;
  tokenizationId?: string;
  reference?: string;
  openPaymentLinkId?: string;
  method?: string;
  payerEmail?: string;
  cardLast4?: string;
  createdBetween?: DateRange;
}

const SEARCH_LEADS = 'the search index';

/** The filters that match few payments, each with its index, the likeliest to match fewest first. */
const SELECTIVE: [keyof PaymentFilters, string][] = [
  ['paymentLinkId', 'payments_payment_link_id_page_index'],
  ['tokenizationId', 'payments_tokenization_id_page_index'],
  ['reference', 'payments_reference_page_index'],
  ['payerEmail', 'payments_payer_email_page_index'],
  // One card's payments, though a card a business's payers share (a test card) has many.
  ['cardLast4', 'payments_card_last4_page_index'],
  // Read from the rows the search index finds (text-search.ts), which a common word makes many.
  ['search', SEARCH_LEADS],
  // A busy open link has many.
  ['openPaymentLinkId', 'payments_open_payment_link_id_page_index'],
];

/** The index a list with these filters reads through (see listedThrough): the first selective filter's, else status and method's. */
function indexFor(filters: PaymentFilters): string {
  const selective = SELECTIVE.find(([filter]) => filters[filter] !== undefined);
  if (selective) return selective[1];
  if (filters.status !== undefined && filters.method !== undefined) return 'payments_status_method_page_index';
  if (filters.status !== undefined) return 'payments_status_page_index';
  if (filters.method !== undefined) return 'payments_method_page_index';
  return 'payments_page_index';
}

export function paymentsMatching(db: Executor, businessId: number, filters: PaymentFilters) {
  const index = indexFor(filters);
  const query = (index === SEARCH_LEADS ? readThroughSearch(db, 'payments') : listedThrough(db, 'payments', index)).where({ business_id: businessId });
  if (filters.search !== undefined) whereSearched(db, query, businessId, filters.search);
  if (filters.status !== undefined) query.where({ status_id: filters.status.statusId, refund_state: filters.status.refundState });
  if (filters.tokenizationId !== undefined) query.where('tokenization_id', filters.tokenizationId);
  if (filters.reference !== undefined) query.where('reference', filters.reference);
  if (filters.paymentLinkId !== undefined) query.where('payment_link_id', filters.paymentLinkId);
  if (filters.openPaymentLinkId !== undefined) query.where('open_payment_link_id', filters.openPaymentLinkId);
  if (filters.method !== undefined) query.where('method', filters.method);
  if (filters.payerEmail !== undefined) query.where('payer_email', filters.payerEmail);
  if (filters.cardLast4 !== undefined) query.where('card_last4', filters.cardLast4);
  return whereCreatedBetween(query, filters.createdBetween);
}

/**
 * The payments a search finds: those whose payer's e-mail or name or whose reference holds its text,
 * and those of its amount (`payments_amount_page_index`). On SQLite both are sets of rowids, read
 * from the search index and the amount's index; on PostgreSQL one OR that a bitmap scan of the
 * trigram indexes and the amount's index serves.
 */
function whereSearched(db: Executor, query: Knex.QueryBuilder, businessId: number, search: Search): void {
  const amount = search.amount === undefined ? undefined : Number(search.amount);
  const text = search.text === undefined ? undefined : textSearchValue(db.dialect, search.text);
  if (text === undefined && amount === undefined) {
    // A term that reads as neither ("0", "00": too short for text, and nothing is paid of 0 sen) finds nothing.
    query.whereRaw('1 = 0');
    return;
  }
  if (db.dialect === 'sqlite') {
    const ofAmount = db.sql.select('rowid').from(db.sql.raw('payments indexed by payments_amount_page_index')).where({ business_id: businessId, amount });
    const found = text === undefined ? undefined : rowidsFound(db.sql, 'payments', text);
    if (found && amount !== undefined) query.whereIn('payments.rowid', found.unionAll(ofAmount));
    else query.whereIn('payments.rowid', found ?? ofAmount);
    return;
  }
  query.where((any) => {
    if (text !== undefined) whereTextFound(db.dialect, db.sql, any, 'payments', text);
    if (amount !== undefined) any.orWhere({ business_id: businessId, amount });
  });
}

/** A page of a business's payments; every combination of filters is served by an index that starts with business_id (`migrations/0011_payment_filters.ts`, `0012_refunds_and_charges.ts`, `0029_status_method_index.ts`, `0037_card_last4_index.ts`), a search by the search indexes (`0048_text_search.ts`). */
export async function listPayments(db: Executor, businessId: number, filters: PaymentFilters, page: PageRequest): Promise<Page<PaymentRecord>> {
  return fetchPage(db, paymentsMatching(db, businessId, filters), page, toPayment, await knownTotal(db, businessId, filters));
}

/**
 * The total of a list that the counters already know (counters/declaration.ts): unfiltered, or
 * filtered by status, method and dates only, filters that can match most of a business's payments,
 * and the same for one open link's payments, all of which a busy link's filter matches. The others
 * are selective: their matches are counted through their own indexes.
 */
async function knownTotal(db: Executor, businessId: number, filters: PaymentFilters): Promise<number | undefined> {
  const { status, method, createdBetween, openPaymentLinkId, ...selective } = filters;
  if (Object.values(selective).some((value) => value !== undefined)) return undefined;
  const match = { status_id: status?.statusId, refund_state: status?.refundState, method };
  if (openPaymentLinkId === undefined) return countOf(db, PAYMENT_COUNTS, businessId, match, createdBetween);
  return countOf(db, OPEN_LINK_PAYMENT_COUNTS, businessId, { ...match, open_payment_link_id: openPaymentLinkId }, createdBetween);
}
