// What the service tells payers and businesses, enqueued inside the caller's transaction: if the
// change commits, so do its notifications; if it rolls back, nothing is sent.
import { newId } from '../../domain/ids.js';
import type { Executor } from '../../store/executor.js';
import { emailLocale } from '../../domain/locales.js';
import { translator, type Translator } from '../../i18n/index.js';
import { findTargetLocale } from '../../store/business-profile.js';
import { recordEventWithoutDeliveries } from '../../store/events.js';
import { enqueue } from '../../store/outbox.js';
import { findOpenPaymentLinkForPayer } from '../../store/open-payment-links.js';
import { findPaymentLinkForPayer } from '../../store/payment-links.js';
import { subscribedEndpoints } from '../../store/webhook-endpoints.js';
import { merchantFor, type Merchant } from '../merchant/business-profile.js';
import {
  cardSavedEmail,
  invitationEmail,
  paymentCreatedEvent,
  paymentFailedEvent,
  paymentLinkExpiredEvent,
  payoutEvent,
  paymentRequestEmail,
  receiptEmail,
  refundEvent,
  tokenActivatedEvent,
  tokenCardRemovedEvent,
  type EmailMerchant,
  type EmailMessage,
  type FailedPayment,
  type PaidPayment,
  type PaymentLinkForEmail,
  type PaymentTargetFields,
  type PayoutEventName,
  type PayoutForEvent,
  type RefundForEvent,
  type StoredEvent,
} from '../../outbox/messages.js';

/**
 * Who a payer e-mail is from and the language it is written in: the link's (or token's) language,
 * else the business's default. Logos are linked from the public address, as payers' mail clients fetch them.
 */
async function sender(
  db: Executor,
  businessId: number,
  publicUrl: string | undefined,
  target?: { kind: 'payment_link' | 'open_payment_link' | 'tokenization'; id: string },
): Promise<{ merchant: EmailMerchant & Merchant; tr: Translator }> {
  const merchant = await merchantFor(db, businessId);
  const linkLocale = target ? await findTargetLocale(db, target.kind, target.id) : null;
  const logoUrl = merchant.logoPath && publicUrl ? `${publicUrl}${merchant.logoPath}` : null;
  return { merchant: { ...merchant, logoUrl }, tr: translator(emailLocale(linkLocale, merchant.defaultLocale)) };
}

export async function enqueueEmail(db: Executor, businessId: number, topic: string, message: EmailMessage): Promise<void> {
  await enqueue(db, { business_id: businessId, channel: 'email', topic, payload: { message, messageId: `<${newId()}.${topic}@payment-collection-service>` } });
}

/**
 * A webhook event, one delivery for each of the business's enabled endpoints that wants it (by row key); the same event id in each.
 * An event no endpoint wants is recorded all the same (the event log and a payment's history do not
 * wait for the business's first endpoint), with nothing to deliver.
 */
export async function enqueueWebhook(db: Executor, businessId: number, event: StoredEvent, endpointIds?: number[]): Promise<void> {
  const endpoints = endpointIds ?? (await subscribedEndpoints(db, businessId, event.body.event));
  if (endpoints.length === 0) return recordEventWithoutDeliveries(db, businessId, { id: event.id, topic: event.body.event, payload: event });
  for (const endpointId of endpoints) {
    await enqueue(db, { business_id: businessId, endpoint_id: endpointId, channel: 'webhook', topic: event.body.event, payload: event });
  }
}

export async function notifyPaymentRequest(db: Executor, businessId: number, link: PaymentLinkForEmail & { _id?: string }): Promise<void> {
  const { merchant, tr } = await sender(db, businessId, publicUrlOf(link.payment_url), link._id ? { kind: 'payment_link', id: link._id } : undefined);
  await enqueueEmail(db, businessId, 'payment_link.sent', paymentRequestEmail(merchant, link, tr));
}

/** The service's public address, from a payer URL it made. */
function publicUrlOf(payerUrl: string): string | undefined {
  const at = payerUrl.search(/\/(?:payment|tokenization)\//);
  return at > 0 ? payerUrl.slice(0, at) : undefined;
}

export interface SucceededPayment extends PaidPayment {
  business_id: number;
  payer_email: string | null;
  card_brand: string | null;
  card_last4: string | null;
}

export async function notifyPaymentSucceeded(
  db: Executor,
  payment: SucceededPayment,
  link: PaymentTargetFields & { title: string },
  publicUrl?: string,
): Promise<void> {
  if (payment.payer_email) {
    const { merchant, tr } = await sender(db, payment.business_id, publicUrl, { kind: link.kind, id: link._id });
    const card = payment.card_last4 ? { brand: String(payment.card_brand), last4: payment.card_last4 } : null;
    await enqueueEmail(
      db,
      payment.business_id,
      'payment.receipt',
      receiptEmail(
        merchant,
        {
          to: payment.payer_email,
          currency: payment.currency,
          amount: payment.amount,
          title: link.title,
          payment_id: payment._id,
          reference: link.reference,
          card,
          paid_at: payment.updated_at,
          time_zone: merchant.timeZone,
          merchant_url: (await merchantSite(db, link)) ?? merchant.websiteUrl,
        },
        tr,
      ),
    );
  }
  await enqueueWebhook(db, payment.business_id, paymentCreatedEvent(`evt_${newId()}`, payment, link));
}

/**
 * Where the payer finds the merchant again: the site its link sends payers back to (the origin of its
 * redirect_url; the URL itself expects the signed parameters of a redirect), when it has one; the
 * caller falls back on the business's website.
 */
async function merchantSite(db: Executor, link: PaymentTargetFields): Promise<string | null> {
  if (link.kind === 'tokenization') return null;
  const record = link.kind === 'payment_link' ? await findPaymentLinkForPayer(db, link._id) : await findOpenPaymentLinkForPayer(db, link._id);
  return record?.redirect_url ? `${new URL(record.redirect_url).origin}/` : null;
}

/** A failed attempt: the business's books hear of it (the payer was told on the page; no e-mail). */
export async function notifyPaymentFailed(db: Executor, payment: FailedPayment & { business_id: number }, link: PaymentTargetFields): Promise<void> {
  await enqueueWebhook(db, payment.business_id, paymentFailedEvent(`evt_${newId()}`, payment, link));
}

/** A payout was made, paid, failed, or found not to add up. */
export async function notifyPayout(db: Executor, businessId: number, event: PayoutEventName, payout: PayoutForEvent): Promise<void> {
  await enqueueWebhook(db, businessId, payoutEvent(`evt_${newId()}`, event, payout));
}

/** A refund reached its final state (`refund.succeeded` or `refund.failed`). */
export async function notifyRefundSettled(db: Executor, businessId: number, refund: RefundForEvent, payment: Parameters<typeof refundEvent>[2]): Promise<void> {
  await enqueueWebhook(db, businessId, refundEvent(`evt_${newId()}`, refund, payment));
}

export async function notifyTokenActivated(
  db: Executor,
  token: { _id: string; business_id: number; email: string; title: string; card_brand: string; card_last4: string; activated_at: string },
  publicUrl?: string,
): Promise<void> {
  const { merchant, tr } = await sender(db, token.business_id, publicUrl, { kind: 'tokenization', id: token._id });
  await enqueueEmail(
    db,
    token.business_id,
    'token.activated',
    cardSavedEmail(merchant, { to: token.email, title: token.title, card: { brand: token.card_brand, last4: token.card_last4 } }, tr),
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
