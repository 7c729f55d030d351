// What is served outside /api for payers: plain HTML forms that work without JavaScript.
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import { PAYER_ROUTES } from '../domain/payer-urls.js';
import { accountSetupPage } from './account.js';
import { activationPage } from './activation.js';
import { ACCOUNT_SETUP_PATH } from '../domain/sessions.js';
import { brandStylesheetRoute, logoRoute } from './brand.js';
import type { PageDeps } from './deps.js';
import { payerTranslator, renderPayerPage } from './frame.js';
import { tooManyAttempts } from './too-many-attempts.js';
import { STYLESHEET } from '../html.js';
import { messagePage } from './message-page.js';
import { openLinkPage, paymentLinkPage } from './pay.js';
import { posterPage } from './poster.js';
import { returnPage } from './return.js';
import { thankYouPage } from './thank-you.js';

export function pageRoutes(deps: PageDeps) {
  const router = new Router();
  const parseForm = bodyParser({
    enableTypes: ['form'],
    formLimit: '16kb',
    onError(error, koa) {
      koa.state.formError = error;
    },
  });
  // A form over the limit (or unreadable) is the payer's problem to fix, told on a page: thrown, the
  // parser's error was no HttpError and became a JSON 500.
  const form: Koa.Middleware = (koa, next) =>
    parseForm(koa, async () => {
      const error = koa.state.formError as { status?: number } | undefined;
      if (!error) return next();
      const tooLarge = error.status === 413;
      const tr = payerTranslator(koa);
      const heading = tr.t(tooLarge ? 'form_problem.too_large' : 'form_problem.unreadable');
      renderPayerPage(koa, { status: tooLarge ? 413 : 400, title: heading, body: messagePage(heading, tr.t('form_problem.message')), tr });
    });
  // Every post to a payer form counts against its client address, before its body is read.
  const limitByAddress: Koa.Middleware = async (koa, next) => {
    const refused = await deps.pageLimiter.post(koa.ip);
    if (refused !== undefined) return tooManyAttempts(koa, refused);
    return next();
  };
  const paymentLink = paymentLinkPage(deps);
  const openLink = openLinkPage(deps);
  const activation = activationPage(deps);

  router.get('/assets/pay.css', (koa) => {
    koa.type = 'text/css; charset=utf-8';
    koa.set('Cache-Control', 'public, max-age=3600');
    koa.set('X-Content-Type-Options', 'nosniff');
    koa.body = STYLESHEET;
  });
  router.get(PAYER_ROUTES.logo, logoRoute(deps));
  router.get(PAYER_ROUTES.brandStylesheet, brandStylesheetRoute);
  router.get(PAYER_ROUTES.pay, paymentLink.show);
  router.post(PAYER_ROUTES.pay, limitByAddress, form, paymentLink.pay);
  router.get(PAYER_ROUTES.openLinkPay, openLink.show);
  router.post(PAYER_ROUTES.openLinkPay, limitByAddress, form, openLink.pay);
  router.get(PAYER_ROUTES.poster, posterPage(deps));
  router.get(PAYER_ROUTES.activation, activation.show);
  router.post(PAYER_ROUTES.activation, limitByAddress, form, activation.save);
  router.get(PAYER_ROUTES.activationReturn, activation.returned);
  router.get(PAYER_ROUTES.thankYou, thankYouPage(deps));
  router.get(PAYER_ROUTES.return, returnPage(deps));
  const accountSetup = accountSetupPage(deps);
  router.get(ACCOUNT_SETUP_PATH, accountSetup.show);
  router.post(ACCOUNT_SETUP_PATH, limitByAddress, form, accountSetup.save);
  return router.routes() as unknown as Koa.Middleware;
}
