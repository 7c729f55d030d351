// The open-payment-link operations and their collection reports.
import type { components } from '../../generated/openapi.js';
import { centsToUnits, parseUnits } from '../domain/money.js';
import { openPaymentUrl } from '../domain/payer-urls.js';
import { expiresAtRule, minimumAmountRule } from '../domain/rules.js';
import { isoMicros } from '../domain/time.js';
import { OPEN_LINK_ACTIVE } from '../domain/statuses.js';
import type { Handler, SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import {
  createOpenPaymentLink,
  deleteOpenPaymentLink,
  getOpenPaymentLink,
  listOpenPaymentLinks,
  pauseOpenPaymentLink,
  resumeOpenPaymentLink,
  topCollection,
  totalCollection,
  updateOpenPaymentLink,
  type CollectionRecord,
  type OpenPaymentLinkFields,
  type OpenPaymentLinkRecord,
} from '../usecases/merchant/open-payment-links.js';
import { ok } from './envelope.js';
import { createdBetween, createdRange, pageOf, pageRequest, pageTooDeep } from './listing.js';
import { qrImage } from './qr-codes.js';

type OpenPaymentLink = components['schemas']['OpenPaymentLink'];
type OpenPaymentLinkCreate = components['schemas']['OpenPaymentLinkCreate'];
type Collection = components['schemas']['Collection'];

export const DEFAULT_TOP_COLLECTIONS = 10;

/** The writable fields, copied by name; `send_email` is accepted on update but an open link has no one to e-mail. */
function writableFields(body: OpenPaymentLinkCreate): OpenPaymentLinkFields {
  const minimum = parseUnits(body.minimum_amount);
  if (minimum.kind !== 'ok') throw new Error('minimum_amount passed validation but does not parse');
  return {
    currency: body.currency,
    minimum_amount: Number(minimum.cents),
    title: body.title,
    description: body.description ?? null,
    redirect_url: body.redirect_url ?? null,
    reference: body.reference ?? null,
    reference_2: body.reference_2 ?? null,
    expires_at: body.expires_at ? isoMicros(new Date(body.expires_at)) : null,
    max_payments: body.max_payments ?? null,
    locale: body.locale ?? null,
  };
}

function presentCollection(record: CollectionRecord): Collection {
  return {
    _id: record._id,
    amount: centsToUnits(record.amount),
    payer_name: record.payer_name,
    payer_email: record.payer_email,
    created_at: record.created_at,
  };
}

export function presentOpenPaymentLink(publicUrl: string, record: OpenPaymentLinkRecord): OpenPaymentLink {
  return {
    _id: record._id,
    business_id: record.business_id,
    currency: record.currency,
    minimum_amount: centsToUnits(record.minimum_amount),
    title: record.title,
    description: record.description,
    redirect_url: record.redirect_url,
    reference: record.reference,
    reference_2: record.reference_2,
    status_id: record.status_id as OpenPaymentLink['status_id'],
    status: record.status_id === OPEN_LINK_ACTIVE,
    state: record.state,
    expires_at: record.expires_at,
    max_payments: record.max_payments,
    payments_count: record.payments_count,
    payment_url: openPaymentUrl(publicUrl, record._id),
    locale: record.locale,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

const NOT_FOUND = { message: 'Open payment link not found.' };
const CANNOT_CHANGE = {
  expired: { message: 'The open payment link has expired; give it a later expires_at with PUT first.' },
  exhausted: { message: 'The open payment link has taken its max_payments payments; raise max_payments with PUT first.' },
} as const;

function pauseOrResume(
  change: typeof pauseOpenPaymentLink,
): Handler<'pauseOpenPaymentLink', UseCaseContext> & Handler<'resumeOpenPaymentLink', UseCaseContext> {
  return {
    async handle({ path, business }, ctx, respond) {
      const result = await change(ctx, business.id, path.open_payment_link_id);
      if (result.outcome === 'missing') return respond.with404(NOT_FOUND);
      if (result.outcome === 'refused') return respond.with409(CANNOT_CHANGE[result.reason]);
      return respond.with200(ok(presentOpenPaymentLink(ctx.publicUrl, result.record)));
    },
  };
}

export const openPaymentLinkHandlers = {
  pauseOpenPaymentLink: pauseOrResume(pauseOpenPaymentLink),
  resumeOpenPaymentLink: pauseOrResume(resumeOpenPaymentLink),
  createOpenPaymentLink: {
    rules: [minimumAmountRule, expiresAtRule],
    async handle({ body, business }, ctx, respond) {
      return respond.with200(ok(presentOpenPaymentLink(ctx.publicUrl, await createOpenPaymentLink(ctx, business.id, writableFields(body)))));
    },
  },
  getOpenPaymentLink: {
    async handle({ path, business }, ctx, respond) {
      const record = await getOpenPaymentLink(ctx, business.id, path.open_payment_link_id);
      return record ? respond.with200(ok(presentOpenPaymentLink(ctx.publicUrl, record))) : respond.with404(NOT_FOUND);
    },
  },
  getOpenPaymentLinkQrCode: {
    async handle({ path, query, accepts, business }, ctx, respond) {
      const record = await getOpenPaymentLink(ctx, business.id, path.open_payment_link_id);
      if (!record) return respond.with404(NOT_FOUND);
      const qr = await qrImage(openPaymentUrl(ctx.publicUrl, record._id), accepts, query.size);
      return respond.with200(qr.body, qr.headers);
    },
  },
  updateOpenPaymentLink: {
    rules: [minimumAmountRule, expiresAtRule],
    async handle({ path, body, business }, ctx, respond) {
      const record = await updateOpenPaymentLink(ctx, business.id, path.open_payment_link_id, writableFields(body));
      return record ? respond.with200(ok(presentOpenPaymentLink(ctx.publicUrl, record))) : respond.with404(NOT_FOUND);
    },
  },
  deleteOpenPaymentLink: {
    async handle({ path, business }, ctx, respond) {
      const record = await deleteOpenPaymentLink(ctx, business.id, path.open_payment_link_id);
      return record ? respond.with200(ok(presentOpenPaymentLink(ctx.publicUrl, record))) : respond.with404(NOT_FOUND);
    },
  },
  listOpenPaymentLinks: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const result = await listOpenPaymentLinks(
        ctx,
        business.id,
        {
          active: query['filter[status]'],
          reference: query['filter[reference]'],
          reference_2: query['filter[reference_2]'],
          title: query['filter[title]'],
          createdBetween: await createdRange(ctx, business.id, query),
        },
        page,
      );
      return respond.with200(
        ok(pageOf(`${ctx.publicUrl}/api/open-payment-links`, rawQuery, page, result, (record) => presentOpenPaymentLink(ctx.publicUrl, record))),
      );
    },
  },
  getOpenPaymentLinkTotalCollection: {
    async handle({ path, query, business }, ctx, respond) {
      const range = createdBetween(query['filter[created_at_between]']);
      const report = await totalCollection(ctx, business.id, path.open_payment_link_id, range, query['filter[limit]']);
      if (!report) return respond.with404(NOT_FOUND);
      return respond.with200(
        ok({
          open_payment_link_id: report.link._id,
          currency: report.link.currency,
          total_amount: centsToUnits(report.totals.total),
          total_count: report.totals.count,
          total_refunded: centsToUnits(report.totals.refunded),
          from: range?.from ?? null,
          to: range?.to ?? null,
          ...(report.recent && { collections: report.recent.map(presentCollection) }),
        }),
      );
    },
  },
  getOpenPaymentLinkTopCollection: {
    async handle({ path, query, business }, ctx, respond) {
      const report = await topCollection(
        ctx,
        business.id,
        path.open_payment_link_id,
        createdBetween(query['filter[created_at_between]']),
        query['filter[limit]'] ?? DEFAULT_TOP_COLLECTIONS,
      );
      if (!report) return respond.with404(NOT_FOUND);
      return respond.with200(ok({ open_payment_link_id: report.link._id, currency: report.link.currency, collections: report.top.map(presentCollection) }));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
