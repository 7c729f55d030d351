// 0046 writes the ledger for payments and refunds made before it existed: run over records the live
// path made (and whose entries are then taken away, as before 0044), it writes the same entries,
// amounts and fees as the live path wrote, and running it again writes nothing.
import { describe, expect, it } from 'vitest';
import * as ledgerBackfill from '../../server/store/migrations/0046_ledger_backfill.js';
import { GOOD_CARD, REFUND_FAILS_CARD, submitPage } from '../support/payer.js';
import { useService } from '../support/service.js';

const t = useService();

async function pay(amount: number, card = GOOD_CARD): Promise<string> {
  const { data } = await t.a.client.POST('/payment-links', { body: { email: 'payer@example.com', currency: 'MYR', amount, title: 'Before the ledger' } });
  const paid = await submitPage(t.url, data!.data.payment_url, { name: 'Payer', ...card });
  expect(paid.status).toBe(303);
  return paid.paymentId!;
}

const ledger = async () =>
  (await t.sql('balance_transactions').where({ business_id: t.a.business.id }).select('type', 'source_id', 'amount', 'fee', 'net', 'currency')).map(
    (row: Record<string, unknown>) => [row.type, row.source_id, Number(row.amount), Number(row.fee), Number(row.net), row.currency],
  );
const sorted = (rows: unknown[][]) => rows.map((row) => row.join(' ')).sort();

describe('0046_ledger_backfill', () => {
  it('writes for earlier payments and refunds the entries the live path writes, once', async () => {
    const kept = await pay(12_345);
    const refunded = await pay(4_000, REFUND_FAILS_CARD);
    await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: kept } }, body: { amount: 345 } });
    const failed = await t.a.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: refunded } }, body: { amount: 1_000 } });
    expect(failed.data!.data.status).toBe('failed');
    const live = await ledger();
    expect(live).toHaveLength(5);
    const fees = await t.sql('payments').whereIn('_id', [kept, refunded]).select('_id', 'fee', 'net').orderBy('_id');

    // As before the ledger: no entries, no fee on the payments.
    const sums = await t.sql('balance_daily_sums').where({ business_id: t.a.business.id }).orderBy(['day', 'type']);
    await t.sql('balance_transactions').where({ business_id: t.a.business.id }).delete();
    await t.sql('balance_daily_sums').where({ business_id: t.a.business.id }).delete();
    await t.sql('payments').where({ business_id: t.a.business.id }).update({ fee: null, net: null, balance_transaction_id: null });
    await ledgerBackfill.up(t.sql);
    expect(sorted(await ledger())).toEqual(sorted(live));
    // The balance report's daily sums too.
    expect(await t.sql('balance_daily_sums').where({ business_id: t.a.business.id }).orderBy(['day', 'type'])).toEqual(sums);
    expect(await t.sql('payments').whereIn('_id', [kept, refunded]).select('_id', 'fee', 'net').orderBy('_id')).toEqual(fees);
    const linked = await t.sql('payments').where({ _id: kept }).first('balance_transaction_id');
    expect(await t.sql('balance_transactions').where({ _id: linked.balance_transaction_id }).first('type', 'source_id')).toEqual({
      type: 'charge',
      source_id: kept,
    });

    await ledgerBackfill.up(t.sql);
    expect(await ledger()).toHaveLength(5);
    expect(await t.sql('balance_daily_sums').where({ business_id: t.a.business.id }).orderBy(['day', 'type'])).toEqual(sums);
  });
});
