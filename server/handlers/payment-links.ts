import type { components } from '../../generated/openapi.js';
import { isId } from '../domain/ids.js';
import { parseCents } from '../domain/money.js';
import { amountStringRule } from '../domain/rules.js';
import { ok } from '../http/envelope.js';
import { ConflictError, NotFoundError } from '../http/errors.js';
import type { Operations } from '../http/operations.js';
import { paginator } from '../http/paginator.js';
import {
  deletePaymentLink,
  findPaymentLink,
  insertPaymentLink,
  listPaymentLinks,
  updatePaymentLink,
  type ChangeResult,
  type PaymentLinkFields,
  type PaymentLinkRecord,
} from '../store/payment-links.js';
import { notifyPaymentRequest } from '../outbox/notify.js';
import type { Executor } from '../store/db.js';
import type { HandlerDeps } from './deps.js';
import { createdBetween, pageRequest } from './listing.js';

type PaymentLink = components['schemas']['PaymentLink'];
type PaymentLinkWrite = components['schemas']['PaymentLinkWrite'];

export function paymentUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/payment/pay?id=${id}`;
}

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
  };
}

const notFound = () => new NotFoundError('Payment link not found.');

function changed(result: ChangeResult): PaymentLinkRecord {
  if (result.outcome === 'paid') throw new ConflictError('The payment link has already been paid.');
  if (result.outcome === 'missing') throw notFound();
  return result.record;
}

export function paymentLinkOperations({ db, publicUrl, outbox }: HandlerDeps) {
  const present = (record: PaymentLinkRecord): PaymentLink => ({
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
    payment_url: paymentUrl(publicUrl, record._id),
    created_at: record.created_at,
    updated_at: record.updated_at,
  });

  /** Writes the link and, with send_email: true, its e-mail in one transaction, then wakes the outbox. */
  const withEmail = async (db: Executor, sendEmail: boolean | undefined, businessId: number, write: (trx: Executor) => Promise<PaymentLinkRecord>) => {
    if (!sendEmail) return write(db);
    const record = await db.transaction(async (trx) => {
      const written = await write(trx);
      await notifyPaymentRequest(trx, businessId, { ...written, payment_url: paymentUrl(publicUrl, written._id) });
      return written;
    });
    outbox.nudge();
    return record;
  };

  return {
    createPaymentLink: {
      rules: [amountStringRule],
      async handle({ body, business, db }) {
        return ok(present(await withEmail(db, body.send_email, business.id, (trx) => insertPaymentLink(trx, business.id, writableFields(body)))));
      },
    },
    getPaymentLink: {
      async handle({ path, business }) {
        const record = isId(path.payment_link_id) ? await findPaymentLink(db, business.id, path.payment_link_id) : undefined;
        if (!record) throw notFound();
        return ok(present(record));
      },
    },
    updatePaymentLink: {
      rules: [amountStringRule],
      async handle({ path, body, business, db }) {
        if (!isId(path.payment_link_id)) throw notFound();
        const id = path.payment_link_id;
        return ok(present(await withEmail(db, body.send_email, business.id, async (trx) => changed(await updatePaymentLink(trx, business.id, id, writableFields(body))))));
      },
    },
    deletePaymentLink: {
      async handle({ path, business, db }) {
        if (!isId(path.payment_link_id)) throw notFound();
        return ok(present(changed(await deletePaymentLink(db, business.id, path.payment_link_id))));
      },
    },
    listPaymentLinks: {
      async handle({ query, rawQuery, business }) {
        const page = pageRequest(query);
        const filter = query.filter ?? {};
        const result = await listPaymentLinks(
          db,
          business.id,
          { status: filter.status, reference: filter.reference, reference_2: filter.reference_2, email: filter.email, createdBetween: createdBetween(filter.created_at_between) },
          page,
        );
        const input = { path: `${publicUrl}/api/payment-links`, rawQuery, page: page.page, perPage: page.perPage, total: result.total, count: result.rows.length };
        return ok(paginator(input, result.rows.map(present)));
      },
    },
  } satisfies Operations;
}
