// The account's balance as Stripe keeps it: each succeeded charge, refund and failed refund is a
// balance transaction (amount, Stripe's fee, net), pending until its available_on and available
// after; automatic payouts bundle what is available and not yet paid out, each with a `payout`
// balance transaction of its own; a payout that fails after it was paid gives its funds back through
// a `payout_failure` one, which the next payout carries.
//
// Time: a payout is run "as of" a day (a control, as a test or a person at the control page asks
// for it). That day's end becomes the account's balance clock, so what was available by then is
// available from then on, and balance transactions made afterwards are dated from that clock: a
// test walks through days without waiting for them.
import type Stripe from 'stripe';
import type { Context } from './context.js';
import { newId, now, type Account } from './state.js';

const DAY = 24 * 60 * 60;

/** Unix seconds the account's balance has reached: real time, or the end of the last day a payout was run as of. */
export function balanceNow(account: Account): number {
  return Math.max(now(), account.balanceClock);
}

function dayStart(time: number): number {
  return time - (time % DAY);
}

/** A day written YYYY-MM-DD, as unix seconds at its start (UTC, as Stripe dates availability and arrival). */
export function dayOf(text: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!match || new Date(time).toISOString().slice(0, 10) !== text) throw new Error(`as_of must be a day written YYYY-MM-DD, not "${text}"`);
  return time / 1000;
}

function feeOf(account: Account, type: string, amount: number): number {
  const rule = account.settlement.fees[type];
  if (!rule) return 0;
  return Math.min(amount, Math.round((amount * rule.percent) / 100) + rule.fixed);
}

function balanceTransaction(
  account: Account,
  params: {
    type: Stripe.BalanceTransaction.Type;
    reportingCategory: string;
    amount: number;
    fee: number;
    currency: string;
    source: string;
    description: string | null;
    availableOn?: number;
  },
): Stripe.BalanceTransaction {
  const created = balanceNow(account);
  const availableOn = params.availableOn ?? created;
  return account.add({
    id: newId('txn_'),
    object: 'balance_transaction',
    amount: params.amount,
    available_on: availableOn,
    balance_type: 'payments',
    created,
    currency: params.currency,
    description: params.description,
    exchange_rate: null,
    fee: params.fee,
    fee_details:
      params.fee === 0 ? [] : [{ amount: params.fee, application: null, currency: params.currency, description: 'Stripe processing fees', type: 'stripe_fee' }],
    net: params.amount - params.fee,
    reporting_category: params.reportingCategory,
    source: params.source,
    status: availableOn <= created ? 'available' : 'pending',
    type: params.type,
  });
}

/** Stripe books a card charge (`ch_`) as a `charge` and one by another method (`py_`: FPX, GrabPay) as a `payment`, their refunds alike. */
function byOtherMethod(id: string): boolean {
  return id.startsWith('py');
}

/** A charge that succeeded: its funds, less Stripe's fee for its payment method, pending for the account's days. */
export function recordCharge(account: Account, charge: Stripe.Charge): void {
  const type = charge.payment_method_details?.type ?? 'card';
  const transaction = balanceTransaction(account, {
    type: byOtherMethod(charge.id) ? 'payment' : 'charge',
    reportingCategory: 'charge',
    amount: charge.amount,
    fee: feeOf(account, type, charge.amount),
    currency: charge.currency,
    source: charge.id,
    description: charge.description,
    availableOn: dayStart(balanceNow(account)) + account.settlement.availableAfterDays * DAY,
  });
  charge.balance_transaction = transaction.id;
}

/** A refund takes its amount out of the balance at once; Stripe keeps the charge's fee. */
export function recordRefund(account: Account, refund: Stripe.Refund): void {
  const transaction = balanceTransaction(account, {
    type: byOtherMethod(refund.id) ? 'payment_refund' : 'refund',
    reportingCategory: 'refund',
    amount: -refund.amount,
    fee: 0,
    currency: refund.currency,
    source: refund.id,
    description: `REFUND FOR CHARGE (${String(refund.charge)})`,
  });
  refund.balance_transaction = transaction.id;
}

/** A refund that failed after it looked successful: its amount comes back to the balance. */
export function recordRefundFailure(account: Account, refund: Stripe.Refund): void {
  const transaction = balanceTransaction(account, {
    type: 'refund_failure',
    reportingCategory: 'refund_failure',
    amount: refund.amount,
    fee: 0,
    currency: refund.currency,
    source: refund.id,
    description: `REFUND FAILURE FOR CHARGE (${String(refund.charge)})`,
  });
  refund.failure_balance_transaction = transaction.id;
}

/** Pending balance transactions whose day has come become available. True when any did. */
export function releaseAvailable(account: Account): boolean {
  const clock = balanceNow(account);
  let released = false;
  for (const transaction of account.all('balance_transaction')) {
    if (transaction.status === 'pending' && transaction.available_on <= clock) {
      transaction.status = 'available';
      released = true;
    }
  }
  return released;
}

/** The balance by currency: what is available (payouts already taken out) and what is still pending. */
export function balanceOf(account: Account): Stripe.Balance {
  releaseAvailable(account);
  const sums = new Map<string, { available: number; pending: number }>();
  for (const transaction of account.all('balance_transaction')) {
    const sum = sums.get(transaction.currency) ?? { available: 0, pending: 0 };
    if (transaction.status === 'available') sum.available += transaction.net;
    else sum.pending += transaction.net;
    sums.set(transaction.currency, sum);
  }
  // A Malaysian account with no transactions yet shows its default currency at zero.
  if (sums.size === 0) sums.set('myr', { available: 0, pending: 0 });
  const entries = [...sums.entries()];
  return {
    object: 'balance',
    available: entries.map(([currency, sum]) => ({ amount: sum.available, currency })),
    livemode: false,
    pending: entries.map(([currency, sum]) => ({ amount: sum.pending, currency })),
  };
}

/** The bank's reference for a payout that reached it, as banks print it on a statement. */
function traceId(): Stripe.Payout.TraceId {
  return { status: 'supported', value: newId('', 16).toUpperCase() };
}

/** How a payout run ends: paid at once, or held in transit until paid or failed by hand. */
export interface PayoutRun {
  /** The day (unix seconds at its start, UTC) the payout is run as of. */
  asOf: number;
  hold: boolean;
}

/**
 * An automatic payout as of a day: everything available by that day's end and not yet paid out, one
 * payout per currency, of the net total (negative when refunds exceed collections: Stripe then
 * debits the bank account). A currency whose total is zero waits for a later payout.
 */
export function runPayouts(ctx: Context, run: PayoutRun): Stripe.Payout[] {
  const { account } = ctx;
  account.balanceClock = Math.max(account.balanceClock, run.asOf + DAY - 1);
  if (releaseAvailable(account)) ctx.emit('balance.available', balanceOf(account));
  const due = account.all('balance_transaction').filter((transaction) => transaction.status === 'available' && !account.paidOutIn.has(transaction.id));
  const currencies = [...new Set(due.map((transaction) => transaction.currency))];
  const payouts: Stripe.Payout[] = [];
  for (const currency of currencies) {
    const included = due.filter((transaction) => transaction.currency === currency);
    const amount = included.reduce((sum, transaction) => sum + transaction.net, 0);
    if (amount === 0) continue;
    const payout = account.add(newPayout(account, amount, currency, run.asOf + DAY));
    const own = balanceTransaction(account, {
      type: 'payout',
      reportingCategory: 'payout',
      amount: -amount,
      fee: 0,
      currency,
      source: payout.id,
      description: 'STRIPE PAYOUT',
    });
    payout.balance_transaction = own.id;
    for (const transaction of [...included, own]) account.paidOutIn.set(transaction.id, payout.id);
    ctx.emit('payout.created', payout);
    payout.status = 'in_transit';
    ctx.emit('payout.updated', payout, { status: 'pending' });
    if (!run.hold) payPayout(ctx, payout);
    payouts.push(payout);
  }
  return payouts;
}

function newPayout(account: Account, amount: number, currency: string, arrivalDate: number): Stripe.Payout {
  return {
    id: newId('po_'),
    object: 'payout',
    amount,
    application_fee: null,
    application_fee_amount: null,
    arrival_date: arrivalDate,
    automatic: true,
    balance_transaction: null,
    created: balanceNow(account),
    currency,
    description: 'STRIPE PAYOUT',
    destination: `ba_${account.id.slice('acct_'.length)}`,
    failure_balance_transaction: null,
    failure_code: null,
    failure_message: null,
    livemode: false,
    metadata: {},
    method: 'standard',
    original_payout: null,
    payout_method: null,
    reconciliation_status: 'in_progress',
    reversed_by: null,
    source_type: 'card',
    statement_descriptor: null,
    status: 'pending',
    trace_id: { status: 'pending', value: null },
    type: 'bank_account',
  };
}

/** A payout in transit reaches the bank: paid, with the bank's reference, and Stripe's reconciliation of it done. */
export function payPayout(ctx: Context, payout: Stripe.Payout): void {
  if (payout.status !== 'in_transit' && payout.status !== 'pending') throw new Error(`${payout.id} is ${payout.status}: only a payout on its way can be paid`);
  const previous = { status: payout.status };
  Object.assign(payout, { status: 'paid', trace_id: traceId() });
  ctx.emit('payout.paid', payout, previous);
  payout.reconciliation_status = 'completed';
  ctx.emit('payout.reconciliation_completed', payout, { reconciliation_status: 'in_progress' });
}

/** Stripe's failure codes for a payout the bank returned, and what it says of each. */
export const PAYOUT_FAILURES: Record<string, string> = {
  account_closed: 'The bank account has been closed.',
  could_not_process: 'The bank could not process this payout.',
  invalid_account_number: 'The bank account number is invalid.',
  no_account: 'The bank account details on file are probably incorrect.',
};

/**
 * The bank returns a payout, which Stripe warns can happen days after it was marked paid: failed,
 * its funds back in the balance through a `payout_failure` balance transaction that the next
 * payout carries.
 */
export function failPayout(ctx: Context, payout: Stripe.Payout, code: string): void {
  if (!['paid', 'in_transit', 'pending'].includes(payout.status)) throw new Error(`${payout.id} is ${payout.status}: it cannot fail now`);
  const message = PAYOUT_FAILURES[code];
  if (!message) throw new Error(`failure code must be one of ${Object.keys(PAYOUT_FAILURES).join(', ')}`);
  const returned = balanceTransaction(ctx.account, {
    type: 'payout_failure',
    reportingCategory: 'payout_reversal',
    amount: payout.amount,
    fee: 0,
    currency: payout.currency,
    source: payout.id,
    description: 'STRIPE PAYOUT FAILURE',
  });
  const previous = { status: payout.status, failure_code: null, failure_message: null, failure_balance_transaction: null };
  Object.assign(payout, { status: 'failed', failure_code: code, failure_message: message, failure_balance_transaction: returned.id });
  ctx.emit('payout.failed', payout, previous);
  ctx.emit('balance.available', balanceOf(ctx.account));
}
