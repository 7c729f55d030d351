// Payouts an acquirer makes on its own schedule (Stripe), brought into the ledger: each payout, the
// entries that went into it matched to ours (a payment's charge, a refund, a refund's failure, an
// earlier payout's failure), a fee the acquirer booked differently corrected by an adjustment, and
// the check that the payout adds up. Driven by the acquirer's payout notifications and by a periodic
// sync over a window of recent payouts; running either again writes nothing new (every entry is
// unique by its source, every payout by the acquirer's id), so a sync cut short resumes by running again.
import type { AcquirerPayout, BalanceEntry, SettlementFeed } from '../../acquirers/settlement-feed.js';
import { newId } from '../../domain/ids.js';
import {
  assignToPayout,
  findEntryByAcquirerReference,
  findEntryOfSource,
  insertBalanceTransaction,
  type BalanceTransactionRecord,
} from '../../store/balance-transactions.js';
import type { Executor } from '../../store/executor.js';
import { findPaymentByProviderReference, recordPaymentBalance } from '../../store/payments.js';
import { findPayoutByAcquirerReference, insertPayout, updatePayout, type PayoutRecord } from '../../store/payouts.js';
import { findRefundByAcquirerReference } from '../../store/refunds.js';
import { nowIso } from '../../store/timestamps.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyPayout } from '../platform/notify.js';
import { checkPayoutBalances, recordPayoutFailure } from './payouts.js';

/** Syncs that may find a payout's entries not all known before it is mismatched. */
export const SYNCS_BEFORE_MISMATCH = 2;

export function isSettlementFeed(acquirer: unknown): acquirer is SettlementFeed {
  return typeof acquirer === 'object' && acquirer !== null && 'payoutEntries' in acquirer && 'payoutsCreatedSince' in acquirer;
}

/** A payout as the acquirer has it, with what went into it: read outside any transaction. */
export interface AcquirerPayoutReport {
  payout: AcquirerPayout;
  entries: BalanceEntry[];
}

export async function readAcquirerPayout(feed: SettlementFeed, payout: AcquirerPayout): Promise<AcquirerPayoutReport> {
  // A payout that failed before it was paid took nothing: Stripe lists no entries for it.
  return { payout, entries: await feed.payoutEntries(payout.payoutId) };
}

/** Our entry for one of the acquirer's, written now when it is a correction or a movement we never recorded. */
async function ourEntry(
  tx: Executor,
  businessId: number,
  provider: string,
  payout: PayoutRecord,
  entry: BalanceEntry,
): Promise<BalanceTransactionRecord | undefined> {
  switch (entry.type) {
    case 'payment': {
      const payment = entry.paymentReference ? await findPaymentByProviderReference(tx, businessId, provider, entry.paymentReference) : undefined;
      if (!payment) return undefined;
      const charge = await findEntryOfSource(tx, 'charge', payment._id);
      if (!charge) return undefined;
      if (charge.fee !== entry.fee && !(await findEntryByAcquirerReference(tx, businessId, 'adjustment', entry.entryId))) {
        // The fee was not known when the payment was recorded (or differs): the ledger is corrected by an entry, never an edit.
        const adjustment = await insertBalanceTransaction(tx, {
          _id: newId(),
          business_id: businessId,
          type: 'adjustment',
          amount: 0,
          fee: entry.fee - charge.fee,
          currency: entry.currency,
          available_on: entry.availableOn,
          source_type: 'payment',
          source_id: payment._id,
          acquirer_reference: entry.entryId,
          description: `The acquirer's fee on this payment is ${entry.fee} sen, not the ${charge.fee} sen first recorded.`,
          created_at: nowIso(),
        });
        await recordPaymentBalance(tx, payment._id, { fee: entry.fee, net: payment.amount - entry.fee, balance_transaction_id: charge._id });
        if (adjustment) await assignToPayout(tx, [adjustment._id], payout._id);
      }
      return charge;
    }
    case 'refund':
    case 'refund_failure': {
      const payment = entry.paymentReference ? await findPaymentByProviderReference(tx, businessId, provider, entry.paymentReference) : undefined;
      const refund = payment && entry.sourceId ? await findRefundByAcquirerReference(tx, payment._id, entry.sourceId) : undefined;
      return refund && findEntryOfSource(tx, entry.type, refund._id);
    }
    case 'payout_failure': {
      const failed = entry.sourceId ? await findPayoutByAcquirerReference(tx, businessId, provider, entry.sourceId) : undefined;
      return failed && findEntryOfSource(tx, 'payout_failure', failed._id);
    }
    case 'payout':
      return undefined;
    case 'other': {
      // Something the acquirer booked that no payment of ours explains (its own fees, a correction): kept as it booked it.
      const known = await findEntryByAcquirerReference(tx, businessId, 'adjustment', entry.entryId);
      return (
        known ??
        insertBalanceTransaction(tx, {
          _id: newId(),
          business_id: businessId,
          type: 'adjustment',
          amount: entry.amount,
          fee: entry.fee,
          currency: entry.currency,
          available_on: entry.availableOn,
          source_type: 'payout',
          source_id: payout._id,
          acquirer_reference: entry.entryId,
          description: `Booked by the acquirer as ${entry.acquirerType}.`.slice(0, 200),
          created_at: nowIso(),
        })
      );
    }
  }
}

/**
 * Applies one payout as the acquirer reported it, in the caller's transaction: the payout recorded
 * or brought up to date, its entries given to it, its own entry written, a failure's money given
 * back, and the check. Entries of ours not yet known (a payment whose notification has not come)
 * leave it incomplete: at the second periodic sync that still finds them missing, it is mismatched.
 */
export async function applyAcquirerPayout(
  tx: Executor,
  businessId: number,
  provider: string,
  report: AcquirerPayoutReport,
  { periodicSync }: { periodicSync: boolean },
): Promise<PayoutRecord> {
  const { payout: theirs } = report;
  let payout = await findPayoutByAcquirerReference(tx, businessId, provider, theirs.payoutId);
  let created = false;
  if (!payout) {
    const inserted = await insertPayout(tx, {
      _id: newId(),
      business_id: businessId,
      provider,
      amount: theirs.amount,
      currency: theirs.currency,
      status: theirs.status === 'failed' ? 'paid' : theirs.status,
      arrival_date: theirs.arrivalDate,
      acquirer_reference: theirs.payoutId,
      bank_reference: theirs.bankReference,
    });
    created = inserted !== undefined;
    // Recorded meanwhile by the other path (a notification beside the sync): that one's, as it stands.
    payout = inserted ?? (await findPayoutByAcquirerReference(tx, businessId, provider, theirs.payoutId))!;
  }
  const ours: string[] = [];
  let unknown = 0;
  for (const entry of report.entries) {
    const found = await ourEntry(tx, businessId, provider, payout, entry);
    if (found) ours.push(found._id);
    else unknown += 1;
  }
  if (ours.length > 0) await assignToPayout(tx, ours, payout._id);
  await insertBalanceTransaction(tx, {
    _id: newId(),
    business_id: businessId,
    type: 'payout',
    amount: -theirs.amount,
    fee: 0,
    currency: theirs.currency,
    available_on: theirs.arrivalDate,
    source_type: 'payout',
    source_id: payout._id,
    acquirer_reference: theirs.payoutId,
    payout_id: payout._id,
    description: `Payout arriving ${theirs.arrivalDate}`,
    created_at: nowIso(),
  });
  // A payout first seen already paid is announced paid too, as the sandbox's are.
  let becamePaid = created && payout.status === 'paid';
  if (theirs.status !== 'failed') {
    // From the status read, so that of two paths applying one change only one moves it (and announces it).
    const moved = theirs.status === payout.status ? undefined : await updatePayout(tx, payout._id, { status: theirs.status }, { status: [payout.status] });
    becamePaid ||= moved?.status === 'paid';
    payout = (await updatePayout(tx, payout._id, { arrival_date: theirs.arrivalDate, bank_reference: theirs.bankReference ?? payout.bank_reference }))!;
  }
  if (created) await notifyPayout(tx, businessId, 'payout.created', payout);
  if (becamePaid) await notifyPayout(tx, businessId, 'payout.paid', payout);
  if (theirs.status === 'failed' && payout.status !== 'failed')
    payout =
      (await recordPayoutFailure(tx, payout, {
        code: theirs.failureCode ?? 'payout_failed',
        message: theirs.failureMessage ?? 'The bank returned the payout.',
      })) ?? payout;

  if (theirs.reconciliation === 'in_progress') {
    // The acquirer is still attaching what went into it: nothing to check, nor to count as a sync, yet.
    return (
      (await updatePayout(
        tx,
        payout._id,
        {
          reconciliation_reason: 'The acquirer is still listing what went into it.',
          reconciliation_checked_at: nowIso(),
        },
        { reconciliation: ['expected'] },
      )) ?? payout
    );
  }
  if (unknown > 0 && !periodicSync) {
    // A notification (several come for one payout within seconds) is not a sync: the periodic ones count.
    return (
      (await updatePayout(
        tx,
        payout._id,
        {
          reconciliation_reason: `${unknown} of its ${report.entries.length} entries at the acquirer are not known to the service yet.`,
          reconciliation_checked_at: nowIso(),
        },
        { reconciliation: ['expected'] },
      )) ?? payout
    );
  }
  if (unknown > 0) {
    const syncs = payout.incomplete_syncs + 1;
    payout = (await updatePayout(tx, payout._id, { incomplete_syncs: syncs }))!;
    if (syncs >= SYNCS_BEFORE_MISMATCH && payout.reconciliation_status !== 'mismatched') {
      payout = (await updatePayout(tx, payout._id, {
        reconciliation_status: 'mismatched',
        reconciliation_reason: `${unknown} of its ${report.entries.length} entries at the acquirer are not known to the service after ${syncs} syncs.`,
        reconciliation_checked_at: nowIso(),
      }))!;
      await notifyPayout(tx, businessId, 'payout.reconciliation_failed', payout);
    }
    return payout;
  }
  return checkPayoutBalances(tx, payout);
}

/** One payout, by the acquirer's id (its notification): read, then applied in one transaction. */
export async function syncAcquirerPayout(
  ctx: UseCaseContext,
  businessId: number,
  feed: SettlementFeed,
  provider: string,
  payoutId: string,
): Promise<PayoutRecord | undefined> {
  const payout = await feed.payout(payoutId);
  if (!payout) return undefined;
  const report = await readAcquirerPayout(feed, payout);
  const applied = await ctx.db.transaction((tx) => applyAcquirerPayout(tx, businessId, provider, report, { periodicSync: false }));
  ctx.outbox.nudge();
  return applied;
}

/** How far back a sync asks again: payouts change for days after they are made (paid, then perhaps failed). */
export const SYNC_WINDOW_DAYS = 14;

/** Every payout the acquirer made in the window, each applied in a transaction of its own. */
export async function syncAcquirerPayouts(ctx: UseCaseContext, businessId: number, provider: string, now: Date = new Date()): Promise<number> {
  const acquirer = await ctx.acquirers.named(businessId, provider);
  if (!isSettlementFeed(acquirer)) return 0;
  const since = new Date(now.getTime() - SYNC_WINDOW_DAYS * 86_400_000);
  let synced = 0;
  for (const payout of await acquirer.payoutsCreatedSince(since)) {
    const report = await readAcquirerPayout(acquirer, payout);
    await ctx.db.transaction((tx) => applyAcquirerPayout(tx, businessId, provider, report, { periodicSync: true }));
    synced += 1;
  }
  if (synced > 0) ctx.outbox.nudge();
  return synced;
}
