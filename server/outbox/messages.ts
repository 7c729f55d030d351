// The e-mails and webhook events the service sends, composed when they are enqueued: what was true
// at that commit is what gets delivered, however late.
import { html } from '../html.js';
import { eventHash } from '../../shared/webhook-signature.js';
import { formatMoney, formatUnits } from '../domain/money.js';
import { translator, type Translator } from '../i18n/index.js';
import { isoMicros, swipeTime } from '../domain/time.js';

export interface EmailMessage {
  to: string;
  /** Where a payer's reply goes: the merchant's support address, when it has one (nodemailer's `replyTo`). */
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
}

/** Who the e-mail is from, as payers see the merchant: its name and, when it has one, its logo's address. */
export interface EmailMerchant {
  name: string;
  logoUrl: string | null;
  brand: { colour: string; text: string } | null;
  /** The business's support e-mail (its profile): a payer's reply reaches the merchant rather than the service's no-reply sender. */
  supportEmail?: string | null;
}

/** The Reply-To of an e-mail to a payer. */
function replyTo(merchant: EmailMerchant): Pick<EmailMessage, 'replyTo'> {
  return merchant.supportEmail ? { replyTo: merchant.supportEmail } : {};
}

export function emailHtml(tr: Translator, merchant: EmailMerchant, heading: string, lines: unknown[], action?: { label: string; url: string }): string {
  const button = merchant.brand ? `background:${merchant.brand.colour};color:${merchant.brand.text}` : 'background:#1f5eff;color:#fff';
  return html`<!doctype html><html lang="${tr.tag}"><body style="font-family:system-ui,sans-serif;color:#1d2430;max-width:520px;margin:auto;padding:16px">
<p style="font-weight:bold;font-size:18px;margin:0 0 16px">${merchant.logoUrl ? html`<img src="${merchant.logoUrl}" alt="" style="max-height:48px;max-width:160px;vertical-align:middle;margin-right:12px">` : ''}${merchant.name}</p>
<h2 style="margin:0 0 12px">${heading}</h2>
${lines.map((line) => html`<p>${line}</p>`)}
${action ? html`<p><a href="${action.url}" style="display:inline-block;${button};padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:bold">${action.label}</a></p><p style="color:#5b6472;font-size:13px">${tr.t('email.or_open', { url: action.url })}</p>` : ''}
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

export function paymentRequestEmail(merchant: EmailMerchant, link: PaymentLinkForEmail, tr: Translator = translator('en')): EmailMessage {
  const due = formatMoney(link.currency, link.amount);
  const lines = [
    tr.t('email.request.line', { merchant: merchant.name, amount: due, title: link.title }),
    link.description,
    link.reference && tr.t('email.request.reference', { reference: link.reference }),
  ].filter(Boolean) as string[];
  return {
    to: link.email,
    ...replyTo(merchant),
    subject: tr.t('email.request.subject', { merchant: merchant.name, title: link.title, amount: due }),
    text: `${tr.t('email.hello')}\n\n${lines.join('\n\n')}\n\n${tr.t('email.request.pay_here')}\n${link.payment_url}\n\n${tr.t('email.request.ignore')}\n`,
    html: emailHtml(tr, merchant, `${link.title}: ${due}`, [tr.t('email.hello'), ...lines], {
      label: tr.t('email.request.button', { amount: due }),
      url: link.payment_url,
    }),
  };
}

/** A card as a payer e-mail names it: its brand and last four digits. */
export function cardName(tr: Translator, brand: string, last4: string): string {
  return tr.t('email.card', { brand: brand.toUpperCase(), last4 });
}

export function receiptEmail(
  merchant: EmailMerchant,
  payment: {
    to: string;
    currency: string;
    amount: number;
    title: string;
    /**
     * The payment's id, printed as the receipt's number: the one thing unique to this payment (an open link's
     * reference is shared by all its payers), which the merchant finds the payment by.
     */
    payment_id: string;
    /** The merchant's reference (the link's `reference`), which the payer can quote to the merchant; null when it gave none. */
    reference: string | null;
    card: { brand: string; last4: string } | null;
    paid_at?: string;
    time_zone?: string;
    /** Where the merchant is found again (the link's redirect_url), when known. */
    merchant_url?: string | null;
  },
  tr: Translator = translator('en'),
): EmailMessage {
  const paid = formatMoney(payment.currency, payment.amount);
  const lines = [
    tr.t('email.receipt.line', { amount: paid, merchant: merchant.name, title: payment.title }),
    payment.card && tr.t('email.receipt.card', { card: cardName(tr, payment.card.brand, payment.card.last4) }),
    payment.paid_at && payment.time_zone && tr.t('email.receipt.time', { time: tr.dateTime(payment.paid_at, payment.time_zone) }),
    payment.reference && tr.t('email.receipt.reference', { reference: payment.reference }),
    tr.t('email.receipt.number', { id: payment.payment_id }),
  ].filter(Boolean) as string[];
  const back = payment.merchant_url ? { label: tr.t('email.receipt.back', { merchant: merchant.name }), url: payment.merchant_url } : undefined;
  return {
    to: payment.to,
    ...replyTo(merchant),
    subject: tr.t('email.receipt.subject', { amount: paid, merchant: merchant.name }),
    text: `${tr.t('email.hello')}\n\n${lines.join('\n\n')}\n\n${back ? `${back.label}:\n${back.url}\n\n` : ''}${tr.t('email.thanks')}\n`,
    html: emailHtml(tr, merchant, tr.t('email.receipt.heading', { amount: paid }), [tr.t('email.hello'), ...lines, tr.t('email.thanks')], back),
  };
}

export function cardSavedEmail(
  merchant: EmailMerchant,
  token: { to: string; title: string; card: { brand: string; last4: string } },
  tr: Translator = translator('en'),
): EmailMessage {
  const line = tr.t('email.card_saved.line', { card: cardName(tr, token.card.brand, token.card.last4), merchant: merchant.name, title: token.title });
  const contact = tr.t('email.card_saved.contact', { merchant: merchant.name });
  return {
    to: token.to,
    ...replyTo(merchant),
    subject: tr.t('email.card_saved.subject', { merchant: merchant.name }),
    text: `${tr.t('email.hello')}\n\n${line}\n\n${contact}\n`,
    html: emailHtml(tr, merchant, tr.t('email.card_saved.heading'), [tr.t('email.hello'), line, contact]),
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

/** What a payout event says of a payout: its sum, its state, and whether it was found to add up. */
export interface PayoutForEvent {
  _id: string;
  amount: number;
  currency: string;
  status: string;
  arrival_date: string;
  acquirer_reference: string;
  bank_reference: string | null;
  transaction_count: number;
  reconciliation_status: string;
  reconciliation_reason: string | null;
  failure_code: string | null;
  failure_message: string | null;
  updated_at: string;
}

export type PayoutEventName = 'payout.created' | 'payout.paid' | 'payout.failed' | 'payout.reconciliation_failed';

/** `payout.created`, `payout.paid`, `payout.failed`, `payout.reconciliation_failed`: the payout as it stands. */
export function payoutEvent(eventId: string, event: PayoutEventName, payout: PayoutForEvent): StoredEvent {
  return {
    id: eventId,
    body: {
      trigger_at: isoMicros(new Date()),
      event,
      data: {
        payout_id: payout._id,
        payout_amount: payout.amount,
        payout_currency: payout.currency,
        payout_status: payout.status,
        arrival_date: payout.arrival_date,
        acquirer_reference: payout.acquirer_reference,
        bank_reference: payout.bank_reference,
        transaction_count: payout.transaction_count,
        reconciliation_status: payout.reconciliation_status,
        reconciliation_reason: payout.reconciliation_reason,
        failure_code: payout.failure_code,
        failure_message: payout.failure_message,
        payout_time_iso: payout.updated_at,
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
    // Staff read the console in English (its own language is a matter for the console), so this e-mail is English too.
    html: emailHtml(translator('en'), { name: invitation.business, logoUrl: null, brand: null }, `Join ${invitation.business}`, ['Hello,', line, until], {
      label: 'Accept the invitation',
      url: invitation.url,
    }),
  };
}
