// Where a payer lands after paying when the merchant gave no redirect_url. The query carries
// payment_id, payment_link_id, payment_status and a signature over the three, made by the redirect
// after the payment: the page shows the payment only when the signature holds and the ids match a
// recorded payment. Ids alone, guessed or seen, show nothing but a generic thank-you.
import type Koa from 'koa';
import { showThankYou } from '../usecases/payer/acquirer-return.js';
import { merchantForPayer } from '../usecases/merchant/business-profile.js';
import type { PageDeps } from './deps.js';
import { html } from '../html.js';
import { payerTranslator, renderPayerPage, titled } from './frame.js';
import { verifyThankYou } from './signing.js';

export function thankYouPage(deps: PageDeps): Koa.Middleware {
  return async (ctx) => {
    const params = {
      payment_id: String(ctx.query.payment_id ?? ''),
      payment_link_id: String(ctx.query.payment_link_id ?? ''),
      payment_status: String(ctx.query.payment_status ?? ''),
    };
    const signed = verifyThankYou(deps.pageKeys.thankYou, params, ctx.query.signature);
    const shown = signed ? await showThankYou(deps, params.payment_id, params.payment_link_id) : undefined;
    const payment = shown?.payment;
    const merchant = payment ? await merchantForPayer(deps, payment.business_id) : undefined;
    const tr = payerTranslator(ctx, shown?.locale, merchant);
    const heading = tr.t('thanks.heading');
    const body = payment
      ? html`<h1>${heading}</h1>
<p class="success" role="status">${
          payment.card_last4
            ? tr.t('thanks.received_card', {
                amount: tr.money(payment.currency, payment.amount),
                brand: String(payment.card_brand).toUpperCase(),
                last4: payment.card_last4,
              })
            : tr.t('thanks.received', { amount: tr.money(payment.currency, payment.amount) })
        }</p>
<p class="muted">${tr.t('thanks.reference', { reference: payment._id })}</p>`
      : html`<h1>${heading}</h1><p class="muted">${tr.t('thanks.close')}</p>`;
    renderPayerPage(ctx, { status: 200, title: titled(heading, merchant), body, tr, merchant, keepQuery: Boolean(payment) });
  };
}
