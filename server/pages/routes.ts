// The payer side, served outside /api: plain HTML forms that work without JavaScript.
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { activationPage } from './activation.js';
import type { PageDeps } from './deps.js';
import { STYLESHEET } from './html.js';
import { THANK_YOU_PATH, openLinkPage, paymentLinkPage } from './pay.js';
import { thankYouPage } from './thank-you.js';

export function pageRoutes(deps: PageDeps) {
  const router = new Router();
  const form = bodyParser({ enableTypes: ['form'], formLimit: '16kb' });
  const paymentLink = paymentLinkPage(deps);
  const openLink = openLinkPage(deps);
  const activation = activationPage(deps);

  router.get('/assets/pay.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = STYLESHEET;
  });
  router.get('/payment/pay', paymentLink.show);
  router.post('/payment/pay', form, paymentLink.pay);
  router.get('/payment/open-link/pay', openLink.show);
  router.post('/payment/open-link/pay', form, openLink.pay);
  router.get('/tokenization/activation/:token', activation.show);
  router.post('/tokenization/activation/:token', form, activation.save);
  router.get(THANK_YOU_PATH, thankYouPage(deps));
  return router.routes();
}
