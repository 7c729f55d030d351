// Bringing a payment's refunds in line with what the acquirer reports of them (its notifications, the
// pending sweep): ours that it settled are settled, one that failed after succeeding gives its amount
// back, and one made at the acquirer without us (its dashboard) is recorded. Whoever reports first
// settles: each change is one guarded UPDATE on a refund still pending, or for a refund made at the
// acquirer one INSERT its unique index lets one path make, committed with its webhook, so the others
// find it settled and announce nothing.
import { REFUND_FAILED } from '../../domain/failures.js';
import { newId } from '../../domain/ids.js';
import type { AcquirerRefund } from '../../acquirers/acquirer.js';
import type { Executor } from '../../store/executor.js';
import { findPayment, releaseRefund, reserveRefund, type PaymentRecord } from '../../store/payments.js';
import { failSucceededRefund, findRefund, findRefundByAcquirerReference, insertAcquirerRefund, type RefundRecord } from '../../store/refunds.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyRefundSettled } from '../platform/notify.js';
import { recordRefund, recordRefundFailure } from './ledger.js';
import { settleRefundAndAnnounce } from '../merchant/refunds.js';

export const DASHBOARD_REFUND_REASON = "Refunded at the acquirer (not through this service's API).";

/**
 * Brings a payment's refunds in line with the acquirer's list of them: ours that it settled are
 * settled (announced once each), one that failed after succeeding gives its amount back, and one made
 * at the acquirer without us (its dashboard) is recorded and announced like ours.
 */
export async function reconcileRefunds(ctx: UseCaseContext, payment: PaymentRecord, refunds: AcquirerRefund[]): Promise<number> {
  let changed = 0;
  for (const theirs of refunds) {
    let done;
    try {
      done = await ctx.db.transaction(async (tx) => {
        // Matched inside the transaction: another path may have recorded it since the caller looked.
        const current = (await findPayment(tx, payment._id))!;
        const ours = await matchRefund(tx, current, theirs);
        if (ours) return settleKnownRefund(tx, ours, current, theirs);
        if (theirs.status === 'failed') return false;
        return recordAcquirerRefund(tx, current, { ...theirs, status: theirs.status });
      });
    } catch (error) {
      if (!(error instanceof PastAmountPaid)) throw error;
      done = false;
    }
    if (done) changed += 1;
  }
  if (changed > 0) ctx.outbox.nudge();
  return changed;
}

/**
 * Records a refund made at the acquirer without us. The row comes first, so the unique index decides
 * between paths recording the same refund at once (the loser does nothing); its amount is then set
 * aside like ours, never past the amount paid.
 */
async function recordAcquirerRefund(tx: Executor, payment: PaymentRecord, theirs: AcquirerRefund & { status: 'pending' | 'succeeded' }): Promise<boolean> {
  const refund = await insertAcquirerRefund(tx, {
    _id: newId(),
    business_id: payment.business_id,
    payment_id: payment._id,
    amount: theirs.amount,
    currency: payment.currency,
    reason: DASHBOARD_REFUND_REASON,
    status: theirs.status,
    provider_reference: theirs.refundId,
  });
  if (!refund) {
    // Recorded meanwhile by another path (on PostgreSQL, whose commit this insert waited for): what
    // this report says of it may be newer, and settles it as it would settle ours.
    const recorded = await findRefundByAcquirerReference(tx, payment._id, theirs.refundId);
    return recorded ? settleKnownRefund(tx, recorded, (await findPayment(tx, payment._id))!, theirs) : false;
  }
  const reserved = await reserveRefund(tx, payment._id, theirs.amount);
  if (!reserved) throw new PastAmountPaid();
  await recordRefund(tx, refund);
  if (theirs.status === 'succeeded') await notifyRefundSettled(tx, payment.business_id, refund, reserved);
  return true;
}

/** Thrown to roll back the row of an acquirer's refund that does not fit in what is left of the payment. */
class PastAmountPaid extends Error {}

async function matchRefund(db: Executor, payment: PaymentRecord, theirs: AcquirerRefund): Promise<RefundRecord | undefined> {
  const byReference = theirs.reference ? await findRefund(db, theirs.reference) : undefined;
  if (byReference?.payment_id === payment._id) return byReference;
  return findRefundByAcquirerReference(db, payment._id, theirs.refundId);
}

async function settleKnownRefund(tx: Executor, ours: RefundRecord, payment: PaymentRecord, theirs: AcquirerRefund): Promise<boolean> {
  const failure = { code: theirs.failureCode ?? REFUND_FAILED.code, message: theirs.failureMessage ?? REFUND_FAILED.message };
  if (ours.status === 'pending' && theirs.status !== 'pending') {
    const settlement =
      theirs.status === 'succeeded'
        ? ({ status: 'succeeded', acquirerReference: theirs.refundId } as const)
        : ({ status: 'failed', acquirerReference: theirs.refundId, ...failure } as const);
    return (await settleRefundAndAnnounce(tx, ours, payment, settlement)) !== undefined;
  }
  if (ours.status === 'succeeded' && theirs.status === 'failed') {
    const failed = await failSucceededRefund(tx, ours._id, failure);
    if (!failed) return false;
    await recordRefundFailure(tx, failed);
    await notifyRefundSettled(tx, ours.business_id, failed, await releaseRefund(tx, payment._id, ours.amount));
    return true;
  }
  return false;
}
