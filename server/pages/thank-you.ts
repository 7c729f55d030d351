// Where a payer lands after paying when the merchant gave no redirect_url. The query carries
// payment_id, payment_link_id and payment_status; the page shows the payment only when the id and
// the link match a recorded payment, so guessing ids reveals nothing.
import type Koa from 'koa';
import { formatUnits } from '../domain/money.js';
import { PAYMENT_PAID } from '../domain/statuses.js';
import { paymentById } from '../usecases/payer.js';
import type { UseCaseContext as PageDeps } from '../usecases/context.js';
import { setPageSecurityHeaders } from './headers.js';
import { html, page } from '../../shared/html.js';

export function thankYouPage(deps: PageDeps): Koa.Middleware {
  return async (ctx) => {
    const paymentId = String(ctx.query.payment_id ?? '');
    const linkId = String(ctx.query.payment_link_id ?? '');
    const payment = await paymentById(deps, paymentId);
    const matches = payment && (payment.payment_link_id === linkId || payment.open_payment_link_id === linkId);
    const body =
      matches && payment.status_id === PAYMENT_PAID
        ? html`<h1>Thank you</h1>
<p class="success" role="status">Payment received: <strong>${payment.currency} ${formatUnits(payment.amount)}</strong>${payment.card_last4 ? ` by ${String(payment.card_brand).toUpperCase()} ending in ${payment.card_last4}` : ''}.</p>
<p class="muted">Reference ${payment._id}. You can close this page.</p>`
        : html`<h1>Thank you</h1><p class="muted">You can close this page.</p>`;
    setPageSecurityHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page('Thank you', body);
  };
}
