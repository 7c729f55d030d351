// Where the money went, on the sandbox: a payment's fee and net and its ledger entry, refunds as
// entries of their own, the balance, the sandbox's payout schedule (made once a day, none on a
// weekend or holiday), a payout's itemized CSV adding up to it, a payout the bank returns and its
// money joining the next one, a negative payout, a bank statement matching a deposit, the balance
// report, and a payout whose deposit never shows flagged by the settlement sweep.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/webhooks.js';
import { sweepSettlement } from '../../server/usecases/settlement/settlement-sweep.js';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { raw, type Tenant } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { useWebhookService } from '../support/webhook-service.js';

const w = useWebhookService();
const { t, receiver } = w;

async function pay(tenant: Tenant, amount: number): Promise<string> {
  const { data } = await tenant.client.POST('/payment-links', {
    body: { email: 'payer@example.com', currency: 'MYR', amount, title: 'Order', reference: 'ORD-7' },
  });
  const paid = await submitPage(t.url, data!.data.payment_url, { name: 'Aisyah Rahman', ...GOOD_CARD });
  expect(paid.status).toBe(303);
  return paid.paymentId!;
}

const getPayment = (tenant: Tenant, id: string) => tenant.client.GET('/payments/{payment_id}', { params: { path: { payment_id: id } } });
const runPayouts = (tenant: Tenant, asOf: string) => tenant.client.POST('/test-helpers/payouts', { body: { as_of: asOf } });
const balance = async (tenant: Tenant) => (await tenant.client.GET('/balance')).data!.data;

function dayAfter(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The first day from `from` on whose schedule run makes a payout (weekends and holidays make none). */
async function firstPayoutFrom(tenant: Tenant, from: string) {
  for (let day = from, tries = 0; tries < 15; day = dayAfter(day, 1), tries += 1) {
    const run = await runPayouts(tenant, day);
    expect(run.response.status).toBe(200);
    if (run.data!.data.length > 0) return { day, payouts: run.data!.data };
  }
  throw new Error(`no payout within 15 days of ${from}`);
}

describe('fees, the ledger and the balance', () => {
  it('gives a sandbox card payment its fee (2.5%) and net, one charge entry, and counts it pending until it is available', async () => {
    const tenant = await t.newTenant('Ledger fees');
    const paymentId = await pay(tenant, 10_000);
    const payment = (await getPayment(tenant, paymentId)).data!.data;
    expect(payment).toMatchObject({ fee: 250, net: 9_750 });
    const entry = await tenant.client.GET('/balance-transactions/{balance_transaction_id}', {
      params: { path: { balance_transaction_id: payment.balance_transaction_id! } },
    });
    expect(entry.data!.data).toMatchObject({
      type: 'charge',
      amount: 10_000,
      fee: 250,
      net: 9_750,
      currency: 'MYR',
      status: 'pending',
      source_type: 'payment',
      source_id: paymentId,
      payout_id: null,
    });
    expect(entry.data!.data.available_on > (await balance(tenant)).today).toBe(true);
    expect(await balance(tenant)).toMatchObject({ available: [{ currency: 'MYR', amount: 0 }], pending: [{ currency: 'MYR', amount: 9_750 }] });

    const refund = await tenant.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 3_000 } });
    const listed = await tenant.client.GET('/balance-transactions', { params: { query: { 'filter[source_id]': refund.data!.data._id } } });
    expect(listed.data!.data.data.map((e) => [e.type, e.amount, e.fee, e.net])).toEqual([['refund', -3_000, 0, -3_000]]);
    // Money out is owed at once: the refund is available today, the payment's net still pending.
    expect(await balance(tenant)).toMatchObject({ available: [{ amount: -3_000 }], pending: [{ amount: 9_750 }] });
    const types = await tenant.client.GET('/balance-transactions', { params: { query: { 'filter[type]': 'charge' } } });
    expect(types.data!.data.data.map((e) => e.source_id)).toEqual([paymentId]);
  });

  it('exports fee, net after fee and the entry with each payment, keeping the older net column as it was', async () => {
    const tenant = await t.newTenant('Ledger export');
    const paymentId = await pay(tenant, 2_000);
    const csv = await raw(`${t.apiUrl}/payments`, { key: tenant.key, headers: { Accept: 'text/csv' } });
    const [line] = parse(csv.text, { columns: true }) as Record<string, string>[];
    const payment = (await getPayment(tenant, paymentId)).data!.data;
    expect(line).toMatchObject({ id: paymentId, net: '20.00', fee: '0.50', net_after_fee: '19.50', balance_transaction_id: payment.balance_transaction_id });
  });
});

describe('sandbox payouts', () => {
  it('pays out what is available once a business day, itemized to the sen, announced, and never twice', async () => {
    const tenant = await t.newTenant('Payouts');
    const endpoint = await tenant.client.POST('/webhook-endpoints', { body: { url: receiver.url, enabled_events: ['*'] } });
    expect(endpoint.response.status).toBe(200);
    const first = await pay(tenant, 10_000);
    const second = await pay(tenant, 5_000);
    await tenant.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: second } }, body: { amount: 1_000 } });
    const today = (await balance(tenant)).today;

    // The refund's 1,000 left the balance today; the payments' net is available two business days on.
    const refundDay = await firstPayoutFrom(tenant, today);
    expect(refundDay.payouts).toMatchObject([{ amount: -1_000, transaction_count: 1, status: 'paid', arrival_date: refundDay.day }]);
    const { day, payouts } = await firstPayoutFrom(tenant, dayAfter(refundDay.day, 1));
    expect(payouts).toHaveLength(1);
    const payout = payouts[0]!;
    expect(payout).toMatchObject({ amount: 14_625, currency: 'MYR', status: 'paid', arrival_date: day, transaction_count: 2, provider: 'sandbox' });
    expect(payout.reconciliation.status).toBe('expected');
    expect((await runPayouts(tenant, day)).data!.data).toEqual([]);
    // Nothing is left to pay out: no currency has an amount waiting.
    expect(await balance(tenant)).toMatchObject({ available: [], pending: [] });

    const items = await tenant.client.GET('/balance-transactions', { params: { query: { 'filter[payout_id]': payout._id, per_page: 100 } } });
    expect(items.data!.data.data.map((e) => e.type).sort()).toEqual(['charge', 'charge', 'payout']);

    const csv = await raw(`${t.apiUrl}/payouts/${payout._id}`, { key: tenant.key, headers: { Accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    const lines = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(lines.map((line) => line.type)).toEqual(['charge', 'charge', '']);
    expect(lines.find((line) => line.payment_id === first)).toMatchObject({
      gross: '100.00',
      fee: '2.50',
      net: '97.50',
      reference: 'ORD-7',
      payer_name: 'Aisyah Rahman',
      method: 'card',
    });
    expect(lines.at(-1)).toMatchObject({ balance_transaction_id: 'total', gross: '150.00', fee: '3.75', net: '146.25', time_zone: 'Asia/Kuala_Lumpur' });

    const secret = endpoint.data!.data.secret;
    const payoutEvents = await waitFor('the payout events', () => {
      const found = receiver.requests.flatMap((request) => {
        let event;
        try {
          event = verifyWebhook(request.raw, request.headers as Record<string, string>, secret);
        } catch {
          return []; // another business's, signed with its own key
        }
        return event.event.startsWith('payout.') ? [[event.event, (event.data as unknown as { payout_id: string }).payout_id]] : [];
      });
      return found.length >= 4 && found;
    });
    // Deliveries run side by side: the order they arrive in is not the order they were made in.
    expect(payoutEvents.map((pair) => pair.join(' ')).sort()).toEqual(
      [
        ['payout.created', refundDay.payouts[0]!._id],
        ['payout.paid', refundDay.payouts[0]!._id],
        ['payout.created', payout._id],
        ['payout.paid', payout._id],
      ]
        .map((pair) => pair.join(' '))
        .sort(),
    );
  });

  it('gives a payout the bank returned back to the balance, for the next payout; a negative payout is a debit', async () => {
    const tenant = await t.newTenant('Payout returned');
    const paymentId = await pay(tenant, 4_000);
    const today = (await balance(tenant)).today;
    const { day, payouts } = await firstPayoutFrom(tenant, dayAfter(today, 1));
    const payout = payouts[0]!;
    expect(payout.amount).toBe(3_900);

    const failed = await tenant.client.POST('/test-helpers/payouts/{payout_id}/fail', { params: { path: { payout_id: payout._id } } });
    expect(failed.data!.data).toMatchObject({ status: 'failed', failure_code: 'account_closed', reconciliation: { status: 'explained' } });
    const again = await tenant.client.POST('/test-helpers/payouts/{payout_id}/fail', { params: { path: { payout_id: payout._id } } });
    expect(again.response.status).toBe(409);
    expect((await balance(tenant)).available).toEqual([{ currency: 'MYR', amount: 3_900 }]);

    // The money came back; then the payer is refunded in full: the next payout takes 3,900 back and 4,000 out.
    await tenant.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } });
    const next = await firstPayoutFrom(tenant, dayAfter(day, 1));
    expect(next.payouts[0]).toMatchObject({ amount: -100, transaction_count: 2, status: 'paid' });
    expect(next.payouts[0]!.reconciliation.status).toBe('expected');
  });

  it('refuses the test helpers to a business on another acquirer, saying why', async () => {
    const tenant = await t.newTenant('On Stripe');
    await t.sql('businesses').where({ id: tenant.business.id }).update({ provider: 'stripe' });
    const refused = await runPayouts(tenant, '2030-01-02');
    expect(refused.response.status).toBe(403);
    expect((refused.error as { message: string }).message).toMatch(/sandbox acquirer.*stripe/);
  });

  it('matches a bank statement line to the payout it deposits, and says why the others match none', async () => {
    const tenant = await t.newTenant('Statements');
    await pay(tenant, 10_000);
    const today = (await balance(tenant)).today;
    const { day, payouts } = await firstPayoutFrom(tenant, dayAfter(today, 1));
    const payout = payouts[0]!;
    const [year, month, date] = day.split('-');
    const csv = [
      'Date,Description,Reference,Amount',
      `${date}/${month}/${year},PAYOUT,${payout.bank_reference},97.50`,
      `${date}/${month}/${year},TRANSFER FROM A CUSTOMER,TRF 1,12.00`,
      `not a date,???,,5.00`,
    ].join('\n');
    const created = await tenant.client.POST('/bank-statements', {
      body: { format: 'generic', csv, columns: { date: 'Date', amount: 'Amount', reference: 'Reference', description: 'Description' }, date_order: 'DMY' },
    });
    expect(created.response.status).toBe(200);
    const statement = created.data!.data;
    expect(statement).toMatchObject({ line_count: 3, matched_count: 1 });
    expect(statement.lines.map((line) => [line.line, line.outcome, line.payout_id])).toEqual([
      [2, 'matched', payout._id],
      [3, 'unmatched', null],
      [4, 'unreadable', null],
    ]);
    expect(statement.lines[2]!.reason).toBeTruthy();
    const read = await tenant.client.GET('/payouts/{payout_id}', { params: { path: { payout_id: payout._id } } });
    expect(read.data!.data.reconciliation.status).toBe('matched');
    const again = await tenant.client.GET('/bank-statements/{bank_statement_id}', { params: { path: { bank_statement_id: statement._id } } });
    expect(again.data!.data).toEqual(statement);

    const missing = await tenant.client.POST('/bank-statements', { body: { format: 'generic', csv, columns: { date: 'Date' } } });
    expect(missing.response.status).toBe(422);
  });
});

describe('GET /api/balance-transactions filtered by available days', () => {
  it('lists them by available day, then by creation, in the direction asked', async () => {
    const tenant = await t.newTenant('Ledger by day');
    const first = await pay(tenant, 10_000);
    const today = (await balance(tenant)).today;
    // A payout made as of a later day is created before the second payment but available after it.
    const { payouts } = await firstPayoutFrom(tenant, dayAfter(today, 7));
    const second = await pay(tenant, 5_000);
    const range = `${today},${dayAfter(today, 30)}`;
    const listed = async (sort: '-created_at' | 'created_at') => {
      const reply = await tenant.client.GET('/balance-transactions', { params: { query: { 'filter[available_on_between]': range, sort } } });
      expect(reply.response.status).toBe(200);
      return reply.data!.data.data.map((entry) => [entry.type, entry.source_id]);
    };
    const payout = ['payout', payouts[0]!._id];
    expect(await listed('-created_at')).toEqual([payout, ['charge', second], ['charge', first]]);
    expect(await listed('created_at')).toEqual([['charge', first], ['charge', second], payout]);
  });
});

describe('GET /api/reports/balance', () => {
  it('sums the movements by type and checks opening + movements = closing', async () => {
    const tenant = await t.newTenant('Balance report');
    const paymentId = await pay(tenant, 6_000);
    await tenant.client.POST('/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } }, body: { amount: 500 } });
    const today = (await balance(tenant)).today;
    const report = await tenant.client.GET('/reports/balance', { params: { query: { 'filter[date_between]': `${today},${today}` } } });
    expect(report.data!.data).toMatchObject({ from: today, to: today, time_zone: 'Asia/Kuala_Lumpur' });
    expect(report.data!.data.currencies).toEqual([
      {
        currency: 'MYR',
        opening: 0,
        movements: [
          { type: 'charge', count: 1, amount: 6_000, fee: 150, net: 5_850 },
          { type: 'refund', count: 1, amount: -500, fee: 0, net: -500 },
        ],
        closing: 5_350,
        balanced: true,
        difference: 0,
      },
    ]);
    const before = await tenant.client.GET('/reports/balance', {
      params: { query: { 'filter[date_between]': `${dayAfter(today, -3)},${dayAfter(today, -1)}` } },
    });
    expect(before.data!.data.currencies[0]).toMatchObject({ opening: 0, movements: [], closing: 0, balanced: true });
    const tooLong = await tenant.client.GET('/reports/balance', { params: { query: { 'filter[date_between]': '2020-01-01,2022-01-01' } } });
    expect(tooLong.response.status).toBe(422);
  });
});

describe('POST /api/test-helpers/payouts', () => {
  it('refuses a day outside the calendar (year 0) as a 422 naming as_of', async () => {
    const tenant = await t.newTenant('Year zero');
    const refused = await runPayouts(tenant, '0000-01-01');
    expect(refused.response.status).toBe(422);
    expect(refused.error).toEqual({ message: 'The given data was invalid.', errors: { as_of: ['The as of is not a valid date.'] } });
  });
});

describe('the settlement sweep', () => {
  // Last in this file: run as of a later day, it pays out and flags every business's payouts here.
  it('marks a payout whose deposit no statement showed in PAYOUT_DEPOSIT_GRACE_DAYS business days mismatched, once, and announces it', async () => {
    const tenant = await t.newTenant('Deposit overdue');
    await tenant.client.POST('/webhook-endpoints', { body: { url: receiver.url, enabled_events: ['payout.reconciliation_failed'] } });
    await pay(tenant, 3_000);
    const today = (await balance(tenant)).today;
    const { day, payouts } = await firstPayoutFrom(tenant, dayAfter(today, 1));
    const read = async () => (await tenant.client.GET('/payouts/{payout_id}', { params: { path: { payout_id: payouts[0]!._id } } })).data!.data;

    // Five business days after its arrival (a week at most) it may still show; a fortnight on, it is overdue.
    await sweepSettlement(t.service.context, new Date(`${dayAfter(day, 1)}T04:00:00Z`));
    expect((await read()).reconciliation.status).toBe('expected');
    for (let i = 0; i < 2; i += 1) await sweepSettlement(t.service.context, new Date(`${dayAfter(day, 14)}T04:00:00Z`));
    const flagged = await read();
    expect(flagged.reconciliation.status).toBe('mismatched');
    expect(flagged.reconciliation.reason).toMatch(/No bank statement showed its deposit within 5 business days/);
    const announced = await t.sql('outbox').where({ business_id: tenant.business.id, topic: 'payout.reconciliation_failed' }).count({ n: '*' }).first();
    expect(Number(announced!.n)).toBe(1);
  });
});
