// Payouts: the sums sent to a business's bank account, each the net of the ledger entries it takes,
// and each checked to add up, to the sen, whenever it is made or changes. The sandbox makes its own
// (one a business day, of everything available); Stripe's are brought in by the settlement sync.
import { newId } from '../../domain/ids.js';
import { assignToPayout, insertBalanceTransaction, payoutItemsSum, unpaidAvailableEntries, unpaidCurrencies } from '../../store/balance-transactions.js';
import type { Executor } from '../../store/executor.js';
import { findPayout, insertPayout, updatePayout, type PayoutRecord } from '../../store/payouts.js';
import { nowIso } from '../../store/timestamps.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyPayout } from '../platform/notify.js';
import { businessToday } from './ledger.js';

export const SANDBOX = 'sandbox';

const BALANCED = 'Its entries add up to its amount; its deposit is not on a bank statement yet.';
const RETURNED = 'The bank returned the payout; its amount is back in the balance.';

/**
 * Checks that a payout's entries add up to it, and records the outcome: a payout that does not
 * balance is `mismatched` and announced (`payout.reconciliation_failed`) once, when it becomes so.
 * A payout already matched to its deposit, or explained, keeps that state while it balances.
 */
export async function checkPayoutBalances(tx: Executor, payout: PayoutRecord): Promise<PayoutRecord> {
  const items = await payoutItemsSum(tx, payout._id);
  const at = nowIso();
  if (items.net !== payout.amount) {
    const reason = `Its entries add up to ${items.net} sen, not its amount of ${payout.amount} sen.`.slice(0, 200);
    const wasMismatched = payout.reconciliation_status === 'mismatched';
    const updated = (await updatePayout(tx, payout._id, {
      transaction_count: items.count,
      reconciliation_status: 'mismatched',
      reconciliation_reason: reason,
      reconciliation_checked_at: at,
    }))!;
    if (!wasMismatched) await notifyPayout(tx, updated.business_id, 'payout.reconciliation_failed', updated);
    return updated;
  }
  const keep = payout.reconciliation_status === 'matched' || payout.reconciliation_status === 'explained';
  return (await updatePayout(tx, payout._id, {
    transaction_count: items.count,
    ...(keep ? {} : { reconciliation_status: 'expected' as const, reconciliation_reason: BALANCED }),
    reconciliation_checked_at: at,
  }))!;
}

/** Why a business cannot use the sandbox's test helpers: it takes payments through another acquirer. */
export interface NotOnSandbox {
  result: 'not_sandbox';
  acquirer: string;
}

export type SandboxPayoutRun = { result: 'ran'; payouts: PayoutRecord[] } | NotOnSandbox;

async function notOnSandbox(ctx: UseCaseContext, businessId: number): Promise<NotOnSandbox | undefined> {
  const acquirer = await ctx.acquirers.nameForBusiness(businessId);
  return acquirer === SANDBOX ? undefined : { result: 'not_sandbox', acquirer };
}

/**
 * The sandbox's payout schedule as if today were `asOf` (the business's day): on a business day,
 * one payout per currency of every entry available by then and not yet paid out, arriving that
 * day. A day's payout is made once: its acquirer reference names the day, and the store's unique
 * index turns a second run (or a concurrent one) into nothing.
 */
export async function runSandboxPayouts(ctx: UseCaseContext, businessId: number, asOf: string): Promise<SandboxPayoutRun> {
  const refused = await notOnSandbox(ctx, businessId);
  if (refused) return refused;
  if (!ctx.settlement.isBusinessDay(asOf)) return { result: 'ran', payouts: [] };
  const made: PayoutRecord[] = [];
  for (const currency of await unpaidCurrencies(ctx.db, businessId)) {
    let payout: PayoutRecord | undefined;
    try {
      payout = await ctx.db.transaction((tx) => makeSandboxPayout(tx, businessId, currency, asOf));
    } catch (error) {
      if (!(error instanceof NothingToPayOut)) throw error;
    }
    if (payout) made.push(payout);
  }
  if (made.length > 0) ctx.outbox.nudge();
  return { result: 'ran', payouts: made };
}

async function makeSandboxPayout(tx: Executor, businessId: number, currency: string, asOf: string): Promise<PayoutRecord | undefined> {
  const available = await unpaidAvailableEntries(tx, businessId, currency, asOf);
  if (available.ids.length === 0) return undefined;
  const id = newId();
  const compact = asOf.replace(/-/g, '');
  const inserted = await insertPayout(tx, {
    _id: id,
    business_id: businessId,
    provider: SANDBOX,
    amount: 0,
    currency,
    status: 'paid',
    arrival_date: asOf,
    acquirer_reference: `po_sandbox_${compact}_${currency.toLowerCase()}`,
    bank_reference: `SBX${compact}${id.slice(-6).toUpperCase()}`,
  });
  if (!inserted) return undefined;
  // Entries another payout took meanwhile are not this one's: it is what it actually took.
  await assignToPayout(tx, available.ids, id);
  const taken = await payoutItemsSum(tx, id);
  // Entries that cancel out (a refund and its failure) are no payout: they wait, as acquirers' zero totals do.
  if (taken.net === 0) throw new NothingToPayOut();
  await insertBalanceTransaction(tx, {
    _id: newId(),
    business_id: businessId,
    type: 'payout',
    amount: -taken.net,
    fee: 0,
    currency,
    available_on: asOf,
    source_type: 'payout',
    source_id: id,
    acquirer_reference: inserted.acquirer_reference,
    payout_id: id,
    description: `Payout arriving ${asOf}`,
    created_at: nowIso(),
  });
  const payout = await checkPayoutBalances(tx, (await updatePayout(tx, id, { amount: taken.net }))!);
  await notifyPayout(tx, businessId, 'payout.created', payout);
  await notifyPayout(tx, businessId, 'payout.paid', payout);
  return payout;
}

/** Thrown to roll back a day's payout whose entries add up to nothing. */
class NothingToPayOut extends Error {}

export type PayoutFailure = { result: 'failed'; payout: PayoutRecord } | { result: 'not_found' } | { result: 'conflict'; message: string } | NotOnSandbox;

/**
 * A payout the bank returned (Stripe warns a `paid` payout can fail later): it is failed, and its
 * amount comes back to the balance as a `payout_failure` entry, which the next payout takes. The
 * entries it took stay its own: their money is what came back.
 */
export async function failPayout(ctx: UseCaseContext, businessId: number, payoutId: string, failure = BANK_RETURNED): Promise<PayoutFailure> {
  const refused = await notOnSandbox(ctx, businessId);
  if (refused) return refused;
  const found = await findPayout(ctx.db, businessId, payoutId);
  if (!found || found.provider !== SANDBOX) return { result: 'not_found' };
  const outcome = await ctx.db.transaction((tx) => recordPayoutFailure(tx, found, failure));
  if (!outcome)
    return {
      result: 'conflict',
      message: `This payout is ${found.status === 'failed' ? 'already failed' : found.status}; only a paid or in-transit payout can fail.`,
    };
  ctx.outbox.nudge();
  return { result: 'failed', payout: outcome };
}

export const BANK_RETURNED = { code: 'account_closed', message: 'The bank account has been closed.' };

/** Records a payout's failure in the caller's transaction; undefined when it was not paid or in transit. */
export async function recordPayoutFailure(tx: Executor, payout: PayoutRecord, failure: { code: string; message: string }): Promise<PayoutRecord | undefined> {
  const failed = await updatePayout(
    tx,
    payout._id,
    { status: 'failed', failure_code: failure.code, failure_message: failure.message.slice(0, 200) },
    { status: ['paid', 'in_transit', 'pending'] },
  );
  if (!failed) return undefined;
  await insertBalanceTransaction(tx, {
    _id: newId(),
    business_id: payout.business_id,
    type: 'payout_failure',
    amount: payout.amount,
    fee: 0,
    currency: payout.currency,
    available_on: await businessToday(tx, payout.business_id),
    source_type: 'payout',
    source_id: payout._id,
    acquirer_reference: payout.acquirer_reference,
    description: failure.message.slice(0, 200),
    created_at: nowIso(),
  });
  const checked = await checkPayoutBalances(tx, failed);
  const explained =
    checked.reconciliation_status === 'mismatched'
      ? checked
      : (await updatePayout(tx, payout._id, { reconciliation_status: 'explained', reconciliation_reason: RETURNED }))!;
  await notifyPayout(tx, payout.business_id, 'payout.failed', explained);
  return explained;
}
