import type { components } from '../../generated/openapi.js';
import { isId } from '../domain/ids.js';
import { centsToUnits, parseUnits } from '../domain/money.js';
import { minimumAmountRule } from '../domain/rules.js';
import { ok } from '../http/envelope.js';
import { NotFoundError } from '../http/errors.js';
import type { Operations } from '../http/operations.js';
import { paginator } from '../http/paginator.js';
import {
  OPEN_LINK_ACTIVE,
  deleteOpenPaymentLink,
  findOpenPaymentLink,
  insertOpenPaymentLink,
  listOpenPaymentLinks,
  updateOpenPaymentLink,
  type OpenPaymentLinkFields,
  type OpenPaymentLinkRecord,
} from '../store/open-payment-links.js';
import { collectionTotals, recentCollections, topCollections, type CollectionRecord } from '../store/payments.js';
import type { HandlerDeps } from './deps.js';
import { createdBetween, pageRequest } from './listing.js';

type OpenPaymentLink = components['schemas']['OpenPaymentLink'];
type OpenPaymentLinkCreate = components['schemas']['OpenPaymentLinkCreate'];
type Collection = components['schemas']['Collection'];

export const DEFAULT_TOP_COLLECTIONS = 10;

export function openPaymentUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/payment/open-link/pay?id=${id}`;
}

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
  };
}

const notFound = () => new NotFoundError('Open payment link not found.');

function presentCollection(record: CollectionRecord): Collection {
  return { _id: record._id, amount: centsToUnits(record.amount), payer_name: record.payer_name, payer_email: record.payer_email, created_at: record.created_at };
}

export function openPaymentLinkOperations({ db, publicUrl }: HandlerDeps) {
  const present = (record: OpenPaymentLinkRecord): OpenPaymentLink => ({
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
    payment_url: openPaymentUrl(publicUrl, record._id),
    created_at: record.created_at,
    updated_at: record.updated_at,
  });

  const findOr404 = async (businessId: number, id: string) => {
    const record = isId(id) ? await findOpenPaymentLink(db, businessId, id) : undefined;
    if (!record) throw notFound();
    return record;
  };

  return {
    createOpenPaymentLink: {
      rules: [minimumAmountRule],
      async handle({ body, business, db }) {
        return ok(present(await insertOpenPaymentLink(db, business.id, writableFields(body))));
      },
    },
    getOpenPaymentLink: {
      async handle({ path, business }) {
        return ok(present(await findOr404(business.id, path.open_payment_link_id)));
      },
    },
    updateOpenPaymentLink: {
      rules: [minimumAmountRule],
      async handle({ path, body, business, db }) {
        const record = isId(path.open_payment_link_id) ? await updateOpenPaymentLink(db, business.id, path.open_payment_link_id, writableFields(body)) : undefined;
        if (!record) throw notFound();
        return ok(present(record));
      },
    },
    deleteOpenPaymentLink: {
      async handle({ path, business, db }) {
        const record = isId(path.open_payment_link_id) ? await deleteOpenPaymentLink(db, business.id, path.open_payment_link_id) : undefined;
        if (!record) throw notFound();
        return ok(present(record));
      },
    },
    listOpenPaymentLinks: {
      async handle({ query, rawQuery, business }) {
        const page = pageRequest(query);
        const filter = query.filter ?? {};
        const result = await listOpenPaymentLinks(
          db,
          business.id,
          { active: filter.status, reference: filter.reference, reference_2: filter.reference_2, createdBetween: createdBetween(filter.created_at_between) },
          page,
        );
        const input = { path: `${publicUrl}/api/open-payment-links`, rawQuery, page: page.page, perPage: page.perPage, total: result.total, count: result.rows.length };
        return ok(paginator(input, result.rows.map(present)));
      },
    },
    getOpenPaymentLinkTotalCollection: {
      async handle({ path, query, business }) {
        const link = await findOr404(business.id, path.open_payment_link_id);
        const filter = query.filter ?? {};
        const range = createdBetween(filter.created_at_between);
        const totals = await collectionTotals(db, link._id, range);
        const recent = filter.limit === undefined ? undefined : await recentCollections(db, link._id, filter.limit, range);
        return ok({
          open_payment_link_id: link._id,
          currency: link.currency,
          total_amount: centsToUnits(totals.total),
          total_count: totals.count,
          from: range?.from ?? null,
          to: range?.to ?? null,
          ...(recent && { collections: recent.map(presentCollection) }),
        });
      },
    },
    getOpenPaymentLinkTopCollection: {
      async handle({ path, query, business }) {
        const link = await findOr404(business.id, path.open_payment_link_id);
        const filter = query.filter ?? {};
        const top = await topCollections(db, link._id, filter.limit ?? DEFAULT_TOP_COLLECTIONS, createdBetween(filter.created_at_between));
        return ok({ open_payment_link_id: link._id, currency: link.currency, collections: top.map(presentCollection) });
      },
    },
  } satisfies Operations;
}
