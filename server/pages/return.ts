// /payment/return?payment_id=...&signature=...: where an acquirer's page (Stripe Checkout) sends the
// payer back. The page never assumes success: its use case (usecases/payer-checkout.ts) asks the
// acquirer how the payment stands and settles it, and the page says so: paid (on to the merchant's
// redirect_url or our thank-you page, as after a card payment here), still being confirmed by the
// bank, failed (with a way to try again), or taken after the link could no longer be paid (refunded
// in full).
import type Koa from 'koa';
import { formatUnits } from '../domain/money.js';
import { payPath } from '../domain/payer-urls.js';
import { returnFromAcquirer } from '../usecases/payer-checkout.js';
import type { PageDeps } from './deps.js';
import { setPageSecurityHeaders } from './headers.js';
import { html, page, type Html } from '../html.js';
import { messagePage } from './messages.js';
import { redirectAfterPayment, refuse } from './pay.js';
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
    if (!verifyReturn(deps.pageKeys.thankYou, 'payment', paymentId, ctx.query.signature)) return refuse(ctx, 'not_found');
    const returned = await returnFromAcquirer(deps, paymentId);
    if (returned.result === 'not_found') return refuse(ctx, 'not_found');
    const { payment, link } = returned;
    const amount = `${payment.currency} ${formatUnits(payment.amount)}`;

    switch (returned.result) {
      case 'refunded':
        return show(
          ctx,
          409,
          'Payment refunded',
          messagePage(
            'Payment refunded',
            `This link could no longer be paid by the time your payment went through (it was paid by someone else, paused, expired or closed). Your payment of ${amount} is refunded in full.`,
          ),
        );
      case 'paid':
        return redirectAfterPayment(ctx, deps, link.id, link.redirectUrl, payment);
      case 'failed':
        return show(
          ctx,
          402,
          'Payment not completed',
          html`<h1>Payment not completed</h1>
<p class="muted">The payment of ${amount} did not go through, and you have not been charged.</p>
<p><a href="${payPath(link.kind, link.id)}">Try again</a></p>`,
        );
      case 'pending':
        // The bank has not confirmed yet (online banking can take a while). A merchant page hears
        // payment_status 2, as the seed's redirect carries it; otherwise this page looks again.
        if (link.redirectUrl) return redirectAfterPayment(ctx, deps, link.id, link.redirectUrl, payment);
        ctx.set('Refresh', '5');
        return show(
          ctx,
          200,
          'Payment being confirmed',
          html`<h1>Payment being confirmed</h1>
<p class="muted" role="status">Your payment of ${amount} is being confirmed by your bank. This page checks again every few seconds; you will get a receipt by e-mail once it is confirmed.</p>
<p class="muted">Reference ${payment._id}.</p>`,
        );
    }
  };
}
