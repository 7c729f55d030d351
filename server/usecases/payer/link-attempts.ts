// A payer's attempt on a link, what the page hands the use case with it (entries, the edge's limits),
// and what it comes to. An attempt is recorded as pending before any acquirer is asked, on our card
// form (card-form.ts) or on the acquirer's own page (hosted-checkout.ts); its attempt_id is unique, so
// a second submit of the same form finds the first attempt instead of paying again.
import { newId } from '../../domain/ids.js';
import type { LinkKind } from '../../domain/payer-urls.js';
import { PAYMENT_FAILED, PAYMENT_PAID } from '../../domain/statuses.js';
import type { Card } from '../../acquirers/cards.js';
import { isUniqueViolation } from '../../store/errors.js';
import type { Executor } from '../../store/executor.js';
import { findPaymentByAttempt, insertPendingPayment, type PaymentRecord } from '../../store/payments.js';
import { LINK_UNAVAILABLE } from '../../domain/failures.js';
import type { PaymentTarget, PayableLink } from './pay-page.js';

/** What the payer entered, checked against the link by the page. */
export interface PayerEntries {
  /** Cents. */
  amount: number;
  name: string;
  email: string;
  /** On our card form; absent for a business whose payers pay on the acquirer's page. */
  card?: Card;
}

/** The limits of the HTTP edge (server/rate-limits/payer-forms.ts) on a link: each answers seconds the payer must wait, or undefined to go on. */
export interface SubmitLimits {
  /** A card about to reach the acquirer. */
  card(linkId: string, card: Card): Promise<number | undefined>;
  /** The acquirer declined the card. */
  declined(linkId: string): Promise<void>;
  /** A new checkout about to open on the acquirer's page for this client. */
  checkout(linkId: string): Promise<number | undefined>;
  /** How many checkouts on the acquirer's page a link may have open at once. */
  openCheckouts: number;
}

export interface PaymentSubmission<E> {
  kind: LinkKind;
  linkId: string;
  /** From the form; undefined when the form is not one the page served (its CSRF token or attempt id does not hold). */
  attemptId: string | undefined;
  /** The payer's entries read for this link (its fields and amount rules depend on it), or what is wrong with them. */
  read(link: PayableLink): { entries: PayerEntries } | { errors: E };
  limits: SubmitLimits;
  /** The payer's browser (an HMAC of its form cookie), recorded on the checkouts it opens; null when unknown. */
  browser: string | null;
  /** Where the acquirer's page sends the payer back, made from the payment id (signed by the page). */
  returnUrlFor(paymentId: string): string;
}

/** An attempt on a link: who pays how much. */
export interface LinkAttempt {
  target: PaymentTarget;
  /** From the form; the same attempt submitted twice is one payment. */
  attemptId: string;
  /** Cents. */
  amount: number;
  payerName: string | null;
  payerEmail: string | null;
}

export type CheckoutOutcome =
  | { result: 'paid'; payment: PaymentRecord }
  | { result: 'declined'; payment: PaymentRecord; message: string }
  /** The link was paid (or removed) by the time this payer's payment could be recorded. */
  | { result: 'unavailable'; payment: PaymentRecord | null }
  /** The same attempt is being processed by an earlier submit. */
  | { result: 'in_progress'; payment: PaymentRecord };

/** What a recorded payment means for the payer; also how a repeated attempt is answered. */
export function outcomeOf(payment: PaymentRecord): CheckoutOutcome {
  if (payment.status_id === PAYMENT_PAID) return { result: 'paid', payment };
  if (payment.status_id === PAYMENT_FAILED) {
    if (payment.failure_code === LINK_UNAVAILABLE.code) return { result: 'unavailable', payment };
    return { result: 'declined', payment, message: payment.failure_message ?? 'Your card was declined.' };
  }
  return { result: 'in_progress', payment };
}

/**
 * Records a payer's attempt on a link as pending, before any acquirer is asked; a form submitted
 * again (its attempt_id is unique) finds its first attempt instead. `method` is the card until a
 * hosted acquirer says how the payer paid. An attempt on a hosted acquirer's page takes one of the
 * link's checkout slots (`checkout`); a slot another attempt holds is a unique violation thrown.
 */
export async function recordLinkAttempt(
  db: Executor,
  attempt: LinkAttempt,
  provider: string,
  checkout?: { slot: number; payer: string | null },
): Promise<{ pending: PaymentRecord } | { earlier: PaymentRecord }> {
  const { target } = attempt;
  try {
    const pending = await insertPendingPayment(db, {
      _id: newId(),
      business_id: target.businessId,
      payment_link_id: target.kind === 'payment_link' ? target.id : null,
      open_payment_link_id: target.kind === 'open_payment_link' ? target.id : null,
      attempt_id: attempt.attemptId,
      amount: attempt.amount,
      currency: target.currency,
      payer_name: attempt.payerName,
      payer_email: attempt.payerEmail,
      method: 'card',
      provider,
      tokenization_id: null,
      reference: target.reference,
      description: target.title,
      ...(checkout ? { checkout_slot: checkout.slot, checkout_payer: checkout.payer } : {}),
    });
    return { pending };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const earlier = await findPaymentByAttempt(db, attempt.attemptId);
    if (!earlier) throw error;
    return { earlier };
  }
}
