// The payment-link operations: parse the request, call one use case, render the seed's envelope.
import type { components } from '../../generated/openapi.js';
import { parseCents } from '../domain/money.js';
import { paymentUrl } from '../domain/payer-urls.js';
import { amountStringRule, expiresAtRule } from '../domain/rules.js';
import { isoMicros, metaTimestamp } from '../domain/time.js';
import type { Handler, SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import {
  createPaymentLink,
  deletePaymentLink,
  getPaymentLink,
  listPaymentLinks,
  pausePaymentLink,
  resumePaymentLink,
  updatePaymentLink,
  type PayerEmailLimitReached,
  type PaymentLinkFields,
  type PaymentLinkRecord,
} from '../usecases/merchant/payment-links.js';
import { ok } from './envelope.js';
import { createdRange, pageOf, pageRequest, pageTooDeep } from './listing.js';
import { qrImage } from './qr-codes.js';

type PaymentLink = components['schemas']['PaymentLink'];
type PaymentLinkWrite = components['schemas']['PaymentLinkWrite'];

/** The writable fields, copied by name: read-only and unknown fields in the body never reach the store. */
function writableFields(body: PaymentLinkWrite): PaymentLinkFields {
  return {
    email: body.email,
    phone_no: body.phone_no ?? null,
    currency: body.currency,
    amount: parseCents(body.amount),
    title: body.title,
    description: body.description ?? null,
    redirect_url: body.redirect_url ?? null,
    reference: body.reference ?? null,
    reference_2: body.reference_2 ?? null,
    expires_at: body.expires_at ? isoMicros(new Date(body.expires_at)) : null,
    locale: body.locale ?? null,
  };
}

export function presentPaymentLink(publicUrl: string, record: PaymentLinkRecord): PaymentLink {
  return {
    _id: record._id,
    business_id: record.business_id,
    email: record.email,
    phone_no: record.phone_no,
    currency: record.currency,
    amount: record.amount,
    title: record.title,
    description: record.description,
    redirect_url: record.redirect_url,
    reference: record.reference,
    reference_2: record.reference_2,
    status: record.status,
    paid: record.paid,
    expires_at: record.expires_at,
    payment_url: paymentUrl(publicUrl, record._id),
    locale: record.locale,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/**
 * The daily cap on payer e-mails, in Laravel's shape on the field that asked for one. `Retry-After`
 * says when the day turns; an answer carrying it is not kept under an Idempotency-Key, so the same
 * request with the same key can be sent again then.
 */
function emailLimitReached(reason: PayerEmailLimitReached) {
  const body: components['schemas']['ValidationError'] = {
    message: 'The given data was invalid.',
    errors: {
      send_email: [
        `The send email limit of ${reason.limit} payer e-mails a day has been reached; it resets at ${metaTimestamp(reason.resetsAt)}. Nothing was saved: send the request again then, or without send_email.`,
      ],
    },
  };
  return { body, headers: { 'Retry-After': String(Math.max(1, Math.ceil((reason.resetsAt.getTime() - Date.now()) / 1000))) } };
}

const NOT_FOUND = { message: 'Payment link not found.' };
const PAID = { message: 'The payment link has already been paid.' };
const EXPIRED = { message: 'The payment link has expired; give it a later expires_at with PUT first.' };

/** Pause and resume answer alike: 404, 409 saying why the link cannot change, or the link. */
function pauseOrResume(change: typeof pausePaymentLink): Handler<'pausePaymentLink', UseCaseContext> & Handler<'resumePaymentLink', UseCaseContext> {
  return {
    async handle({ path, business }, ctx, respond) {
      const result = await change(ctx, business.id, path.payment_link_id);
      if (result.outcome === 'missing') return respond.with404(NOT_FOUND);
      if (result.outcome === 'paid') return respond.with409(PAID);
      if (result.outcome === 'expired') return respond.with409(EXPIRED);
      return respond.with200(ok(presentPaymentLink(ctx.publicUrl, result.record)));
    },
  };
}

export const paymentLinkHandlers = {
  createPaymentLink: {
    rules: [amountStringRule, expiresAtRule],
    async handle({ body, business }, ctx, respond) {
      const result = await createPaymentLink(ctx, business.id, writableFields(body), body.send_email);
      if ('outcome' in result) {
        const refusal = emailLimitReached(result);
        return respond.with422(refusal.body, refusal.headers);
      }
      return respond.with200(ok(presentPaymentLink(ctx.publicUrl, result)));
    },
  },
  getPaymentLink: {
    async handle({ path, business }, ctx, respond) {
      const record = await getPaymentLink(ctx, business.id, path.payment_link_id);
      return record ? respond.with200(ok(presentPaymentLink(ctx.publicUrl, record))) : respond.with404(NOT_FOUND);
    },
  },
  getPaymentLinkQrCode: {
    async handle({ path, query, accepts, business }, ctx, respond) {
      const record = await getPaymentLink(ctx, business.id, path.payment_link_id);
      if (!record) return respond.with404(NOT_FOUND);
      const qr = await qrImage(paymentUrl(ctx.publicUrl, record._id), accepts, query.size);
      return respond.with200(qr.body, qr.headers);
    },
  },
  updatePaymentLink: {
    rules: [amountStringRule, expiresAtRule],
    async handle({ path, body, business }, ctx, respond) {
      const result = await updatePaymentLink(ctx, business.id, path.payment_link_id, writableFields(body), body.send_email);
      if (result.outcome === 'email_limit') {
        const refusal = emailLimitReached(result);
        return respond.with422(refusal.body, refusal.headers);
      }
      if (result.outcome === 'paid') return respond.with409(PAID);
      if (result.outcome === 'missing') return respond.with404(NOT_FOUND);
      return respond.with200(ok(presentPaymentLink(ctx.publicUrl, result.record)));
    },
  },
  deletePaymentLink: {
    async handle({ path, business }, ctx, respond) {
      const result = await deletePaymentLink(ctx, business.id, path.payment_link_id);
      if (result.outcome === 'paid') return respond.with409(PAID);
      if (result.outcome === 'missing') return respond.with404(NOT_FOUND);
      return respond.with200(ok(presentPaymentLink(ctx.publicUrl, result.record)));
    },
  },
  pausePaymentLink: pauseOrResume(pausePaymentLink),
  resumePaymentLink: pauseOrResume(resumePaymentLink),
  listPaymentLinks: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const result = await listPaymentLinks(
        ctx,
        business.id,
        {
          status: query['filter[status]'],
          reference: query['filter[reference]'],
          reference_2: query['filter[reference_2]'],
          email: query['filter[email]'],
          title: query['filter[title]'],
          createdBetween: await createdRange(ctx, business.id, query),
        },
        page,
      );
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/payment-links`, rawQuery, page, result, (record) => presentPaymentLink(ctx.publicUrl, record))));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
