import type { Knex } from 'knex';
import { newId } from '../../domain/ids.js';
import { localDay } from '../../domain/local-days.js';
import { malaysianCalendar } from '../../domain/malaysian-holidays.js';
import { DEFAULT_SANDBOX_SETTLEMENT, feeFor, PAYMENT_METHODS, type PaymentMethod } from '../../domain/settlement-fees.js';

// The ledger for what happened before it existed (0044_settlement_ledger.ts): each paid payment its
// charge entry (the sandbox's default fee; another acquirer's fee is corrected by an adjustment when
// its payouts are synced), each refund its refund entry, each failed refund its refund_failure entry,
// dated when each happened. Entries no payout takes until the schedule next runs; nothing already in
// the ledger is written twice (the sources without an entry are the ones read).
const BATCH = 500;
const PAID = 1;

interface PaymentRow {
  _id: string;
  business_id: number;
  amount: number | string;
  currency: string;
  method: string;
  provider: string;
  provider_reference: string | null;
  description: string | null;
  updated_at: string | Date;
  time_zone: string | null;
}

interface RefundRow {
  _id: string;
  business_id: number;
  amount: number | string;
  currency: string;
  status: string;
  reason: string | null;
  provider_reference: string | null;
  failure_message: string | null;
  created_at: string | Date;
  updated_at: string | Date;
  time_zone: string | null;
}

const isMethod = (method: string): method is PaymentMethod => (PAYMENT_METHODS as readonly string[]).includes(method);

/** The daily sums of the entries written here, added to `balance_daily_sums` at the end. */
class DailySums {
  private readonly sums = new Map<
    string,
    { business_id: number; currency: string; day: string; type: string; count: number; amount: number; fee: number; net: number }
  >();

  add(entry: { business_id: number; currency: string; type: string; amount: number; fee: number; net: number }, day: string): void {
    const key = [entry.business_id, entry.currency, day, entry.type].join(' ');
    const sum = this.sums.get(key) ?? { business_id: entry.business_id, currency: entry.currency, day, type: entry.type, count: 0, amount: 0, fee: 0, net: 0 };
    this.sums.set(key, { ...sum, count: sum.count + 1, amount: sum.amount + entry.amount, fee: sum.fee + entry.fee, net: sum.net + entry.net });
  }

  async write(knex: Knex): Promise<void> {
    for (const sum of this.sums.values()) {
      const plus = (column: 'count' | 'amount' | 'fee' | 'net') => knex.raw('?? + ?', [`balance_daily_sums.${column}`, sum[column]]);
      await knex('balance_daily_sums')
        .insert(sum)
        .onConflict(['business_id', 'currency', 'day', 'type'])
        .merge({ count: plus('count'), amount: plus('amount'), fee: plus('fee'), net: plus('net') });
    }
  }
}

export async function up(knex: Knex): Promise<void> {
  const calendar = malaysianCalendar();
  const sums = new DailySums();
  for (let after = ''; ;) {
    const payments: PaymentRow[] = await knex('payments as p')
      .join('businesses as b', 'b.id', 'p.business_id')
      .where('p.status_id', PAID)
      .whereNull('p.balance_transaction_id')
      .andWhere('p._id', '>', after)
      .orderBy('p._id')
      .limit(BATCH)
      .select(
        'p._id',
        'p.business_id',
        'p.amount',
        'p.currency',
        'p.method',
        'p.provider',
        'p.provider_reference',
        'p.description',
        'p.updated_at',
        'b.time_zone',
      );
    if (payments.length === 0) break;
    for (const payment of payments) {
      const amount = Number(payment.amount);
      const fee = payment.provider === 'sandbox' && isMethod(payment.method) ? feeFor(payment.method, amount, DEFAULT_SANDBOX_SETTLEMENT.fees) : 0;
      const id = newId();
      sums.add(
        { business_id: payment.business_id, currency: payment.currency, type: 'charge', amount, fee, net: amount - fee },
        localDay(new Date(payment.updated_at), payment.time_zone),
      );
      await knex('balance_transactions').insert({
        _id: id,
        business_id: payment.business_id,
        type: 'charge',
        amount,
        fee,
        net: amount - fee,
        currency: payment.currency,
        available_on: calendar.addBusinessDays(localDay(new Date(payment.updated_at), payment.time_zone), DEFAULT_SANDBOX_SETTLEMENT.availableAfterDays),
        source_type: 'payment',
        source_id: payment._id,
        acquirer_reference: payment.provider_reference,
        payout_id: null,
        description: payment.description,
        created_at: payment.updated_at,
      });
      await knex('payments')
        .where({ _id: payment._id })
        .update({ fee, net: amount - fee, balance_transaction_id: id });
    }
    after = payments[payments.length - 1]!._id;
  }
  for (let after = ''; ;) {
    const refunds: RefundRow[] = await knex('refunds as r')
      .join('businesses as b', 'b.id', 'r.business_id')
      .leftJoin('balance_transactions as bt', function joinEntry() {
        this.on('bt.source_id', '=', 'r._id').andOn('bt.type', '=', knex.raw('?', ['refund']));
      })
      .whereNull('bt._id')
      .andWhere('r._id', '>', after)
      .orderBy('r._id')
      .limit(BATCH)
      .select(
        'r._id',
        'r.business_id',
        'r.amount',
        'r.currency',
        'r.status',
        'r.reason',
        'r.provider_reference',
        'r.failure_message',
        'r.created_at',
        'r.updated_at',
        'b.time_zone',
      );
    if (refunds.length === 0) break;
    for (const refund of refunds) {
      const amount = Number(refund.amount);
      const entry = {
        business_id: refund.business_id,
        fee: 0,
        currency: refund.currency,
        source_type: 'refund',
        source_id: refund._id,
        acquirer_reference: refund.provider_reference,
        payout_id: null,
      };
      sums.add({ ...entry, type: 'refund', amount: -amount, net: -amount }, localDay(new Date(refund.created_at), refund.time_zone));
      await knex('balance_transactions').insert({
        ...entry,
        _id: newId(),
        type: 'refund',
        amount: -amount,
        net: -amount,
        available_on: localDay(new Date(refund.created_at), refund.time_zone),
        description: refund.reason,
        created_at: refund.created_at,
      });
      if (refund.status === 'failed') {
        sums.add({ ...entry, type: 'refund_failure', amount, net: amount }, localDay(new Date(refund.updated_at), refund.time_zone));
        await knex('balance_transactions').insert({
          ...entry,
          _id: newId(),
          type: 'refund_failure',
          amount,
          net: amount,
          available_on: localDay(new Date(refund.updated_at), refund.time_zone),
          description: refund.failure_message,
          created_at: refund.updated_at,
        });
      }
    }
    after = refunds[refunds.length - 1]!._id;
  }
  await sums.write(knex);
}

export async function down(knex: Knex): Promise<void> {
  // The entries are indistinguishable from later ones; 0044's down drops the ledger as a whole.
  await knex.raw('select 1');
}
