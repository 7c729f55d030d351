// Where a payer lands after paying when the merchant gave no redirect_url. The query carries
// payment_id, payment_link_id, payment_status and a signature over the three, made by the redirect
// after the payment: the page shows the payment only when the signature holds and the ids match a
// recorded payment. Ids alone, guessed or seen, show nothing but a generic thank-you.
import type Koa from 'koa';
import { formatMoney } from '../domain/money.js';
import { showThankYou } from '../usecases/payer/acquirer-return.js';
import { merchantForPayer, type Merchant } from '../usecases/merchant/business-profile.js';
import type { Translator } from '../i18n/index.js';
import type { PageDeps } from './deps.js';
import { html } from '../html.js';
import { payerTranslator, renderPayerPage, titled } from './frame.js';
import { verifyThankYou } from './signing.js';

/** "Back to <merchant>": its website (the business profile's `website_url`), when it gave one. */
function backTo(merchant: Merchant | undefined, tr: Translator) {
  return merchant?.websiteUrl ? html`<p><a href="${merchant.websiteUrl}">${tr.t('email.receipt.back', { merchant: merchant.name })}</a></p>` : '';
}

export function thankYouPage(deps: PageDeps): Koa.Middleware {
  return async (koa) => {
    const params = {
      payment_id: String(koa.query.payment_id ?? ''),
      payment_link_id: String(koa.query.payment_link_id ?? ''),
      payment_status: String(koa.query.payment_status ?? ''),
    };
    const signed = verifyThankYou(deps.pageKeys.thankYou, params, koa.query.signature);
    const shown = signed ? await showThankYou(deps, params.payment_id, params.payment_link_id) : undefined;
    const payment = shown?.payment;
    const merchant = payment ? await merchantForPayer(deps, payment.business_id) : undefined;
    const tr = payerTranslator(koa, shown?.locale, merchant);
    const heading = tr.t('thanks.heading');
    // The merchant's reference is what the payer can quote to the merchant; the payment's own id
    // means nothing to either of them.
    const body = payment
      ? html`<h1>${heading}</h1>
<p class="success" role="status">${
          payment.card_last4
            ? tr.t('thanks.received_card', {
                amount: formatMoney(payment.currency, payment.amount),
                brand: String(payment.card_brand).toUpperCase(),
                last4: payment.card_last4,
              })
            : tr.t('thanks.received', { amount: formatMoney(payment.currency, payment.amount) })
        }</p>
${payment.payer_email ? html`<p>${tr.t('thanks.emailed', { email: payment.payer_email })}</p>` : ''}
<p class="muted">${payment.reference ? tr.t('thanks.reference', { reference: payment.reference }) : tr.t('thanks.close')}</p>
${backTo(merchant, tr)}`
      : html`<h1>${heading}</h1><p class="muted">${tr.t('thanks.close')}</p>`;
    renderPayerPage(koa, { status: 200, title: titled(heading, merchant), body, tr, merchant, keepQuery: Boolean(payment) });
  };
}
