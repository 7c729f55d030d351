// Payouts: the list, one payout, the ledger entries (balance transactions) it took, and one entry.
import { queryOptions } from '@tanstack/react-query';
import { $api, api } from '../api/client.js';
import type { LedgerEntry } from '../lib/payouts.js';
import { everyQueryOf, type GetQuery } from './keys.js';

export type PayoutsQuery = GetQuery<'/payouts'>;

/** A payout's entries are read 100 at a time, up to this many pages: its totals need them all. */
export const ENTRY_PAGES_READ = 20;

/** Every page and filter of the payouts list. */
export const payoutsListKey = everyQueryOf('/payouts');
/** Every payout read on its own. */
export const everyPayoutKey = everyQueryOf('/payouts/{payout_id}');
/** Every list of ledger entries, a payout's included. */
export const ledgerEntriesKey = everyQueryOf('/balance-transactions');
/** Every ledger entry read on its own. */
export const everyLedgerEntryKey = everyQueryOf('/balance-transactions/{balance_transaction_id}');

export function payoutsQuery(query: PayoutsQuery) {
  return $api.queryOptions('get', '/payouts', { params: { query } });
}

export function payoutQuery(payoutId: string) {
  return $api.queryOptions('get', '/payouts/{payout_id}', { params: { path: { payout_id: payoutId } } });
}

export function ledgerEntryQuery(entryId: string) {
  return $api.queryOptions('get', '/balance-transactions/{balance_transaction_id}', { params: { path: { balance_transaction_id: entryId } } });
}

/** Every entry a payout took, oldest first (as its CSV lists them), up to ENTRY_PAGES_READ pages. */
export function payoutEntriesQuery(payoutId: string) {
  return queryOptions({
    queryKey: [...ledgerEntriesKey, { payout_id: payoutId }] as const,
    queryFn: async () => {
      const entries: LedgerEntry[] = [];
      for (let page = 1; page <= ENTRY_PAGES_READ; page += 1) {
        const { data, error } = await api.GET('/balance-transactions', {
          params: { query: { page, per_page: 100, sort: 'created_at', 'filter[payout_id]': payoutId } },
        });
        if (error) throw error;
        entries.push(...data.data.data);
        if (data.data.next_page_url === null) return { entries, complete: true };
      }
      return { entries, complete: false };
    },
  });
}
