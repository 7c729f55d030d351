// /payment/return?payment_id=...&signature=...: where an acquirer's page (Stripe Checkout) sends the
// payer back. The page never assumes success: it asks the acquirer how the payment stands, settles
// it, and says so: paid (on to the merchant's redirect_url or our thank-you page, as after a card
// payment here), still being confirmed by the bank, failed (with a way to try again), or taken after
// the link could no longer be paid (refunded in full).
import type Koa from 'koa';
import { formatUnits } from '../domain/money.js';
import { PAYMENT_FAILED, PAYMENT_PAID } from '../domain/statuses.js';
import { isId } from '../domain/ids.js';
import { paymentOnReturn } from '../usecases/hosted-checkout.js';
import { openPaymentLinkForPayer, paymentLinkForPayer } from '../usecases/payer.js';
import { LINK_UNAVAILABLE } from '../usecases/settlement.js';
import type { PageDeps } from './deps.js';
import { setPageSecurityHeaders } from './headers.js';
import { html, page, type Html } from '../html.js';
import { messagePage } from './messages.js';
import { notFound, redirectAfterPayment, refuse } from './pay.js';
import { verifyReturn } from './signing.js';

function show(ctx: Koa.Context, status: number, title: string, body: Html): void {
  setPageSecurityHeaders(ctx);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(title, body);
}

export function returnPage(deps: PageDeps): Koa.Middleware {
  return async (ctx) => {
    const paymentId = String(ctx.query.payment_id ?? '');
    if (!isId(paymentId) || !verifyReturn(deps.pageKeys.thankYou, 'payment', paymentId, ctx.query.signature)) return refuse(ctx, notFound);
    const payment = await paymentOnReturn(deps, paymentId);
    if (!payment) return refuse(ctx, notFound);
    const linkId = payment.payment_link_id ?? payment.open_payment_link_id;
    if (!linkId) return refuse(ctx, notFound);
    const link = payment.payment_link_id ? await paymentLinkForPayer(deps, linkId) : await openPaymentLinkForPayer(deps, linkId);
    const payPath = payment.payment_link_id ? `/payment/pay?id=${linkId}` : `/payment/open-link/pay?id=${linkId}`;
    const amount = `${payment.currency} ${formatUnits(payment.amount)}`;

    if (payment.status_id === PAYMENT_PAID && payment.failure_code === LINK_UNAVAILABLE.code) {
      return show(
        ctx,
        409,
        'Payment refunded',
        messagePage(
          'Payment refunded',
          `This link could no longer be paid by the time your payment went through (it was paid by someone else, paused, expired or closed). Your payment of ${amount} is refunded in full.`,
        ),
      );
    }
    if (payment.status_id === PAYMENT_PAID) return redirectAfterPayment(ctx, deps, linkId, link?.redirect_url ?? null, payment);
    if (payment.status_id === PAYMENT_FAILED) {
      return show(
        ctx,
        402,
        'Payment not completed',
        html`<h1>Payment not completed</h1>
<p class="muted">The payment of ${amount} did not go through, and you have not been charged.</p>
<p><a href="${payPath}">Try again</a></p>`,
      );
    }
    // Pending: the bank has not confirmed yet (online banking can take a while). A merchant page
    // hears payment_status 2, as the seed's redirect carries it; otherwise this page looks again.
    if (link?.redirect_url) return redirectAfterPayment(ctx, deps, linkId, link.redirect_url, payment);
    ctx.set('Refresh', '5');
    return show(
      ctx,
      200,
      'Payment being confirmed',
      html`<h1>Payment being confirmed</h1>
<p class="muted" role="status">Your payment of ${amount} is being confirmed by your bank. This page checks again every few seconds; you will get a receipt by e-mail once it is confirmed.</p>
<p class="muted">Reference ${payment._id}.</p>`,
    );
  };
}
