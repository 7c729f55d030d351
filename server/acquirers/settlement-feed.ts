// What the service reads of an acquirer's settlement: what it kept as its fee on each payment, when
// the funds become available, and the payouts to the merchant's bank with what went into each.
// The acquirer's books are the record; the service reads them back (after a payment or refund
// settles, on a payout notification, and in a periodic sync) and never computes fees itself.
//
// Amounts are in sen (the currency's smallest unit), signed as the merchant's balance at the
// acquirer moves: a payment's entry positive, a refund's and a payout's negative. Days are
// `YYYY-MM-DD`, in UTC, as acquirers date availability and arrival. Ids are the acquirer's.

/** What moved the balance, in the service's words (Stripe's own type is kept in `acquirerType`). */
export type BalanceEntryType =
  /** A payment's funds, less the acquirer's fee. */
  | 'payment'
  /** Money given back to a payer. */
  | 'refund'
  /** A refund the payer's bank or card refused after it was made: its money back in the balance. */
  | 'refund_failure'
  /** A payout's own entry: minus what it paid out. */
  | 'payout'
  /** A payout the bank returned: its money back in the balance, to go out with a later payout. */
  | 'payout_failure'
  /** Anything else the acquirer books (adjustments, disputes, its other fees). */
  | 'other';

/** One movement of the merchant's balance at the acquirer (Stripe: a balance transaction). */
export interface BalanceEntry {
  /** Stripe: the balance transaction's id, `txn_...`. */
  entryId: string;
  type: BalanceEntryType;
  /** The acquirer's own name for the type (Stripe: `charge`, `refund`, `payout_failure`, ...). */
  acquirerType: string;
  /** Sen. */
  amount: number;
  /** Sen the acquirer kept (0 on refunds and payouts). */
  fee: number;
  /** `amount - fee`, sen: what the entry adds to or takes from the balance. */
  net: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** `pending` until `availableOn`, then `available` to be paid out. */
  status: 'pending' | 'available';
  /** YYYY-MM-DD. */
  availableOn: string;
  /** YYYY-MM-DD: the day the acquirer booked it. */
  createdOn: string;
  /** What the entry books, by the acquirer's id (Stripe: the charge, the refund or the payout); null where it names none. */
  sourceId: string | null;
  /** The payment the entry concerns by the acquirer's payment reference (Stripe: the PaymentIntent), for a payment's, refund's or failed refund's entry. */
  paymentReference: string | null;
}

/** A payout of the merchant's balance to their bank account. */
export interface AcquirerPayout {
  /** Stripe: `po_...`. */
  payoutId: string;
  /** Sen; negative when refunds exceeded what came in and the acquirer debits the bank account. */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** `paid` can still turn `failed` days later, when the bank returns the payout. */
  status: 'pending' | 'in_transit' | 'paid' | 'failed' | 'canceled';
  /** YYYY-MM-DD: when the bank is expected to have it (or had it). */
  arrivalDate: string;
  /** When the acquirer made it, ISO 8601: what `payoutsCreatedSince` pages by. */
  createdAt: string;
  /** Made by the acquirer's payout schedule rather than asked for by the merchant. */
  automatic: boolean;
  /** The bank's reference for the transfer (Stripe: `trace_id`), once the bank has given one. */
  bankReference: string | null;
  /** `completed` once the acquirer has finished attaching the entries that went into it: until then `payoutEntries` may be partial. */
  reconciliation: 'in_progress' | 'completed' | 'not_applicable';
  failureCode: string | null;
  failureMessage: string | null;
  /** The entry (`payout_failure`) that returned a failed payout's money to the balance. */
  failureEntryId: string | null;
}

/** What the service reads of an acquirer's settlement (StripeAcquirer implements it). */
export interface SettlementFeed {
  /** The entry of a payment by the acquirer's payment reference (Stripe: the PaymentIntent id); null until the acquirer has booked one (not yet paid, or still processing). */
  paymentBalance(paymentReference: string): Promise<BalanceEntry | null>;
  /** The entries of a refund by the acquirer's refund id: its own, and a `refund_failure` one once it failed; none until booked. */
  refundBalance(refundId: string): Promise<BalanceEntry[]>;
  /**
   * Every payout made at or after `since`, oldest first, all pages read. The acquirer lists payouts by
   * when they were made, not when they changed, and a payout changes for days after (paid, then
   * perhaps failed): a sync asks again from a window before its last cursor, and the acquirer's
   * `payout` notifications name the ones that changed.
   */
  payoutsCreatedSince(since: Date): Promise<AcquirerPayout[]>;
  /** What went into a payout (all pages read): their nets add up to its amount; the payout's own entry is left out. */
  payoutEntries(payoutId: string): Promise<BalanceEntry[]>;
  /** One payout as it stands now; null when the acquirer knows none by that id. */
  payout(payoutId: string): Promise<AcquirerPayout | null>;
}
