// What the service tells payers and businesses, enqueued inside the caller's transaction: if the
// change commits, so do its notifications; if it rolls back, nothing is sent.
import { newId } from '../domain/ids.js';
import type { Executor } from '../store/executor.js';
import { findBusinessName } from '../store/businesses.js';
import { enqueue } from '../store/outbox.js';
import { subscribedEndpoints } from '../store/webhook-endpoints.js';
import {
  cardSavedEmail,
  invitationEmail,
  paymentCreatedEvent,
  paymentFailedEvent,
  paymentLinkExpiredEvent,
  paymentRequestEmail,
  receiptEmail,
  refundEvent,
  tokenActivatedEvent,
  tokenCardRemovedEvent,
  type EmailMessage,
  type FailedPayment,
  type PaidPayment,
  type PaymentLinkForEmail,
  type PaymentTargetFields,
  type RefundForEvent,
  type StoredEvent,
} from '../outbox/messages.js';

async function businessName(db: Executor, businessId: number): Promise<string> {
  return (await findBusinessName(db, businessId)) ?? 'A merchant';
}

async function enqueueEmail(db: Executor, businessId: number, topic: string, message: EmailMessage): Promise<void> {
  await enqueue(db, { business_id: businessId, channel: 'email', topic, payload: { message, messageId: `<${newId()}.${topic}@payment-collection-service>` } });
}

/** A webhook event, one delivery for each of the business's enabled endpoints that wants it (by row key); the same event id in each. */
export async function enqueueWebhook(db: Executor, businessId: number, event: StoredEvent, endpointIds?: number[]): Promise<void> {
  for (const endpointId of endpointIds ?? (await subscribedEndpoints(db, businessId, event.body.event))) {
    await enqueue(db, { business_id: businessId, endpoint_id: endpointId, channel: 'webhook', topic: event.body.event, payload: event });
  }
}

export async function notifyPaymentRequest(db: Executor, businessId: number, link: PaymentLinkForEmail): Promise<void> {
  await enqueueEmail(db, businessId, 'payment_link.sent', paymentRequestEmail(await businessName(db, businessId), link));
}

export interface SucceededPayment extends PaidPayment {
  business_id: number;
  payer_email: string | null;
  card_brand: string | null;
  card_last4: string | null;
}

export async function notifyPaymentSucceeded(db: Executor, payment: SucceededPayment, link: PaymentTargetFields & { title: string }): Promise<void> {
  const name = await businessName(db, payment.business_id);
  if (payment.payer_email) {
    const card = payment.card_last4 ? `${String(payment.card_brand).toUpperCase()} ending in ${payment.card_last4}` : null;
    await enqueueEmail(
      db,
      payment.business_id,
      'payment.receipt',
      receiptEmail(name, { to: payment.payer_email, currency: payment.currency, amount: payment.amount, title: link.title, payment_id: payment._id, card }),
    );
  }
  await enqueueWebhook(db, payment.business_id, paymentCreatedEvent(`evt_${newId()}`, payment, link));
}

/** A failed attempt: the business's books hear of it (the payer was told on the page; no e-mail). */
export async function notifyPaymentFailed(db: Executor, payment: FailedPayment & { business_id: number }, link: PaymentTargetFields): Promise<void> {
  await enqueueWebhook(db, payment.business_id, paymentFailedEvent(`evt_${newId()}`, payment, link));
}

/** A refund reached its final state (`refund.succeeded` or `refund.failed`). */
export async function notifyRefundSettled(db: Executor, businessId: number, refund: RefundForEvent, payment: Parameters<typeof refundEvent>[2]): Promise<void> {
  await enqueueWebhook(db, businessId, refundEvent(`evt_${newId()}`, refund, payment));
}

export async function notifyTokenActivated(
  db: Executor,
  token: { _id: string; business_id: number; email: string; title: string; card_brand: string; card_last4: string; activated_at: string },
): Promise<void> {
  const name = await businessName(db, token.business_id);
  await enqueueEmail(
    db,
    token.business_id,
    'token.activated',
    cardSavedEmail(name, { to: token.email, title: token.title, card: `${token.card_brand.toUpperCase()} ending in ${token.card_last4}` }),
  );
  await enqueueWebhook(db, token.business_id, tokenActivatedEvent(`evt_${newId()}`, token));
}

/** The merchant removed a token's saved card: its endpoints hear it; the payer gets no e-mail (the merchant tells them as it sees fit). */
export async function notifyTokenCardRemoved(db: Executor, businessId: number, token: Parameters<typeof tokenCardRemovedEvent>[1]): Promise<void> {
  await enqueueWebhook(db, businessId, tokenCardRemovedEvent(`evt_${newId()}`, token));
}

export async function notifyLinkExpired(db: Executor, businessId: number, link: Parameters<typeof paymentLinkExpiredEvent>[1]): Promise<void> {
  await enqueueWebhook(db, businessId, paymentLinkExpiredEvent(`evt_${newId()}`, link));
}

/** An invitation to the business's team, with its one-time link. */
export async function notifyInvitation(db: Executor, businessId: number, invitation: Parameters<typeof invitationEmail>[0]): Promise<void> {
  await enqueueEmail(db, businessId, 'team.invitation', invitationEmail(invitation));
}
