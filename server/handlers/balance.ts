// The balance and its ledger: the balance by currency, the ledger's entries, and the balance report.
import type { components } from '../../generated/openapi.js';
import type { SomeHandlers } from '../http/operations.js';
import {
  balanceReport,
  getBalance,
  getBalanceTransaction,
  listBalanceTransactions,
  type BalanceReport,
  type PresentableEntry,
} from '../usecases/merchant/balance.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { ok } from './envelope.js';
import { createdBetween, pageOf, pageRequest, pageTooDeep } from './listing.js';

type BalanceTransaction = components['schemas']['BalanceTransaction'];

export function presentEntry(entry: PresentableEntry): BalanceTransaction {
  return {
    _id: entry._id,
    type: entry.type,
    amount: entry.amount,
    fee: entry.fee,
    net: entry.net,
    currency: entry.currency,
    status: entry.status,
    available_on: entry.available_on,
    source_type: entry.source_type,
    source_id: entry.source_id,
    acquirer_reference: entry.acquirer_reference,
    payout_id: entry.payout_id,
    description: entry.description,
    created_at: entry.created_at,
  };
}

function presentReport(report: BalanceReport): components['schemas']['BalanceReport'] {
  return { time_zone: report.timeZone, from: report.from, to: report.to, currencies: report.currencies };
}

const NOT_FOUND = { message: 'Balance transaction not found.' };

export const balanceHandlers = {
  getBalance: {
    async handle({ business }, ctx, respond) {
      const balance = await getBalance(ctx, business.id);
      return respond.with200(ok({ available: balance.available, pending: balance.pending, today: balance.today, time_zone: balance.timeZone }));
    },
  },
  listBalanceTransactions: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const available = createdBetween(query['filter[available_on_between]']);
      const result = await listBalanceTransactions(
        ctx,
        business.id,
        {
          type: query['filter[type]'],
          payoutId: query['filter[payout_id]'],
          sourceId: query['filter[source_id]'],
          createdBetween: createdBetween(query['filter[created_at_between]']),
          availableOnBetween: available && { from: available.from, to: available.to },
        },
        page,
      );
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/balance-transactions`, rawQuery, page, result, presentEntry)));
    },
  },
  getBalanceTransaction: {
    async handle({ path, business }, ctx, respond) {
      const entry = await getBalanceTransaction(ctx, business.id, path.balance_transaction_id);
      return entry ? respond.with200(ok(presentEntry(entry))) : respond.with404(NOT_FOUND);
    },
  },
  getBalanceReport: {
    async handle({ query, business }, ctx, respond) {
      const range = createdBetween(query['filter[date_between]']);
      const outcome = await balanceReport(ctx, business.id, range && { from: range.from, to: range.to });
      if (outcome.result === 'too_long')
        return respond.with422({ message: 'The given data was invalid.', errors: { 'filter.date_between': [outcome.message] } });
      return respond.with200(ok(presentReport(outcome.report)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
