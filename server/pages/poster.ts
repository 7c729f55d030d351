// The printable poster of an open link, for a counter or a collection box: the title, the minimum
// amount, the QR code and the address for whoever cannot scan, on one A4 page. The code is inline
// SVG, so the page needs nothing the pages' CSP does not already allow (no image request, no
// script: printing is the browser's own command). Unknown, deleted and inactive links are refused
// as the pay page refuses them: a poster of a link nobody can pay is of no use.
import type Koa from 'koa';
import { formatMoney } from '../domain/money.js';
import { openPaymentUrl, payPath } from '../domain/payer-urls.js';
import { showPaymentPage } from '../usecases/payer/pay-page.js';
import { Html, html } from '../html.js';
import { qrSvg } from '../qr.js';
import type { PageDeps } from './deps.js';
import { payerTranslator, renderPayerPage } from './frame.js';
import { refuse } from './pay.js';

export function posterPage(deps: PageDeps): Koa.Middleware {
  return async (koa) => {
    const { link, refusal } = await showPaymentPage(deps, 'open_payment_link', String(koa.query.id ?? ''));
    if (!link || refusal) return refuse(koa, refusal ?? 'not_found', link);
    const { target, merchant } = link;
    const tr = payerTranslator(koa, link.locale, merchant);
    const url = openPaymentUrl(deps.publicUrl, target.id);
    // qrcode's SVG holds only path data drawn from the URL, never the link's text: it is markup we made.
    const code = new Html(await qrSvg(url));
    renderPayerPage(koa, {
      status: 200,
      title: `${tr.t('pay.title', { merchant: merchant.name })} – ${target.title}`,
      tr,
      merchant,
      body: html`<div class="poster">
<h1>${target.title}</h1>
<p class="amount">${tr.t('poster.minimum', { minimum: formatMoney(target.currency, link.minimumAmount ?? 0) })}</p>
<div class="qr" role="img" aria-label="${tr.t('poster.qr_label')}">${code}</div>
<p>${tr.t('poster.scan')}</p>
<p class="url">${url}</p>
</div>
<p class="no-print muted">${tr.t('poster.print_note')}</p>
<p class="no-print"><a href="${payPath(target.kind, target.id)}">${tr.t('poster.to_page')}</a></p>`,
    });
  };
}
