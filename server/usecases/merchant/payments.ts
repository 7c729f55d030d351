// Looking payments up: the record behind a payment_id, the business's payments page by page, and most of
// this file, the CSV export of every matching payment: one export at a time per business under a lease,
// read a batch at a time, handing the event loop on every few milliseconds.
import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { isId } from '../../domain/ids.js';
import { PAYMENT_PAID } from '../../domain/statuses.js';
import { refundsOfPayments, type RefundRecord } from '../../store/refunds.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import { releaseExportLease, renewExportLease, takeExportLease } from '../../store/export-leases.js';
import { eachPaymentBatch } from '../../store/payment-export.js';
import * as lists from '../../store/payment-lists.js';
import type { PaymentFilters } from '../../store/payment-lists.js';
import { findBusinessPayment, type PaymentRecord } from '../../store/payments.js';
import type { UseCaseContext } from '../platform/context.js';

export type { PaymentFilters, PaymentRecord };

export async function getPayment(ctx: UseCaseContext, businessId: number, id: string): Promise<PaymentRecord | undefined> {
  return isId(id) ? findBusinessPayment(ctx.db, businessId, id) : undefined;
}

export async function listPayments(ctx: UseCaseContext, businessId: number, filters: PaymentFilters, page: PageRequest): Promise<Page<PaymentRecord>> {
  return lists.listPayments(ctx.db, businessId, filters, page);
}

export interface ExportedPayment {
  payment: PaymentRecord;
  refunds: RefundRecord[];
}

/** How long an export's lease lasts without renewal: a stopped process or a stalled reader frees the business after it. */
const EXPORT_LEASE_MS = 30_000;
/** Renewed once this much of it has passed, so that most batches write nothing. */
const EXPORT_RENEW_MS = EXPORT_LEASE_MS / 3;
/** Payments read per statement: one batch's read is the longest the export holds the event loop in one go. */
const EXPORT_BATCH = 200;
/** How long an export works before it lets the event loop run everything else that waits. */
const EXPORT_SLICE_MS = 5;
/** What a second export is told to wait (Retry-After). */
export const EXPORT_RETRY_AFTER_SECONDS = 5;

export type ExportStart = { outcome: 'busy'; retryAfterSeconds: number } | { outcome: 'started'; payments: AsyncGenerator<ExportedPayment> };

/**
 * Starts the export of the business's matching payments, unless one of its exports is running
 * already (on any instance): exports are long, and one business running several at once would take
 * the database from every other.
 */
export async function startPaymentsExport(ctx: UseCaseContext, businessId: number, filters: PaymentFilters): Promise<ExportStart> {
  const holder = randomUUID();
  if (!(await takeExportLease(ctx.db, businessId, holder, EXPORT_LEASE_MS))) return { outcome: 'busy', retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS };
  return { outcome: 'started', payments: exportPayments(ctx, businessId, filters, holder) };
}

/**
 * Every matching payment with its refunds, oldest first, a batch at a time (see eachPaymentBatch),
 * each batch its own statements, so nothing is held open while the reader takes its time. Between
 * batches, and within one every few milliseconds, the event loop runs whatever else is waiting, so an
 * export of any length holds it no longer than a batch's read or a slice of its lines. The lease is given back when the export ends, however it ends.
 */
async function* exportPayments(ctx: UseCaseContext, businessId: number, filters: PaymentFilters, holder: string): AsyncGenerator<ExportedPayment> {
  let renewedAt = Date.now();
  let sliceStarted = performance.now();
  try {
    for await (const batch of eachPaymentBatch(ctx.db, businessId, filters, EXPORT_BATCH)) {
      const refunds = await refundsOfPayments(
        ctx.db,
        batch.filter((payment) => payment.status_id === PAYMENT_PAID).map((payment) => payment._id),
      );
      for (const payment of batch) {
        yield { payment, refunds: refunds.get(payment._id) ?? [] };
        // The reader's work on what was yielded (the CSV lines) runs before the generator resumes, in
        // the same turn of the event loop: this measures both, and hands the turn on when it is up.
        if (performance.now() - sliceStarted > EXPORT_SLICE_MS) {
          await setImmediate();
          sliceStarted = performance.now();
        }
      }
      if (Date.now() - renewedAt > EXPORT_RENEW_MS) {
        await renewExportLease(ctx.db, businessId, holder, EXPORT_LEASE_MS);
        renewedAt = Date.now();
      }
      await setImmediate();
      sliceStarted = performance.now();
    }
  } finally {
    await releaseExportLease(ctx.db, businessId, holder);
  }
}
