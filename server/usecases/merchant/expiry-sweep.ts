// Links whose expires_at has passed are marked expired by a sweep, so lists and filters show it, and
// each is announced once (payment_link.expired) in the transaction that marks it. Payments never
// wait for the sweep: each checks the expiry itself when it is recorded.
import { expireDueOpenPaymentLinks } from '../../store/open-payment-links.js';
import { expireDuePaymentLinks } from '../../store/payment-links.js';
import type { UseCaseContext } from '../platform/context.js';
import { notifyLinkExpired } from '../platform/notify.js';

const BATCH = 100;

/** Marks every link now due as expired, a batch per transaction; answers how many. */
export async function expireDueLinks(ctx: UseCaseContext): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await ctx.db.transaction(async (tx) => {
      const links = await expireDuePaymentLinks(tx, BATCH);
      for (const link of links) await notifyLinkExpired(tx, link.business_id, { ...link, kind: 'payment_link', expires_at: link.expires_at! });
      const open = await expireDueOpenPaymentLinks(tx, BATCH);
      for (const link of open) await notifyLinkExpired(tx, link.business_id, { ...link, kind: 'open_payment_link', expires_at: link.expires_at! });
      return links.length + open.length;
    });
    total += expired;
    if (expired > 0) ctx.outbox.nudge();
    if (expired < BATCH) return total;
  }
}
