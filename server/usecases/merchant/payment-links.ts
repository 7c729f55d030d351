// Payment links: a fixed amount asked of one payer. Creating or updating one with send_email writes
// the link and its e-mail in one transaction, with the e-mail counted against the business's daily
// cap: past it, the whole request is refused and nothing of it is written.
import { isId } from '../../domain/ids.js';
import { paymentUrl } from '../../domain/payer-urls.js';
import type { Executor } from '../../store/executor.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import * as store from '../../store/payment-links.js';
import type { ChangeResult, PauseResult, PaymentLinkFields, PaymentLinkFilters, PaymentLinkRecord } from '../../store/payment-links.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyPaymentRequest } from '../platform/notify.js';
import { PayerEmailRefused, takePayerEmail, type PayerEmailLimitReached } from './payer-email-quota.js';

export type { ChangeResult, PauseResult, PayerEmailLimitReached, PaymentLinkFields, PaymentLinkFilters, PaymentLinkRecord };

async function withEmail(
  ctx: UseCaseContext,
  businessId: number,
  sendEmail: boolean | undefined,
  write: (db: Executor) => Promise<ChangeResult>,
): Promise<ChangeResult | PayerEmailLimitReached> {
  if (!sendEmail) return write(ctx.db);
  let result: ChangeResult;
  try {
    result = await ctx.db.transaction(async (tx) => {
      const written = await write(tx);
      if (written.outcome !== 'changed') return written;
      const refused = await takePayerEmail(ctx, tx, businessId);
      if (refused) throw new PayerEmailRefused(refused);
      await notifyPaymentRequest(tx, businessId, { ...written.record, payment_url: paymentUrl(ctx.publicUrl, written.record._id) });
      return written;
    });
  } catch (error) {
    if (error instanceof PayerEmailRefused) return error.reason;
    throw error;
  }
  if (result.outcome === 'changed') ctx.outbox.nudge();
  return result;
}

export async function createPaymentLink(
  ctx: UseCaseContext,
  businessId: number,
  fields: PaymentLinkFields,
  sendEmail?: boolean,
): Promise<PaymentLinkRecord | PayerEmailLimitReached> {
  const result = await withEmail(ctx, businessId, sendEmail, async (db) => ({
    outcome: 'changed',
    record: await store.insertPaymentLink(db, businessId, fields),
  }));
  if (result.outcome === 'email_limit') return result;
  if (result.outcome !== 'changed') throw new Error('creating a payment link changed nothing');
  return result.record;
}

export async function getPaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<PaymentLinkRecord | undefined> {
  return isId(id) ? store.findPaymentLink(ctx.db, businessId, id) : undefined;
}

/** Replaces an unpaid link's fields: `paid` (409) and `missing` (404) are answers, not errors. */
export async function updatePaymentLink(
  ctx: UseCaseContext,
  businessId: number,
  id: string,
  fields: PaymentLinkFields,
  sendEmail?: boolean,
): Promise<ChangeResult | PayerEmailLimitReached> {
  if (!isId(id)) return { outcome: 'missing' };
  return withEmail(ctx, businessId, sendEmail, (db) => store.updatePaymentLink(db, businessId, id, fields));
}

export async function deletePaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<ChangeResult> {
  if (!isId(id)) return { outcome: 'missing' };
  return store.deletePaymentLink(ctx.db, businessId, id);
}

export async function listPaymentLinks(
  ctx: UseCaseContext,
  businessId: number,
  filters: PaymentLinkFilters,
  page: PageRequest,
): Promise<Page<PaymentLinkRecord>> {
  return store.listPaymentLinks(ctx.db, businessId, filters, page);
}

export async function pausePaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<PauseResult> {
  return isId(id) ? store.pausePaymentLink(ctx.db, businessId, id) : { outcome: 'missing' };
}

export async function resumePaymentLink(ctx: UseCaseContext, businessId: number, id: string): Promise<PauseResult> {
  return isId(id) ? store.resumePaymentLink(ctx.db, businessId, id) : { outcome: 'missing' };
}
