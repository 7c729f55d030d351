// Stripe's balance transactions and payouts in the settlement feed's terms (settlement-feed.ts):
// the pure half of StripeAcquirer's SettlementFeed, which reads them through the SDK.
import type Stripe from 'stripe';
import type { AcquirerPayout, BalanceEntry, BalanceEntryType } from './settlement-feed.js';

/** Stripe books a card charge as `charge` and one by other methods (FPX, GrabPay: `py_...`) as `payment`, their refunds alike. */
const ENTRY_TYPES: Record<string, BalanceEntryType> = {
  charge: 'payment',
  payment: 'payment',
  refund: 'refund',
  payment_refund: 'refund',
  refund_failure: 'refund_failure',
  payment_failure_refund: 'refund_failure',
  payout: 'payout',
  payout_failure: 'payout_failure',
  payout_cancel: 'payout_failure',
};

const PAYOUT_STATUSES: readonly string[] = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] satisfies AcquirerPayout['status'][];
const RECONCILIATION_STATUSES: readonly string[] = ['in_progress', 'completed', 'not_applicable'] satisfies AcquirerPayout['reconciliation'][];

/** Stripe dates availability and arrival at midnight UTC. */
export function stripeDay(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

function idOf(value: string | { id?: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : (value.id ?? null);
}

/** The PaymentIntent a balance transaction's expanded source (a charge or a refund) belongs to. */
export function paymentReferenceOfSource(source: Stripe.BalanceTransaction['source']): string | null {
  if (!source || typeof source === 'string') return null;
  if (source.object === 'charge' || source.object === 'refund') return idOf(source.payment_intent);
  return null;
}

export function toBalanceEntry(transaction: Stripe.BalanceTransaction, paymentReference: string | null): BalanceEntry {
  return {
    entryId: transaction.id,
    type: ENTRY_TYPES[transaction.type] ?? 'other',
    acquirerType: transaction.type,
    amount: transaction.amount,
    fee: transaction.fee,
    net: transaction.net,
    currency: transaction.currency.toUpperCase(),
    status: transaction.status === 'available' ? 'available' : 'pending',
    availableOn: stripeDay(transaction.available_on),
    createdOn: stripeDay(transaction.created),
    sourceId: idOf(transaction.source),
    paymentReference,
  };
}

export function toAcquirerPayout(payout: Stripe.Payout): AcquirerPayout {
  return {
    payoutId: payout.id,
    amount: payout.amount,
    currency: payout.currency.toUpperCase(),
    status: (PAYOUT_STATUSES.includes(payout.status) ? payout.status : 'pending') as AcquirerPayout['status'],
    arrivalDate: stripeDay(payout.arrival_date),
    createdAt: new Date(payout.created * 1000).toISOString(),
    automatic: payout.automatic,
    bankReference: payout.trace_id?.value ?? null,
    reconciliation: (RECONCILIATION_STATUSES.includes(payout.reconciliation_status)
      ? payout.reconciliation_status
      : 'not_applicable') as AcquirerPayout['reconciliation'],
    failureCode: payout.failure_code,
    failureMessage: payout.failure_message,
    failureEntryId: idOf(payout.failure_balance_transaction),
  };
}
