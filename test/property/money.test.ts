// A model of the money: random sequences of payments (payment links and an open link, several cards),
// charges on saved cards (one that pays, one declined, one expired when charged), refunds (exact, too
// large, of failed payments, refused by the acquirer), bursts of concurrent refunds, a charge racing
// refunds, and refunds and charges sent twice under one Idempotency-Key, run against the service
// (fast-check commands), with the invariants checked after every step: no payment has more refunded
// than was paid, each record says what the model says, total-collection, top-collection and the CSV
// export's lines and net sums equal the records, and every state change was announced by exactly one
// webhook (counted in the outbox, where each is written in its change's transaction).
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHARGE_DECLINES_CARD, CHARGE_EXPIRES_CARD, DECLINED_CARD, GOOD_CARD, REFUND_FAILS_CARD, submitPage } from '../support/payer.js';
import { useWebhookService } from '../support/webhook-service.js';
import { commandsReplayPath, holds, send, type Caller, type Reply } from './harness.js';

let caller: Caller;

const w = useWebhookService();
const { t } = w;
beforeAll(async () => {
  caller = { apiUrl: t.apiUrl, key: t.a.key };
}, 60_000);

interface ModelPayment {
  amount: number;
  refunded: number;
  paid: boolean;
  /** Refunds asked of it that the service recorded (succeeded or failed at the acquirer). */
  refunds: number;
  /** Refunds of this payment fail at the acquirer (the sandbox's 4000 0000 0000 5126). */
  refundsFail: boolean;
  onOpenLink: boolean;
  /** Webhooks this payment's changes must have sent, by event. */
  events: Record<string, number>;
}

interface Model {
  payments: ModelPayment[];
}

type TokenKind = 'good' | 'declines' | 'expires';

interface Real {
  openLink: { _id: string; payment_url: string };
  tokens: Record<TokenKind, string>;
  ids: string[];
}

type Command = fc.AsyncCommand<Model, Real>;

/** A command that checks the invariants once its step is done. */
function checked(command: Command): Command {
  return {
    check: (model) => command.check(model),
    async run(model, real) {
      await command.run(model, real);
      await invariantsHold(model, real);
    },
    toString: () => command.toString(),
  };
}
const CARDS = { good: GOOD_CARD, declined: DECLINED_CARD, refundsFail: REFUND_FAILS_CARD } as const;
type CardKind = keyof typeof CARDS;

const dataOf = <T>(reply: Reply) => (reply.body as { data: T }).data;

function paidOrFailed(cents: number, card: CardKind, onOpenLink: boolean): ModelPayment {
  const paid = card !== 'declined';
  return {
    amount: cents,
    refunded: 0,
    paid,
    refunds: 0,
    refundsFail: card === 'refundsFail',
    onOpenLink,
    events: { [paid ? 'payment.created' : 'payment.failed']: 1 },
  };
}

class PayOpenLink implements Command {
  constructor(
    readonly cents: number,
    readonly card: CardKind,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const answer = await submitPage(t.url, real.openLink.payment_url, {
      amount: (this.cents / 100).toFixed(2),
      name: 'Payer',
      email: 'payer@example.com',
      ...CARDS[this.card],
    });
    const payment = paidOrFailed(this.cents, this.card, true);
    expect(answer.status).toBe(payment.paid ? 303 : 402);
    real.ids.push(payment.paid ? answer.paymentId! : await newestFailed('open_payment_link_id', real.openLink._id));
    model.payments.push(payment);
  }
  toString = () => `payOpenLink(${this.cents}, ${this.card})`;
}

/** A payment link of its own for each payment: a link takes one payment. */
class PayPaymentLink implements Command {
  constructor(
    readonly cents: number,
    readonly card: CardKind,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const link = dataOf<{ _id: string; payment_url: string }>(
      await send(caller, 'POST', '/payment-links', JSON.stringify({ email: 'payer@example.com', currency: 'MYR', amount: this.cents, title: 'Model' })),
    );
    const answer = await submitPage(t.url, link.payment_url, { name: 'Payer', ...CARDS[this.card] });
    const payment = paidOrFailed(this.cents, this.card, false);
    expect(answer.status).toBe(payment.paid ? 303 : 402);
    real.ids.push(payment.paid ? answer.paymentId! : await newestFailed('payment_link_id', link._id));
    model.payments.push(payment);
    expect(dataOf<{ status: string }>(await send(caller, 'GET', `/payment-links/${link._id}`)).status).toBe(payment.paid ? 'Paid' : 'Active');
  }
  toString = () => `payPaymentLink(${this.cents}, ${this.card})`;
}

async function newestFailed(filter: 'open_payment_link_id' | 'payment_link_id', linkId: string): Promise<string> {
  const reply = await send(caller, 'GET', `/payments?filter[${filter}]=${linkId}&filter[status]=failed&per_page=1`);
  return dataOf<{ data: { _id: string }[] }>(reply).data[0]!._id;
}

const CHARGE_OUTCOMES: Record<TokenKind, { status: number; failure: string | null }> = {
  good: { status: 200, failure: null },
  declines: { status: 402, failure: 'card_declined' },
  expires: { status: 402, failure: 'expired_card' },
};

/** Charges a token; `key` sends it under an Idempotency-Key. Checks the answer against the token's card. */
async function charge(real: Real, token: TokenKind, cents: number, key?: string): Promise<Reply> {
  const reply = await send(
    caller,
    'POST',
    `/tokenizations/${real.tokens[token]}/charges`,
    JSON.stringify({ amount: cents, currency: 'MYR' }),
    key ? { 'Idempotency-Key': key } : {},
  );
  const expected = CHARGE_OUTCOMES[token];
  expect(reply.status, reply.text).toBe(expected.status);
  const payment = dataOf<{ status: string; failure_code: string | null; tokenization_id: string; amount: number }>(reply);
  expect(payment).toMatchObject({
    status: expected.failure ? 'failed' : 'paid',
    failure_code: expected.failure,
    tokenization_id: real.tokens[token],
    amount: cents,
  });
  return reply;
}

function charged(model: Model, real: Real, reply: Reply, cents: number): void {
  const paid = reply.status === 200;
  real.ids.push(dataOf<{ _id: string }>(reply)._id);
  model.payments.push({
    amount: cents,
    refunded: 0,
    paid,
    refunds: 0,
    refundsFail: false,
    onOpenLink: false,
    events: { [paid ? 'payment.created' : 'payment.failed']: 1 },
  });
}

class Charge implements Command {
  constructor(
    readonly cents: number,
    readonly token: TokenKind,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    charged(model, real, await charge(real, this.token, this.cents), this.cents);
  }
  toString = () => `charge(${this.cents}, ${this.token})`;
}

/** The same charge sent twice under one Idempotency-Key: the second is the first's answer, replayed, and charges nothing. */
class RetriedCharge implements Command {
  constructor(
    readonly cents: number,
    readonly token: TokenKind,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const key = randomUUID();
    const first = await charge(real, this.token, this.cents, key);
    const again = await charge(real, this.token, this.cents, key);
    expect({ status: again.status, body: again.body }).toStrictEqual({ status: first.status, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    charged(model, real, first, this.cents);
  }
  toString = () => `retriedCharge(${this.cents}, ${this.token})`;
}

/** What the service must answer a refund of `amount` (undefined: the rest) given the model. */
function expectedRefund(payment: ModelPayment, amount: number | undefined): { status: number; succeeds: boolean } {
  const left = payment.amount - payment.refunded;
  if (!payment.paid || left === 0) return { status: 409, succeeds: false };
  if (amount !== undefined && amount > left) return { status: 422, succeeds: false };
  return { status: 200, succeeds: !payment.refundsFail };
}

/** Books a refund the service answered 200 into the model: its event, and its amount if it went back. */
function refunded(payment: ModelPayment, reply: Reply): number {
  const refund = dataOf<{ status: string; amount: number }>(reply);
  const event = refund.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed';
  payment.events[event] = (payment.events[event] ?? 0) + 1;
  payment.refunds += 1;
  return refund.status === 'succeeded' ? refund.amount : 0;
}

class Refund implements Command {
  constructor(
    readonly pick: number,
    /** A share of what is left (1 = all of it, above 1 = too much), or null for no amount. */
    readonly share: number | null,
    /** Sent twice under one Idempotency-Key: the second answer is the first, replayed, and refunds nothing. */
    readonly retried = false,
  ) {}
  check = (model: Readonly<Model>) => model.payments.length > 0;
  async run(model: Model, real: Real) {
    const index = this.pick % model.payments.length;
    const payment = model.payments[index]!;
    const left = payment.amount - payment.refunded;
    const amount = this.share === null ? undefined : Math.max(1, Math.round(left * this.share));
    const expected = expectedRefund(payment, amount);
    const headers: Record<string, string> = this.retried ? { 'Idempotency-Key': randomUUID() } : {};
    const path = `/payments/${real.ids[index]}/refunds`;
    const body = amount === undefined ? undefined : JSON.stringify({ amount });
    const reply = await send(caller, 'POST', path, body, headers);
    expect(reply.status, reply.text).toBe(expected.status);
    if (this.retried) {
      const again = await send(caller, 'POST', path, body, headers);
      expect({ status: again.status, body: again.body }).toStrictEqual({ status: reply.status, body: reply.body });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    if (reply.status !== 200) return;
    expect(dataOf<{ status: string }>(reply).status).toBe(expected.succeeds ? 'succeeded' : 'failed');
    payment.refunded += refunded(payment, reply);
  }
  toString = () => `${this.retried ? 'retriedRefund' : 'refund'}(#${this.pick}, ${this.share ?? 'rest'})`;
}

/** Refunds of one payment sent at once, and (racing them) a charge on the saved card. */
class ConcurrentRefunds implements Command {
  constructor(
    readonly pick: number,
    readonly amounts: number[],
    /** Cents of a charge sent with them, or null. */
    readonly chargeCents: number | null,
  ) {}
  check = (model: Readonly<Model>) => model.payments.length > 0;
  async run(model: Model, real: Real) {
    const index = this.pick % model.payments.length;
    const payment = model.payments[index]!;
    const refunds = this.amounts.map((amount) => send(caller, 'POST', `/payments/${real.ids[index]}/refunds`, JSON.stringify({ amount })));
    const [chargeReply, ...replies] = await Promise.all([this.chargeCents === null ? undefined : charge(real, 'good', this.chargeCents), ...refunds]);
    let took = 0;
    for (const reply of replies as Reply[]) {
      expect([200, 409, 422], reply.text).toContain(reply.status);
      if (reply.status === 200) took += refunded(payment, reply);
    }
    // However they interleaved, together they took no more than was left.
    expect(took).toBeLessThanOrEqual(payment.amount - payment.refunded);
    if (!payment.paid) expect((replies as Reply[]).every((reply) => reply.status === 409)).toBe(true);
    payment.refunded += took;
    if (chargeReply) charged(model, real, chargeReply, this.chargeCents!);
  }
  toString = () => `concurrentRefunds(#${this.pick}, [${this.amounts.join(', ')}]${this.chargeCents === null ? '' : `, charge ${this.chargeCents}`})`;
}

/** The webhooks enqueued for each payment, by event, from the outbox. */
async function eventsByPayment(): Promise<Map<string, Record<string, number>>> {
  const rows = (await t.sql('outbox').where({ business_id: t.a.business.id, channel: 'webhook' }).select('topic', 'payload')) as {
    topic: string;
    payload: string;
  }[];
  const counts = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const paymentId = (JSON.parse(row.payload) as { body: { data: { payment_id?: string } } }).body.data.payment_id;
    if (!paymentId) continue;
    const events = counts.get(paymentId) ?? {};
    events[row.topic] = (events[row.topic] ?? 0) + 1;
    counts.set(paymentId, events);
  }
  return counts;
}

const STATE_ROWS: Record<string, Record<string, number>> = {
  '': {},
  paid: { status_id: 1, refund_state: 0 },
  partially_refunded: { status_id: 1, refund_state: 1 },
  refunded: { status_id: 1, refund_state: 2 },
  failed: { status_id: 3 },
};

const cents = (units: string) => Math.round(Number(units) * 100);

async function invariantsHold(model: Model, real: Real): Promise<void> {
  const events = await eventsByPayment();
  for (const [index, expected] of model.payments.entries()) {
    const reply = await send(caller, 'GET', `/payments/${real.ids[index]}`);
    const payment = dataOf<{ amount: number; amount_refunded: number; status: string }>(reply);
    expect(payment.amount_refunded).toBeLessThanOrEqual(payment.amount);
    expect(payment.amount_refunded).toBe(expected.refunded);
    const status = !expected.paid ? 'failed' : expected.refunded === 0 ? 'paid' : expected.refunded === expected.amount ? 'refunded' : 'partially_refunded';
    expect(payment.status).toBe(status);
    const refunds = dataOf<{ status: string; amount: number }[]>(await send(caller, 'GET', `/payments/${real.ids[index]}/refunds`));
    expect(refunds).toHaveLength(expected.refunds);
    expect(refunds.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0)).toBe(expected.refunded);
    expect(events.get(real.ids[index]!) ?? {}).toEqual(expected.events);
  }
  // The list totals come from counts kept by triggers: they equal the rows, state by state.
  for (const [status, where] of Object.entries(STATE_ROWS)) {
    const listed = dataOf<{ total: number }>(await send(caller, 'GET', `/payments${status ? `?filter[status]=${status}` : ''}`));
    const counted = (await t
      .sql('payments')
      .where({ business_id: t.a.business.id, ...where })
      .count({ n: '*' })
      .first()) as { n: number | string };
    expect(listed.total, `total of filter[status]=${status}`).toBe(Number(counted.n));
  }

  // The open link's reports: every paid payment on it is a collection at the amount paid, refunded or not.
  const onLink = model.payments.map((payment, index) => ({ ...payment, id: real.ids[index]! })).filter((p) => p.onOpenLink && p.paid);
  const totals = dataOf<{ total_amount: number; total_count: number; total_refunded: number }>(
    await send(caller, 'GET', `/open-payment-links/${real.openLink._id}/total-collection`),
  );
  expect(totals.total_count).toBe(onLink.length);
  expect(Math.round(totals.total_amount * 100)).toBe(onLink.reduce((sum, p) => sum + p.amount, 0));
  expect(Math.round(totals.total_refunded * 100)).toBe(onLink.reduce((sum, p) => sum + p.refunded, 0));
  const top = dataOf<{ collections: { _id: string; amount: number }[] }>(
    await send(caller, 'GET', `/open-payment-links/${real.openLink._id}/top-collection?filter[limit]=100`),
  );
  // Biggest first; ties most recent first (the model's later payments were made later).
  const ranked = onLink.map((p, order) => ({ ...p, order })).sort((x, y) => y.amount - x.amount || y.order - x.order);
  expect(top.collections.map((c) => [c._id, Math.round(c.amount * 100)])).toEqual(ranked.map((p) => [p.id, p.amount]));

  // The CSV export: a line per payment with what was refunded and kept, then a line per refund.
  const csv = await send(caller, 'GET', '/payments', undefined, { Accept: 'text/csv' });
  expect(csv.status).toBe(200);
  const lines = (parse(csv.text, { columns: true }) as Record<string, string>[]).filter((line) => real.ids.includes(line.payment_id!));
  let net = 0;
  for (const [index, expected] of model.payments.entries()) {
    const id = real.ids[index]!;
    const [line, ...refundLines] = lines.filter((l) => l.payment_id === id);
    expect(line, id).toMatchObject({ line: 'payment', id });
    expect(cents(line!.amount!)).toBe(expected.amount);
    expect(cents(line!.refunded!)).toBe(expected.refunded);
    expect(cents(line!.net!)).toBe(expected.paid ? expected.amount - expected.refunded : 0);
    net += cents(line!.net!);
    expect(refundLines.every((l) => l.line === 'refund')).toBe(true);
    expect(refundLines).toHaveLength(expected.refunds);
    expect(refundLines.filter((l) => l.status === 'succeeded').reduce((sum, l) => sum + cents(l.amount!), 0)).toBe(expected.refunded);
  }
  expect(net).toBe(model.payments.reduce((sum, p) => sum + (p.paid ? p.amount - p.refunded : 0), 0));
}

const amounts = fc.integer({ min: 500, max: 20_000 });
const card = fc.constantFrom<CardKind>('good', 'good', 'declined', 'refundsFail');
const token = fc.constantFrom<TokenKind>('good', 'good', 'declines', 'expires');
const share = fc.option(fc.constantFrom(0.1, 0.25, 0.5, 1, 1.5), { nil: null });
const commands = fc.commands(
  [
    fc.tuple(amounts, card).map(([amount, kind]) => checked(new PayOpenLink(amount, kind))),
    fc.tuple(amounts, card).map(([amount, kind]) => checked(new PayPaymentLink(amount, kind))),
    fc.tuple(amounts, token).map(([amount, kind]) => checked(new Charge(amount, kind))),
    fc.tuple(amounts, token).map(([amount, kind]) => checked(new RetriedCharge(amount, kind))),
    fc.tuple(fc.nat(), share).map(([pick, part]) => checked(new Refund(pick, part))),
    fc.tuple(fc.nat(), share).map(([pick, part]) => checked(new Refund(pick, part, true))),
    fc
      .tuple(fc.nat(), fc.array(fc.integer({ min: 1, max: 8_000 }), { minLength: 2, maxLength: 6 }), fc.option(amounts, { nil: null }))
      .map(([pick, parts, chargeCents]) => checked(new ConcurrentRefunds(pick, parts, chargeCents))),
  ],
  { maxCommands: 14, ...commandsReplayPath() },
);

async function cardOnToken(saved: Record<string, string>): Promise<string> {
  const reply = await send(caller, 'POST', '/tokenizations/create-token', JSON.stringify({ email: 'payer@example.com', title: 'Plan', description: 'Card' }));
  const created = dataOf<{ _id: string; activation_url: string }>(reply);
  expect((await submitPage(t.url, created.activation_url, { name: 'Payer', ...saved })).status).toBe(303);
  return created._id;
}

describe('money kept by payments, charges and refunds', () => {
  it('random sequences keep refunded <= paid, records = model, totals and CSV = sums, one webhook per change', async () => {
    await holds(
      'money model',
      commands,
      async (sequence) => {
        const openLink = dataOf<{ _id: string; payment_url: string }>(
          await send(caller, 'POST', '/open-payment-links', JSON.stringify({ currency: 'MYR', minimum_amount: '5.00', title: 'Model' })),
        );
        const real: Real = {
          openLink,
          tokens: { good: await cardOnToken(GOOD_CARD), declines: await cardOnToken(CHARGE_DECLINES_CARD), expires: await cardOnToken(CHARGE_EXPIRES_CARD) },
          ids: [],
        };
        const model: Model = { payments: [] };
        await fc.asyncModelRun(() => ({ model, real }), sequence);
      },
      40,
    );
  }, 300_000);
});
