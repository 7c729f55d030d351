// The ledger's entries for what happens to a payment: its charge when it succeeds, a refund when one
// is made, a refund's failure. Each is written by the caller's transaction, the one that records
// the change that caused it, so no succeeded payment or refund exists without its entry. An entry is
// written once per source (the store's unique index): a second path settling the same change finds
// it written and adds nothing.
import type { AcquirerBalance } from '../../acquirers/acquirer.js';
import type { BusinessCalendar } from '../../domain/business-days.js';
import { newId } from '../../domain/ids.js';
import { localDay } from '../../domain/local-days.js';
import { insertBalanceTransaction, type BalanceTransactionRecord } from '../../store/balance-transactions.js';
import { findBusinessTimeZone } from '../../store/business-profile.js';
import type { Executor } from '../../store/executor.js';
import { recordPaymentBalance, type PaymentRecord } from '../../store/payments.js';
import type { RefundRecord } from '../../store/refunds.js';
import { nowIso } from '../../store/timestamps.js';

/** How the sandbox acquirer settles, and the business calendar payouts keep (SANDBOX_FEES, SANDBOX_AVAILABLE_AFTER_DAYS, the holidays). */
export interface SettlementTerms {
  /** Business days: the weekend, Malaysia's national holidays and the configured ones. */
  calendar: BusinessCalendar;
  /** The sandbox's fee, in sen, for a payment of `amount` sen by `method`. */
  sandboxFee(method: string, amount: number): number;
  /** The local day the funds of a sandbox payment taken on local day `day` become available. */
  availableOn(day: string): string;
  /** Whether payouts are made, and deposits arrive, on the local day `day`. */
  isBusinessDay(day: string): boolean;
  /** Business days after its arrival date that a payout's deposit may take to show on a statement before it is mismatched. */
  depositGraceDays: number;
}

/** The business's local day now, in its time zone. */
export async function businessToday(db: Executor, businessId: number, at: string = nowIso()): Promise<string> {
  return localDay(at, await findBusinessTimeZone(db, businessId));
}

/**
 * A payment succeeded: its charge entry, and its fee and net beside it; answers the payment with
 * them. The sandbox's fee is its schedule's; another acquirer's is what it said (`known`), or 0 until its settlement sync corrects
 * it with an adjustment.
 */
export async function recordCharge(tx: Executor, terms: SettlementTerms, payment: PaymentRecord, known?: AcquirerBalance | null): Promise<PaymentRecord> {
  const at = nowIso();
  const day = await businessToday(tx, payment.business_id, at);
  const fee = known ? known.fee : payment.provider === 'sandbox' ? terms.sandboxFee(payment.method, payment.amount) : 0;
  const entry = await insertBalanceTransaction(tx, {
    _id: newId(),
    business_id: payment.business_id,
    type: 'charge',
    amount: payment.amount,
    fee,
    currency: payment.currency,
    available_on: known?.availableOn ?? terms.availableOn(day),
    source_type: 'payment',
    source_id: payment._id,
    acquirer_reference: known?.acquirerReference ?? payment.provider_reference,
    description: payment.description,
    created_at: at,
  });
  if (!entry) return payment;
  const balance = { fee: entry.fee, net: entry.net, balance_transaction_id: entry._id };
  await recordPaymentBalance(tx, payment._id, balance);
  return { ...payment, ...balance };
}

/** A refund's entry: money out when it is made, back when it fails. */
async function refundEntry(tx: Executor, refund: RefundRecord, type: 'refund' | 'refund_failure', amount: number, description: string | null) {
  const at = nowIso();
  return insertBalanceTransaction(tx, {
    _id: newId(),
    business_id: refund.business_id,
    type,
    amount,
    fee: 0,
    currency: refund.currency,
    available_on: await businessToday(tx, refund.business_id, at),
    source_type: 'refund',
    source_id: refund._id,
    acquirer_reference: refund.provider_reference,
    description,
    created_at: at,
  });
}

/** A refund was made (pending or settled): the money leaves the balance at once, as Stripe's refunds do. */
export async function recordRefund(tx: Executor, refund: RefundRecord): Promise<BalanceTransactionRecord | undefined> {
  return refundEntry(tx, refund, 'refund', -refund.amount, refund.reason);
}

/** A refund failed (before or after it first succeeded): its money comes back to the balance. */
export async function recordRefundFailure(tx: Executor, refund: RefundRecord): Promise<BalanceTransactionRecord | undefined> {
  return refundEntry(tx, refund, 'refund_failure', refund.amount, refund.failure_message);
}
