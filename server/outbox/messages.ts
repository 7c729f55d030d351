// The e-mails and webhook events the service sends, composed when they are enqueued: what was true
// at that commit is what gets delivered, however late.
import { html } from '../html.js';
import { eventHash } from '../../shared/webhook-signature.js';
import { formatUnits } from '../domain/money.js';
import { isoMicros, swipeTime } from '../domain/time.js';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const amount = (currency: string, cents: number) => `${currency} ${formatUnits(cents)}`;

function emailHtml(heading: string, lines: unknown[], action?: { label: string; url: string }): string {
  return html`<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1d2430;max-width:520px;margin:auto;padding:16px">
<h2 style="margin:0 0 12px">${heading}</h2>
${lines.map((line) => html`<p>${line}</p>`)}
${action ? html`<p><a href="${action.url}" style="display:inline-block;background:#1f5eff;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:bold">${action.label}</a></p><p style="color:#5b6472;font-size:13px">Or open ${action.url}</p>` : ''}
</body></html>`.value;
}

export interface PaymentLinkForEmail {
  email: string;
  currency: string;
  amount: number;
  title: string;
  description: string | null;
  reference: string | null;
  payment_url: string;
}

export function paymentRequestEmail(businessName: string, link: PaymentLinkForEmail): EmailMessage {
  const due = amount(link.currency, link.amount);
  const lines = [`${businessName} asks you to pay ${due} for "${link.title}".`, link.description, link.reference && `Reference: ${link.reference}`].filter(
    Boolean,
  ) as string[];
  return {
    to: link.email,
    subject: `Payment request from ${businessName}: ${link.title} (${due})`,
    text: `Hello,\n\n${lines.join('\n\n')}\n\nPay securely here:\n${link.payment_url}\n\nIf you were not expecting this request, you can ignore this e-mail.\n`,
    html: emailHtml(`${link.title}: ${due}`, ['Hello,', ...lines], { label: `Pay ${due}`, url: link.payment_url }),
  };
}

export function receiptEmail(
  businessName: string,
  payment: { to: string; currency: string; amount: number; title: string; payment_id: string; card: string | null },
): EmailMessage {
  const paid = amount(payment.currency, payment.amount);
  const lines = [
    `We received your payment of ${paid} to ${businessName} for "${payment.title}".`,
    payment.card && `Paid with ${payment.card}.`,
    `Payment reference: ${payment.payment_id}`,
  ].filter(Boolean) as string[];
  return {
    to: payment.to,
    subject: `Receipt: ${paid} to ${businessName}`,
    text: `Hello,\n\n${lines.join('\n\n')}\n\nThank you.\n`,
    html: emailHtml(`Payment received: ${paid}`, ['Hello,', ...lines, 'Thank you.']),
  };
}

export function cardSavedEmail(businessName: string, token: { to: string; title: string; card: string }): EmailMessage {
  const line = `Your ${token.card} is saved with ${businessName} for "${token.title}".`;
  return {
    to: token.to,
    subject: `Card saved with ${businessName}`,
    text: `Hello,\n\n${line}\n\nIf you did not do this, contact ${businessName}.\n`,
    html: emailHtml('Card saved', ['Hello,', line, `If you did not do this, contact ${businessName}.`]),
  };
}

/** An event as stored in the outbox: `hash` is added at delivery, with the key current then. */
export interface StoredEvent {
  id: string;
  body: { trigger_at: string; event: string; data: Record<string, unknown> };
}

export interface PaidPayment {
  _id: string;
  attempt_id: string;
  amount: number;
  currency: string;
  status_id: number;
  updated_at: string;
  method: string;
  provider: string;
}

export const PAYMENT_SUCCEEDED_MESSAGE = 'Payment successful';

/**
 * What a payment was for. A charge on a saved card has no link: `payment_link_id` is null and the
 * token is named by `payment_reference_model` / `payment_reference_id`.
 */
export type PaymentTargetFields = {
  kind: 'payment_link' | 'open_payment_link' | 'tokenization';
  _id: string;
  reference: string | null;
  reference_2: string | null;
};

/**
 * `payment.created`: Swipe's fields, in Swipe's order and formats (docs/compatibility.md, Webhooks: amounts as
 * integers of cents, the time as `d-m-Y h:i:s a` in Malaysia time), then fields of our own under
 * names of their own (the time in ISO 8601 UTC, the amount in units).
 */
export function paymentCreatedEvent(eventId: string, payment: PaidPayment, target: PaymentTargetFields): StoredEvent {
  return {
    id: eventId,
    body: {
      trigger_at: isoMicros(new Date()),
      event: 'payment.created',
      data: {
        attempt_id: payment.attempt_id,
        charge_amount: payment.amount,
        payment_id: payment._id,
        payment_time: swipeTime(payment.updated_at),
        payment_amount: payment.amount,
        payment_status: payment.status_id,
        payment_link_id: target.kind === 'tokenization' ? null : target._id,
        payment_link_reference: target.reference,
        payment_link_reference_2: target.reference_2,
        payment_message: PAYMENT_SUCCEEDED_MESSAGE,
        payment_reference_model: target.kind,
        payment_reference_id: target._id,
        payment_currency: payment.currency,
        payment_method: payment.method,
        payment_provider: payment.provider,
        payment_time_iso: payment.updated_at,
        payment_amount_decimal: formatUnits(payment.amount).replace(/,/g, ''),
      },
    },
  };
}

export interface FailedPayment extends PaidPayment {
  failure_code: string | null;
  failure_message: string | null;
}

/** `payment.failed`: the fields of `payment.created`, in the same order, with the reason after them. */
export function paymentFailedEvent(eventId: string, payment: FailedPayment, target: PaymentTargetFields): StoredEvent {
  const created = paymentCreatedEvent(eventId, payment, target).body;
  return {
    id: eventId,
    body: {
      ...created,
      event: 'payment.failed',
      data: {
        ...created.data,
        // A failed attempt charged nothing.
        charge_amount: 0,
        payment_message: payment.failure_message ?? 'The payment failed.',
        failure_code: payment.failure_code ?? 'processing_error',
      },
    },
  };
}

export interface RefundForEvent {
  _id: string;
  payment_id: string;
  amount: number;
  currency: string;
  status: string;
  reason: string | null;
  failure_code: string | null;
  failure_message: string | null;
  updated_at: string;
}

/** `refund.succeeded` / `refund.failed`: the refund, and where it leaves its payment; amounts and times written as in payment events. */
export function refundEvent(
  eventId: string,
  refund: RefundForEvent,
  payment: { amount: number; amount_refunded: number; payment_link_id: string | null; open_payment_link_id: string | null; tokenization_id: string | null },
): StoredEvent {
  const failed = refund.status === 'failed';
  return {
    id: eventId,
    body: {
      trigger_at: isoMicros(new Date()),
      event: failed ? 'refund.failed' : 'refund.succeeded',
      data: {
        refund_id: refund._id,
        payment_id: refund.payment_id,
        refund_amount: refund.amount,
        refund_currency: refund.currency,
        refund_status: refund.status,
        refund_reason: refund.reason,
        refund_time: swipeTime(refund.updated_at),
        payment_amount: payment.amount,
        payment_amount_refunded: payment.amount_refunded,
        payment_link_id: payment.payment_link_id,
        open_payment_link_id: payment.open_payment_link_id,
        tokenization_id: payment.tokenization_id,
        refund_time_iso: refund.updated_at,
        failure_code: failed ? refund.failure_code : null,
        failure_message: failed ? refund.failure_message : null,
      },
    },
  };
}

/** `payment_link.expired`: a payment link or an open link passed its expires_at. */
export function paymentLinkExpiredEvent(
  eventId: string,
  link: { _id: string; kind: 'payment_link' | 'open_payment_link'; reference: string | null; reference_2: string | null; expires_at: string },
): StoredEvent {
  return {
    id: eventId,
    body: {
      trigger_at: isoMicros(new Date()),
      event: 'payment_link.expired',
      data: {
        payment_link_id: link._id,
        payment_link_type: link.kind,
        payment_link_reference: link.reference,
        payment_link_reference_2: link.reference_2,
        expires_at: link.expires_at,
        expired_time: swipeTime(link.expires_at),
      },
    },
  };
}

export function tokenActivatedEvent(eventId: string, token: { _id: string; card_brand: string; card_last4: string; activated_at: string }): StoredEvent {
  return {
    id: eventId,
    body: {
      trigger_at: isoMicros(new Date()),
      event: 'token.activated',
      data: { token_id: token._id, token_status: 'active', card_brand: token.card_brand, card_last4: token.card_last4, activated_at: token.activated_at },
    },
  };
}

/** `token.card_removed`: the merchant removed the token's saved card; `card_*` describe the card that was removed. */
export function tokenCardRemovedEvent(eventId: string, token: { _id: string; card_brand: string; card_last4: string; removed_at: string }): StoredEvent {
  return {
    id: eventId,
    body: {
      trigger_at: isoMicros(new Date()),
      event: 'token.card_removed',
      data: { token_id: token._id, token_status: 'pending', card_brand: token.card_brand, card_last4: token.card_last4, removed_at: token.removed_at },
    },
  };
}

/** `ping`: sent to one endpoint on request (POST /api/webhook-endpoints/{id}/test), whatever events it wants. */
export function pingEvent(eventId: string, endpoint: { _id: string; url: string }): StoredEvent {
  return {
    id: eventId,
    body: { trigger_at: isoMicros(new Date()), event: 'ping', data: { webhook_endpoint_id: endpoint._id, url: endpoint.url, message: 'A test event.' } },
  };
}

/** The body as sent: the stored event with `data.hash` appended. */
export function signedBody(event: StoredEvent, signatureKey: string): string {
  const data = { ...event.body.data, hash: eventHash(signatureKey, event.body.data) };
  return JSON.stringify({ ...event.body, data });
}

/** An invitation to join a business's team: a one-time link to the page where the invitee sets their name and password. */
export function invitationEmail(invitation: { to: string; business: string; role: string; url: string; expiresAt: string }): EmailMessage {
  const line = `You are invited to join ${invitation.business} as ${invitation.role} on its payment collection service.`;
  const until = `The link works once, until ${invitation.expiresAt.slice(0, 16).replace('T', ' ')} UTC.`;
  return {
    to: invitation.to,
    subject: `Join ${invitation.business} on the payment collection service`,
    text: `Hello,\n\n${line}\n\nSet your name and password here:\n${invitation.url}\n\n${until} If you were not expecting this, you can ignore this e-mail.\n`,
    html: emailHtml(`Join ${invitation.business}`, ['Hello,', line, until], { label: 'Accept the invitation', url: invitation.url }),
  };
}
