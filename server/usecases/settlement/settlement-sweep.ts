// The settlement's own clock: the sandbox pays out each business day what is available, the payouts
// of businesses on Stripe are synced over a window of recent days (their notifications bring each
// change as it happens; the sync catches what a lost notification missed), and a payout
// whose deposit no bank statement has shown within PAYOUT_DEPOSIT_GRACE_DAYS business days of its
// arrival is mismatched and announced. Safe with several instances at once: a day's sandbox payout
// is made once (its reference names the day), and a payout is flagged by one guarded UPDATE.
import { addDays } from '../../domain/report-intervals.js';
import { businessesWithAvailableFunds } from '../../store/balance-transactions.js';
import { businessesOnAcquirer } from '../../store/businesses.js';
import { payoutsExpectingDeposit, updatePayout } from '../../store/payouts.js';
import { nowIso } from '../../store/timestamps.js';
import { AcquirerUnavailable } from '../platform/acquirer-directory.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyPayout } from '../platform/notify.js';
import { syncAcquirerPayouts } from './acquirer-payouts.js';
import { businessToday } from './ledger.js';
import { runSandboxPayouts, SANDBOX } from './payouts.js';

const BATCH = 200;

export interface SettlementSweep {
  payoutsMade: number;
  payoutsSynced: number;
  depositsMissing: number;
  /** Businesses whose acquirer could not be asked this time; the next sweep asks again. */
  syncsFailed: number[];
}

export async function sweepSettlement(ctx: UseCaseContext, now: Date = new Date()): Promise<SettlementSweep> {
  const swept: SettlementSweep = { payoutsMade: 0, payoutsSynced: 0, depositsMissing: 0, syncsFailed: [] };
  // A day ahead of UTC covers every zone east of it; each business is then asked on its own day.
  const utcDay = now.toISOString().slice(0, 10);
  for (const businessId of await businessesWithAvailableFunds(ctx.db, addDays(utcDay, 1), BATCH)) {
    if ((await ctx.acquirers.nameForBusiness(businessId)) !== SANDBOX) continue;
    const run = await runSandboxPayouts(ctx, businessId, await businessToday(ctx.db, businessId, now.toISOString()));
    if (run.result === 'ran') swept.payoutsMade += run.payouts.length;
  }
  for (let after = 0; ;) {
    const businesses = await businessesOnAcquirer(ctx.db, 'stripe', after, BATCH);
    for (const businessId of businesses) {
      try {
        swept.payoutsSynced += await syncAcquirerPayouts(ctx, businessId, 'stripe', now);
      } catch (error) {
        // A business switched to Stripe without its keys has nothing to sync; any other failure is said.
        if (!(error instanceof AcquirerUnavailable)) swept.syncsFailed.push(businessId);
      }
    }
    if (businesses.length < BATCH) break;
    after = businesses[businesses.length - 1]!;
  }
  const grace = ctx.settlement.depositGraceDays;
  for (const payout of await payoutsExpectingDeposit(ctx.db, utcDay, BATCH)) {
    const today = await businessToday(ctx.db, payout.business_id, now.toISOString());
    if (today <= ctx.settlement.calendar.addBusinessDays(payout.arrival_date, grace)) continue;
    const flagged = await ctx.db.transaction(async (tx) => {
      const changed = await updatePayout(
        tx,
        payout._id,
        {
          reconciliation_status: 'mismatched',
          reconciliation_reason: `No bank statement showed its deposit within ${grace} business days of its arrival on ${payout.arrival_date}.`,
          reconciliation_checked_at: nowIso(),
        },
        { reconciliation: ['expected'] },
      );
      if (changed) await notifyPayout(tx, payout.business_id, 'payout.reconciliation_failed', changed);
      return changed;
    });
    if (flagged) swept.depositsMissing += 1;
  }
  if (swept.depositsMissing > 0) ctx.outbox.nudge();
  return swept;
}
