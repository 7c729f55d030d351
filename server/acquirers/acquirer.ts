// What the service needs from an acquirer. Two shapes share one interface:
//  - `card_form`: the card is typed on our own page and handed to the acquirer (the sandbox);
//  - `hosted`: the payer is sent to the acquirer's page (Stripe Checkout), which takes the card, online
//    banking or a wallet; no card data reaches us. The payer comes back to a return URL, and the
//    acquirer's notification says how it ended, which can be later (online banking settles later).
// Both charge saved cards and refund, and any answer can be `pending`: the payment or refund stays
// pending until the acquirer's notification (or the pending sweep asking again) settles it.
import type { Card, CardBrand } from './cards.js';

/** How a payment was made; `filter[method]` takes these. */
export type PaymentMethod = 'card' | 'fpx' | 'grabpay';

export interface AuthorizeRequest {
  /** Our payment `_id`, sent as the idempotency reference so a retried call never charges twice. */
  reference: string;
  /** Cents. */
  amount: number;
  currency: string;
  card: Card;
  description: string;
}

export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'processing_error' | 'test_card_required' | 'expired_card' | (string & {});

export type AuthorizeResult =
  | { outcome: 'authorized'; authorizationId: string; brand: CardBrand; last4: string }
  | { outcome: 'pending'; authorizationId: string; brand: CardBrand; last4: string }
  | { outcome: 'declined'; code: DeclineCode; message: string; brand: CardBrand; last4: string };

export interface SavedCard {
  /** What charges name the card by at the acquirer. */
  acquirerToken: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type SaveCardResult = { outcome: 'saved'; card: SavedCard } | { outcome: 'declined'; code: DeclineCode; message: string };

/** A merchant-initiated charge on a card saved earlier. */
export interface ChargeRequest {
  /** Our payment `_id`, the idempotency reference. */
  reference: string;
  acquirerToken: string;
  /** Cents. */
  amount: number;
  currency: string;
  description: string;
  /** Ours, kept with the acquirer's record (e.g. payment_id, tokenization_id). */
  metadata?: Record<string, string>;
}

/**
 * What an acquirer says a payment added to the business's balance (Stripe: the charge's balance
 * transaction), when it says so as it answers: the ledger keeps its fee and availability.
 */
export interface AcquirerBalance {
  /** Sen. */
  fee: number;
  /** The business's local day, `YYYY-MM-DD`. */
  availableOn: string;
  /** The acquirer's id of the movement (Stripe: `txn_...`). */
  acquirerReference: string;
}

export type ChargeResult =
  | { outcome: 'paid'; chargeId: string; balance?: AcquirerBalance | null }
  | { outcome: 'pending'; chargeId: string }
  | { outcome: 'declined'; code: DeclineCode; message: string; chargeId: string | null };

export interface RefundRequest {
  /** Our refund `_id`, the idempotency reference. */
  reference: string;
  /** The acquirer's reference of the captured payment (`provider_reference`). */
  paymentReference: string;
  /** Cents, at most what is left to refund. */
  amount: number;
  currency: string;
  reason: string | null;
  /** The acquirer's own reason code, where it keeps one (Stripe: `duplicate` for a link paid twice). */
  acquirerReason?: 'duplicate' | 'requested_by_customer';
}

export type RefundFailureCode = 'refund_declined' | 'processing_error' | (string & {});

export type RefundResult =
  | { outcome: 'succeeded'; refundId: string }
  | { outcome: 'pending'; refundId: string }
  | { outcome: 'failed'; code: RefundFailureCode; message: string; refundId: string | null };

interface BaseAcquirer {
  /** Recorded on every payment (`provider`) and sent as the webhook's `payment_provider`. */
  readonly name: string;
  /** Charges a saved card without the payer present; authorizes and captures at once. */
  chargeSavedCard(request: ChargeRequest): Promise<ChargeResult>;
  /** Gives back part or all of a captured payment. */
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * Lets go of a card saved earlier (`SavedCard.acquirerToken`), so it can never be charged again:
   * Stripe detaches the PaymentMethod from its customer. A card already let go (or unknown to the
   * acquirer) counts as done, so a retry after a lost answer succeeds. Throws when the acquirer
   * does not answer or refuses the request: the card may still be held.
   */
  forgetSavedCard(acquirerToken: string): Promise<void>;
}

/** The card is typed on our page (the sandbox): authorize, then capture once the payment is recorded. */
export interface CardFormAcquirer extends BaseAcquirer {
  readonly checkout: 'card_form';
  /** Reserves the amount on the card. */
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  /** Takes the reserved amount; called once the payment is recorded as the link's payment. */
  capture(authorizationId: string): Promise<void>;
  /** Releases a reservation that will not be captured (e.g. the link was paid by someone else meanwhile). */
  void(authorizationId: string): Promise<void>;
  /** Verifies a card and keeps it for later charges (tokenization). */
  saveCard(card: Card): Promise<SaveCardResult>;
}

export interface HostedPaymentRequest {
  /** Our payment `_id`: the idempotency reference and the acquirer's client reference. */
  reference: string;
  /** Cents. */
  amount: number;
  currency: string;
  title: string;
  description: string | null;
  payerEmail: string | null;
  /** Ours, kept with the acquirer's records and sent back in its notifications. */
  metadata: Record<string, string>;
  /** Where the payer comes back once done; may carry `{SESSION_ID}`, replaced by the acquirer's session id. */
  returnUrl: string;
  /** Where the payer goes on giving up. */
  cancelUrl: string;
  /** When the acquirer's page stops taking the payment. */
  expiresAt: Date;
}

export interface HostedSetupRequest {
  /** Our activation attempt id: the idempotency reference. */
  reference: string;
  /** Our token `_id`: the acquirer's customer is made once per token. */
  customerReference: string;
  email: string;
  description: string;
  metadata: Record<string, string>;
  returnUrl: string;
  cancelUrl: string;
}

/** Where the acquirer's page is, and what names it there. */
export interface HostedSession {
  sessionId: string;
  redirectUrl: string;
}

export interface PaidDetails {
  /** The acquirer's reference of the payment (Stripe: the PaymentIntent). */
  paymentReference: string;
  method: PaymentMethod;
  card: { brand: string; last4: string } | null;
  /** The payment's movement of funds, where the acquirer already knows it. */
  balance?: AcquirerBalance | null;
}

/** How a hosted payment stands at the acquirer. */
export type HostedPaymentState =
  /** The payer has not finished on the acquirer's page; `redirectUrl` takes them back there. */
  | { state: 'open'; redirectUrl: string | null }
  | ({ state: 'paid'; amount: number } & PaidDetails)
  /** Taken, the money not yet confirmed (online banking): settled later. */
  | ({ state: 'processing' } & PaidDetails)
  | { state: 'failed'; paymentReference: string | null; method: PaymentMethod | null; code: string; message: string }
  /** The page closed without a payment. */
  | { state: 'expired' };

export type HostedSetupState =
  | { state: 'open'; redirectUrl: string | null }
  | { state: 'saved'; card: SavedCard }
  | { state: 'failed'; code: string; message: string }
  | { state: 'expired' };

/** A refund as the acquirer holds it, with our refund id when we asked for it. */
export interface AcquirerRefund {
  refundId: string;
  /** Our refund `_id` (sent when it was created), or null for a refund made elsewhere (the acquirer's dashboard). */
  reference: string | null;
  amount: number;
  status: 'succeeded' | 'pending' | 'failed';
  failureCode: string | null;
  failureMessage: string | null;
}

/**
 * What an acquirer's notification is about, once verified. The service reads the state back from
 * the acquirer rather than trusting the order notifications arrive in: each names what to look at.
 */
export type AcquirerNotification = { eventId: string; type: string } & (
  | { about: 'payment_session'; sessionId: string; paymentId: string | null }
  | { about: 'setup_session'; sessionId: string; attemptId: string | null }
  /** A payment made without a session (a charge on a saved card), by the acquirer's reference. */
  | { about: 'payment'; paymentReference: string }
  /** Refunds of a payment changed (made, failed, or made in the acquirer's dashboard). */
  | { about: 'refunds'; paymentReference: string }
  /** A payout to the merchant's bank was made or changed (in transit, paid, failed, reconciled): the settlement sync reads it back (settlement-feed.ts). */
  | { about: 'payout'; payoutId: string }
  | { about: 'nothing' }
);

/** The payer is sent to the acquirer's page (Stripe Checkout); card data never reaches the service. */
export interface HostedAcquirer extends BaseAcquirer {
  readonly checkout: 'hosted';
  /** The origin of the acquirer's pages, which our forms post on to (their CSP `form-action` must allow it). */
  readonly pageOrigin: string;
  startPayment(request: HostedPaymentRequest): Promise<HostedSession>;
  paymentState(sessionId: string): Promise<HostedPaymentState>;
  /** Closes a session that must not take a payment any more (its link was paid through another). */
  cancelPayment(sessionId: string): Promise<void>;
  startCardSetup(request: HostedSetupRequest): Promise<HostedSession>;
  setupState(sessionId: string): Promise<HostedSetupState>;
  /** A payment made without a session (an off-session charge), as it stands now. */
  chargeState(paymentReference: string): Promise<HostedPaymentState>;
  refunds(paymentReference: string): Promise<AcquirerRefund[]>;
  /** Verifies a notification's signature over its raw body; throws NotificationRefused when it does not verify. */
  readNotification(rawBody: Buffer, signature: string | undefined): AcquirerNotification;
}

export type Acquirer = CardFormAcquirer | HostedAcquirer;

/** A notification whose signature does not verify (or that is not the acquirer's at all). */
export class NotificationRefused extends Error {}
