// Where a payer lands after paying when the merchant gave no redirect_url. The query carries
// payment_id, payment_link_id, payment_status and a signature over the three, made by the redirect
// after the payment: the page shows the payment only when the signature holds and the ids match a
// recorded payment. Ids alone, guessed or seen, show nothing but a generic thank-you.
import type Koa from 'koa';
import { formatUnits } from '../domain/money.js';
import { showThankYou } from '../usecases/payer-checkout.js';
import type { PageDeps } from './deps.js';
import { setPageSecurityHeaders } from './headers.js';
import { html, page } from '../html.js';
import { verifyThankYou } from './signing.js';

export function thankYouPage(deps: PageDeps): Koa.Middleware {
  return async (ctx) => {
    const params = {
      payment_id: String(ctx.query.payment_id ?? ''),
      payment_link_id: String(ctx.query.payment_link_id ?? ''),
      payment_status: String(ctx.query.payment_status ?? ''),
    };
    const signed = verifyThankYou(deps.pageKeys.thankYou, params, ctx.query.signature);
    const payment = signed ? await showThankYou(deps, params.payment_id, params.payment_link_id) : undefined;
    const body = payment
      ? html`<h1>Thank you</h1>
<p class="success" role="status">Payment received: <strong>${payment.currency} ${formatUnits(payment.amount)}</strong>${payment.card_last4 ? ` by ${String(payment.card_brand).toUpperCase()} ending in ${payment.card_last4}` : ''}.</p>
<p class="muted">Reference ${payment._id}. You can close this page.</p>`
      : html`<h1>Thank you</h1><p class="muted">You can close this page.</p>`;
    setPageSecurityHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page('Thank you', body);
  };
}
