// What the service needs from an acquirer. The sandbox implements it; a real gateway adapter
// (Stripe, Adyen, a local acquirer) would implement the same four calls.
import type { Card, CardBrand } from './cards.js';

export interface AuthorizeRequest {
  /** Our payment `_id`, sent as the idempotency reference so a retried call never charges twice. */
  reference: string;
  /** Cents. */
  amount: number;
  currency: string;
  card: Card;
  description: string;
}

export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'processing_error' | 'test_card_required';

export type AuthorizeResult =
  | { outcome: 'authorized'; authorizationId: string; brand: CardBrand; last4: string }
  | { outcome: 'declined'; code: DeclineCode; message: string; brand: CardBrand; last4: string };

export interface SavedCard {
  providerToken: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type SaveCardResult = { outcome: 'saved'; card: SavedCard } | { outcome: 'declined'; code: DeclineCode; message: string };

export interface PaymentProvider {
  readonly name: string;
  /** Reserves the amount on the card. */
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  /** Takes the reserved amount; called once the payment is recorded as the link's payment. */
  capture(authorizationId: string): Promise<void>;
  /** Releases a reservation that will not be captured (e.g. the link was paid by someone else meanwhile). */
  void(authorizationId: string): Promise<void>;
  /** Verifies a card and keeps it for later charges (tokenization). */
  saveCard(card: Card): Promise<SaveCardResult>;
}
