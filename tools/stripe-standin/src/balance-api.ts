// The API's reading side of the balance (settlement.ts makes what it reads): the balance, its
// balance transactions (those of one payout, one type or one source), and the payouts.
import type Stripe from 'stripe';
import { resourceMissing } from './errors.js';
import { inRange, pageOf, type PageParams, type RangeParam } from './lists.js';
import type { Context } from './context.js';
import { balanceOf } from './settlement.js';

interface Call {
  ctx: Context;
  path: Record<string, string>;
  params: Record<string, unknown>;
}

/** The params each operation acts on, for api.ts's check (anything else Stripe takes is refused as not implemented). */
export const BALANCE_PARAMS = {
  'get /v1/balance_transactions': {
    payout: true,
    type: true,
    source: true,
    currency: true,
    created: true,
    limit: true,
    starting_after: true,
    ending_before: true,
    expand: true,
  },
  'get /v1/payouts': { status: true, arrival_date: true, created: true, limit: true, starting_after: true, ending_before: true, expand: true },
} as const;

/** Newest first, as Stripe lists; objects made in the same second keep the order they were made in. */
function newestFirst<T extends { created: number }>(items: T[]): T[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => b.item.created - a.item.created || b.index - a.index)
    .map(({ item }) => item);
}

function balance({ ctx }: Call): Stripe.Balance {
  return balanceOf(ctx.account);
}

interface BalanceTransactionListParams extends PageParams {
  payout?: string;
  type?: string;
  source?: string;
  currency?: string;
  created?: RangeParam;
}

function listBalanceTransactions({ ctx, params }: Call): Stripe.ApiList<Stripe.BalanceTransaction> {
  const p = params as BalanceTransactionListParams;
  const { account } = ctx;
  if (p.payout !== undefined && !account.get('payout', p.payout)) throw resourceMissing('payout', p.payout, 'payout');
  const kept = account
    .all('balance_transaction')
    .filter(
      (transaction) =>
        (p.payout === undefined || account.paidOutIn.get(transaction.id) === p.payout) &&
        (p.type === undefined || transaction.type === p.type) &&
        (p.source === undefined || transaction.source === p.source) &&
        (p.currency === undefined || transaction.currency === p.currency.toLowerCase()) &&
        inRange(transaction.created, p.created),
    );
  return pageOf(newestFirst(kept), p, '/v1/balance_transactions', 'balance transaction');
}

function retrieveBalanceTransaction({ ctx, path }: Call): Stripe.BalanceTransaction {
  const transaction = ctx.account.get('balance_transaction', path.id!);
  if (!transaction) throw resourceMissing('balance transaction', path.id!, 'id');
  return transaction;
}

interface PayoutListParams extends PageParams {
  status?: string;
  arrival_date?: RangeParam;
  created?: RangeParam;
}

function listPayouts({ ctx, params }: Call): Stripe.ApiList<Stripe.Payout> {
  const p = params as PayoutListParams;
  const kept = ctx.account
    .all('payout')
    .filter(
      (payout) => (p.status === undefined || payout.status === p.status) && inRange(payout.arrival_date, p.arrival_date) && inRange(payout.created, p.created),
    );
  return pageOf(newestFirst(kept), p, '/v1/payouts', 'payout');
}

function retrievePayout({ ctx, path }: Call): Stripe.Payout {
  const payout = ctx.account.get('payout', path.payout!);
  if (!payout) throw resourceMissing('payout', path.payout!, 'id');
  return payout;
}

export const BALANCE_HANDLERS = {
  'get /v1/balance': balance,
  'get /v1/balance_transactions': listBalanceTransactions,
  'get /v1/balance_transactions/{id}': retrieveBalanceTransaction,
  'get /v1/payouts': listPayouts,
  'get /v1/payouts/{payout}': retrievePayout,
};
