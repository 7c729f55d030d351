// A model of where the money goes: random streams of payments (some whose refunds fail at the
// acquirer), refunds, the sandbox's payout schedule run for days in any order and run again, and
// payouts the bank returns, with the ledger's invariants checked after every step, on both databases:
// every succeeded payment has exactly one charge entry and every refund one refund entry (a failed
// one a refund_failure too); every entry is in exactly one of pending, available or a payout; every
// payout's entries add up to it, to the sen; the balance is the sum of what no payout took; and the
// balance report's opening plus movements is its closing.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { GOOD_CARD, REFUND_FAILS_CARD, submitPage } from '../support/payer.js';
import { useService } from '../support/service.js';
import { commandsReplayPath, holds, send, type Caller, type Reply } from './harness.js';

const t = useService();
let caller: Caller;
beforeAll(() => {
  caller = { apiUrl: t.apiUrl, key: t.a.key };
});

interface Entry {
  _id: string;
  type: string;
  amount: number;
  fee: number;
  net: number;
  status: 'pending' | 'available';
  available_on: string;
  source_id: string;
  payout_id: string | null;
}
interface Payout {
  _id: string;
  amount: number;
  status: string;
  transaction_count: number;
  reconciliation: { status: string };
}
interface Payment {
  _id: string;
  amount: number;
  status: string;
  fee: number | null;
  net: number | null;
  balance_transaction_id: string | null;
}

interface Model {
  /**
   * Days the schedule made a payout for: a second run makes nothing. A day whose run found nothing
   * to pay out is not spent: money that becomes available by then later is paid out by a rerun.
   */
  daysPaid: Set<string>;
}
interface Real {
  payments: string[];
  payouts: string[];
}
type Command = fc.AsyncCommand<Model, Real>;

const dataOf = <T>(reply: Reply) => (reply.body as { data: T }).data;

async function all<T>(path: string): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; ; page += 1) {
    const reply = await send(caller, 'GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
    expect(reply.status, reply.text).toBe(200);
    const found = dataOf<{ data: T[]; next_page_url: string | null }>(reply);
    rows.push(...found.data);
    if (!found.next_page_url) return rows;
  }
}

function today(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kuala_Lumpur' }).format(new Date());
}

function dayAfter(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

async function invariantsHold(real: Real): Promise<void> {
  const entries = await all<Entry>('/balance-transactions');
  const bySource = (type: string, id: string) => entries.filter((entry) => entry.type === type && entry.source_id === id);
  for (const entry of entries) expect(entry.net).toBe(entry.amount - entry.fee);

  let charges = 0;
  let refunds = 0;
  for (const id of real.payments) {
    const payment = dataOf<Payment>(await send(caller, 'GET', `/payments/${id}`));
    const charge = bySource('charge', id);
    if (payment.status === 'failed') {
      expect(charge).toEqual([]);
      continue;
    }
    charges += 1;
    expect(charge).toHaveLength(1);
    expect(charge[0]).toMatchObject({ amount: payment.amount, fee: payment.fee, net: payment.net, _id: payment.balance_transaction_id });
    for (const refund of dataOf<{ _id: string; amount: number; status: string }[]>(await send(caller, 'GET', `/payments/${id}/refunds`))) {
      refunds += 1;
      expect(bySource('refund', refund._id).map((entry) => entry.amount)).toEqual([-refund.amount]);
      expect(bySource('refund_failure', refund._id).map((entry) => entry.amount)).toEqual(refund.status === 'failed' ? [refund.amount] : []);
    }
  }
  // No entry of a payment or refund the model does not know.
  expect(entries.filter((entry) => entry.type === 'charge')).toHaveLength(charges);
  expect(entries.filter((entry) => entry.type === 'refund')).toHaveLength(refunds);

  const payouts = await all<Payout>('/payouts');
  for (const payout of payouts) {
    const items = entries.filter((entry) => entry.payout_id === payout._id && entry.type !== 'payout');
    expect(
      items.reduce((sum, entry) => sum + entry.net, 0),
      `payout ${payout._id}`,
    ).toBe(payout.amount);
    expect(payout.transaction_count).toBe(items.length);
    expect(payout.reconciliation.status).not.toBe('mismatched');
    expect(bySource('payout', payout._id).map((entry) => entry.amount)).toEqual([-payout.amount]);
    expect(bySource('payout_failure', payout._id).map((entry) => entry.amount)).toEqual(payout.status === 'failed' ? [payout.amount] : []);
  }

  // Each entry is pending, available or paid out, and the balance is what no payout took.
  const now = today();
  const unpaid = entries.filter((entry) => entry.payout_id === null);
  for (const entry of unpaid) expect(entry.status).toBe(entry.available_on <= now ? 'available' : 'pending');
  const balance = dataOf<{ available: { amount: number }[]; pending: { amount: number }[] }>(await send(caller, 'GET', '/balance'));
  const sum = (list: { amount: number }[]) => list.reduce((total, item) => total + item.amount, 0);
  expect(sum(balance.available)).toBe(unpaid.filter((entry) => entry.status === 'available').reduce((total, entry) => total + entry.net, 0));
  expect(sum(balance.pending)).toBe(unpaid.filter((entry) => entry.status === 'pending').reduce((total, entry) => total + entry.net, 0));
  expect(sum(balance.available) + sum(balance.pending)).toBe(entries.reduce((total, entry) => total + entry.net, 0));

  const report = dataOf<{ currencies: { opening: number; closing: number; balanced: boolean; movements: { net: number }[] }[] }>(
    await send(caller, 'GET', `/reports/balance?filter[date_between]=${dayAfter(now, -1)},${now}`),
  );
  for (const currency of report.currencies) {
    expect(currency.balanced).toBe(true);
    expect(currency.opening + currency.movements.reduce((total, movement) => total + movement.net, 0)).toBe(currency.closing);
    expect(currency.closing).toBe(entries.reduce((total, entry) => total + entry.net, 0));
  }
}

function checked(command: Command): Command {
  return {
    check: (model) => command.check(model),
    async run(model, real) {
      await command.run(model, real);
      await invariantsHold(real);
    },
    toString: () => command.toString(),
  };
}

class Pay implements Command {
  constructor(
    readonly cents: number,
    readonly refundsFail: boolean,
  ) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    const link = dataOf<{ payment_url: string }>(
      await send(caller, 'POST', '/payment-links', JSON.stringify({ email: 'payer@example.com', currency: 'MYR', amount: this.cents, title: 'Ledger' })),
    );
    const answer = await submitPage(t.url, link.payment_url, { name: 'Payer', ...(this.refundsFail ? REFUND_FAILS_CARD : GOOD_CARD) });
    expect(answer.status).toBe(303);
    real.payments.push(answer.paymentId!);
  }
  toString = () => `pay(${this.cents}${this.refundsFail ? ', refunds fail' : ''})`;
}

class Refund implements Command {
  constructor(
    readonly pick: number,
    readonly share: number,
  ) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    if (real.payments.length === 0) return;
    const id = real.payments[this.pick % real.payments.length]!;
    const payment = dataOf<Payment & { amount_refunded: number }>(await send(caller, 'GET', `/payments/${id}`));
    const left = payment.amount - payment.amount_refunded;
    if (left === 0) return;
    const amount = Math.max(1, Math.min(left, Math.round(left * this.share)));
    const reply = await send(caller, 'POST', `/payments/${id}/refunds`, JSON.stringify({ amount }));
    expect(reply.status, reply.text).toBe(200);
  }
  toString = () => `refund(#${this.pick}, ${this.share})`;
}

/** The schedule run as of `days` after today, for days in any order, some run twice. */
class RunPayouts implements Command {
  constructor(readonly days: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const asOf = dayAfter(today(), this.days);
    const reply = await send(caller, 'POST', '/test-helpers/payouts', JSON.stringify({ as_of: asOf }));
    expect(reply.status, reply.text).toBe(200);
    const made = dataOf<Payout[]>(reply);
    if (model.daysPaid.has(asOf)) expect(made).toEqual([]);
    if (made.length > 0) model.daysPaid.add(asOf);
    real.payouts.push(...made.map((payout) => payout._id));
  }
  toString = () => `runPayouts(today + ${this.days})`;
}

class FailPayout implements Command {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    if (real.payouts.length === 0) return;
    const id = real.payouts[this.pick % real.payouts.length]!;
    const before = dataOf<Payout>(await send(caller, 'GET', `/payouts/${id}`));
    const reply = await send(caller, 'POST', `/test-helpers/payouts/${id}/fail`);
    expect(reply.status, reply.text).toBe(before.status === 'failed' ? 409 : 200);
  }
  toString = () => `failPayout(#${this.pick})`;
}

const commands = fc.commands(
  [
    fc.tuple(fc.integer({ min: 500, max: 50_000 }), fc.boolean()).map(([cents, fails]) => checked(new Pay(cents, fails))),
    fc.tuple(fc.nat(), fc.constantFrom(0.1, 0.5, 1)).map(([pick, share]) => checked(new Refund(pick, share))),
    fc.integer({ min: 0, max: 12 }).map((days) => checked(new RunPayouts(days))),
    fc.nat().map((pick) => checked(new FailPayout(pick))),
  ],
  { maxCommands: 14, ...commandsReplayPath() },
);

describe('the ledger under random payments, refunds and payouts', () => {
  it('every payment and refund has its entries, every payout balances, the balance and the report add up', async () => {
    let run = 0;
    await holds(
      'ledger model',
      commands,
      async (sequence) => {
        // Each run a business of its own: payouts take everything available, so runs must not share one.
        run += 1;
        const business = await t.newTenant(`Ledger ${run}`);
        caller = { apiUrl: t.apiUrl, key: business.key };
        await fc.asyncModelRun(() => ({ model: { daysPaid: new Set<string>() }, real: { payments: [], payouts: [] } }), sequence);
      },
      12,
    );
  }, 300_000);
});
