// The daily cap on payer e-mails a business's API calls make the service send (a payment request by
// send_email): the service's own name is on them, and their address and text are the merchant's, so
// without a cap one API key could mail anyone, any amount. Receipts, sent because a payer paid, are
// not counted. The count is taken in the transaction that enqueues the e-mail: refused, nothing of
// the request is written, and the merchant can send it again once the day (UTC) has turned.
import { DEFAULT_PAYER_EMAILS_PER_DAY, countPayerEmail } from '../../store/payer-email-counts.js';
import type { Executor } from '../../store/executor.js';
import type { UseCaseContext } from '../platform/context.js';

/** The business has had the service send its `limit` payer e-mails of the UTC day ending at `resetsAt`. */
export interface PayerEmailLimitReached {
  outcome: 'email_limit';
  limit: number;
  resetsAt: Date;
}

function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Takes one of today's payer e-mails for the business, in `tx`; what says why not when none is left. */
export async function takePayerEmail(ctx: UseCaseContext, tx: Executor, businessId: number, now = new Date()): Promise<PayerEmailLimitReached | undefined> {
  const limit = ctx.payerEmailsPerDay ?? DEFAULT_PAYER_EMAILS_PER_DAY;
  if (await countPayerEmail(tx, businessId, utcDay(now), limit)) return undefined;
  return { outcome: 'email_limit', limit, resetsAt: nextUtcMidnight(now) };
}

/** Thrown inside a transaction to undo what it wrote before the e-mail was refused. */
export class PayerEmailRefused extends Error {
  constructor(readonly reason: PayerEmailLimitReached) {
    super(`payer e-mail limit of ${reason.limit} a day reached`);
  }
}
