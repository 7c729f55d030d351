// What a business reads of its money: the balance, the ledger's entries, its payouts and their
// itemized reports, and the balance report over a range of its days.
import { isId } from '../../domain/ids.js';
import { localDay } from '../../domain/local-days.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import { addDays, daysIn } from '../../domain/report-intervals.js';
import {
  findBalanceTransaction,
  ledgerCurrencies,
  listBalanceTransactions as storedEntries,
  sumsBetweenDays,
  unpaidBalance,
  type BalanceSum,
  type BalanceTransactionFilters,
  type BalanceTransactionRecord,
  type BalanceTransactionType,
} from '../../store/balance-transactions.js';
import { findBusinessTimeZone } from '../../store/business-profile.js';
import { payoutReportRows, type PayoutReportRow } from '../../store/payout-report.js';
import { findPayout, listPayouts as storedPayouts, type PayoutFilters, type PayoutRecord } from '../../store/payouts.js';
import { DEFAULT_TIME_ZONE } from '../../domain/local-days.js';
import type { UseCaseContext } from '../platform/context.js';

export type { BalanceTransactionRecord, PayoutRecord, PayoutReportRow, BalanceTransactionFilters, PayoutFilters };

async function zoneOf(ctx: UseCaseContext, businessId: number): Promise<string> {
  return (await findBusinessTimeZone(ctx.db, businessId)) ?? DEFAULT_TIME_ZONE;
}

export interface BusinessBalance {
  available: BalanceSum[];
  pending: BalanceSum[];
  today: string;
  timeZone: string;
}

export async function getBalance(ctx: UseCaseContext, businessId: number, now: Date = new Date()): Promise<BusinessBalance> {
  const timeZone = await zoneOf(ctx, businessId);
  const today = localDay(now, timeZone);
  return { ...(await unpaidBalance(ctx.db, businessId, today)), today, timeZone };
}

/** An entry as the API shows it: its status is `available` from its day on, in the business's time zone. */
export interface PresentableEntry extends BalanceTransactionRecord {
  status: 'pending' | 'available';
}

function withStatus(entry: BalanceTransactionRecord, today: string): PresentableEntry {
  return { ...entry, status: entry.available_on <= today ? 'available' : 'pending' };
}

export async function listBalanceTransactions(
  ctx: UseCaseContext,
  businessId: number,
  filters: BalanceTransactionFilters,
  page: PageRequest,
): Promise<Page<PresentableEntry>> {
  const today = localDay(new Date(), await zoneOf(ctx, businessId));
  const found = await storedEntries(ctx.db, businessId, filters, page);
  return { ...found, rows: found.rows.map((entry) => withStatus(entry, today)) };
}

export async function getBalanceTransaction(ctx: UseCaseContext, businessId: number, id: string): Promise<PresentableEntry | undefined> {
  const entry = isId(id) ? await findBalanceTransaction(ctx.db, businessId, id) : undefined;
  return entry && withStatus(entry, localDay(new Date(), await zoneOf(ctx, businessId)));
}

export async function listPayouts(ctx: UseCaseContext, businessId: number, filters: PayoutFilters, page: PageRequest): Promise<Page<PayoutRecord>> {
  return storedPayouts(ctx.db, businessId, filters, page);
}

export async function getPayout(ctx: UseCaseContext, businessId: number, id: string): Promise<PayoutRecord | undefined> {
  return isId(id) ? findPayout(ctx.db, businessId, id) : undefined;
}

const REPORT_BATCH = 1_000;

/** A payout's entries with their payments, read a batch at a time as the report is sent, and the zone its days are in. */
export async function payoutReport(ctx: UseCaseContext, payout: PayoutRecord): Promise<{ timeZone: string; rows: AsyncGenerator<PayoutReportRow> }> {
  return { timeZone: await zoneOf(ctx, payout.business_id), rows: payoutRows(ctx, payout) };
}

async function* payoutRows(ctx: UseCaseContext, payout: PayoutRecord): AsyncGenerator<PayoutReportRow> {
  let after: { created_at: string; _id: string } | null = null;
  for (;;) {
    const rows = await payoutReportRows(ctx.db, payout._id, after, REPORT_BATCH);
    yield* rows;
    if (rows.length < REPORT_BATCH) return;
    const last = rows[rows.length - 1]!;
    after = { created_at: last.created_at, _id: last._id };
  }
}

export const REPORT_DAYS_AT_MOST = 366;
const TYPES: readonly BalanceTransactionType[] = ['charge', 'refund', 'refund_failure', 'adjustment', 'payout', 'payout_failure'];

export interface BalanceReport {
  timeZone: string;
  from: string;
  to: string;
  currencies: {
    currency: string;
    opening: number;
    movements: { type: BalanceTransactionType; count: number; amount: number; fee: number; net: number }[];
    closing: number;
    balanced: boolean;
    difference: number;
  }[];
}

export type BalanceReportOutcome = { result: 'report'; report: BalanceReport } | { result: 'too_long'; message: string };

/**
 * Opening balance, movements by type and closing balance over the business's days `from`..`to`,
 * from the ledger's daily sums (kept with each entry, so the report reads days, not entries); the
 * closing balance is summed on its own and checked against the opening plus the movements.
 */
export async function balanceReport(ctx: UseCaseContext, businessId: number, range: { from: string; to: string } | undefined): Promise<BalanceReportOutcome> {
  const timeZone = await zoneOf(ctx, businessId);
  const today = localDay(new Date(), timeZone);
  const { from, to } = range ?? { from: addDays(today, -29), to: today };
  if (daysIn(from, to) > REPORT_DAYS_AT_MOST)
    return { result: 'too_long', message: `The filter.date between must not span more than ${REPORT_DAYS_AT_MOST} days.` };
  const currencies = await ledgerCurrencies(ctx.db, businessId);
  const report: BalanceReport = { timeZone, from, to, currencies: [] };
  for (const currency of currencies) {
    const sums = await sumsBetweenDays(ctx.db, businessId, currency, from, to);
    const movements = TYPES.flatMap((type) => {
      const byType = sums.byType.get(type);
      return byType ? [{ type, ...byType }] : [];
    });
    const moved = movements.reduce((sum, movement) => sum + movement.net, 0);
    report.currencies.push({
      currency,
      opening: sums.opening,
      movements,
      closing: sums.closing,
      balanced: sums.closing === sums.opening + moved,
      difference: sums.closing - (sums.opening + moved),
    });
  }
  return { result: 'report', report };
}
