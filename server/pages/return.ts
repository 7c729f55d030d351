// /payment/return?payment_id=...&signature=...: where an acquirer's page (Stripe Checkout) sends the
// payer back. The page never assumes success: its use case (usecases/payer/acquirer-return.ts) asks the
// acquirer how the payment stands and settles it, and the page says so: paid (on to the merchant's
// redirect_url or our thank-you page, as after a card payment here), still being confirmed by the
// bank, failed (with a way to try again), or taken after the link could no longer be paid (refunded
// in full).
import type Koa from 'koa';
import { formatMoney } from '../domain/money.js';
import { payPath } from '../domain/payer-urls.js';
import { returnFromAcquirer } from '../usecases/payer/acquirer-return.js';
import { merchantForPayer } from '../usecases/merchant/business-profile.js';
import type { PageDeps } from './deps.js';
import { html } from '../html.js';
import { payerTranslator, renderPayerPage, titled } from './frame.js';
import { messagePage } from './message-page.js';
import { redirectAfterPayment, refuse } from './pay.js';
import { verifyReturn } from './signing.js';

export function returnPage(deps: PageDeps): Koa.Middleware {
  return async (koa) => {
    const paymentId = String(koa.query.payment_id ?? '');
    if (!verifyReturn(deps.pageKeys.thankYou, 'payment', paymentId, koa.query.signature)) return refuse(koa, 'not_found');
    const returned = await returnFromAcquirer(deps, paymentId);
    if (returned.result === 'not_found') return refuse(koa, 'not_found');
    const { payment, link } = returned;
    const merchant = await merchantForPayer(deps, payment.business_id);
    const tr = payerTranslator(koa, link.locale, merchant);
    const amount = formatMoney(payment.currency, payment.amount);
    const show = (status: number, heading: string, body: ReturnType<typeof html>) =>
      renderPayerPage(koa, { status, title: titled(heading, merchant), body, tr, merchant });

    switch (returned.result) {
      case 'refunded': {
        const heading = tr.t('return.refunded.heading');
        return show(409, heading, messagePage(heading, tr.t('return.refunded.message', { amount })));
      }
      case 'paid':
        return redirectAfterPayment(koa, deps, link.id, link.redirectUrl, payment);
      case 'failed': {
        const heading = tr.t('return.failed.heading');
        return show(
          402,
          heading,
          html`<h1>${heading}</h1>
<p class="muted">${tr.t('return.failed.message', { amount })}</p>
<p><a href="${payPath(link.kind, link.id)}">${tr.t('return.try_again')}</a></p>`,
        );
      }
      case 'pending': {
        // The bank has not confirmed yet (online banking can take a while). A merchant page hears
        // payment_status 2, as the seed's redirect carries it; otherwise this page looks again.
        if (link.redirectUrl) return redirectAfterPayment(koa, deps, link.id, link.redirectUrl, payment);
        koa.set('Refresh', '5');
        const heading = tr.t('return.pending.heading');
        return show(
          200,
          heading,
          html`<h1>${heading}</h1>
<p class="muted" role="status">${tr.t('return.pending.message', { amount })}</p>
${payment.reference ? html`<p class="muted">${tr.t('return.pending.reference', { reference: payment.reference })}</p>` : ''}`,
        );
      }
    }
  };
}
