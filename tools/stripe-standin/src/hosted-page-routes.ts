// Checkout's hosted page at /c/pay/<session id>, as a payer's browser meets it: the page of an open
// session, its form posted (paid or saved: 303 to success_url; refused: the page again, saying why),
// and a session that is closed, expired or unknown.
import type Router from '@koa/router';
import type Koa from 'koa';
import { knownEmail, submitPayment, submitSetup, type PayerForm } from './checkout.js';
import type { StandinCore } from './core.js';
import { NO_REQUEST } from './events.js';
import { formOf, sendHtml } from './http.js';
import { checkoutPage, closedPage, notFoundPage } from './pages.js';

export function hostedPageRoutes(router: Router, core: StandinCore): void {
  router.get('/c/pay/:session', (ctx) => {
    core.catchUp();
    const found = core.accounts.holding(ctx.params.session!);
    const session = found?.get('checkout.session', ctx.params.session!);
    if (!found || !session) return sendHtml(ctx, 404, notFoundPage());
    if (session.status !== 'open') return sendHtml(ctx, session.status === 'expired' ? 410 : 200, closedPage(session));
    sendHtml(ctx, 200, checkoutPage(session, found.sessionExtras.get(session.id)!.lines, knownEmail(found, session)));
  });

  router.post('/c/pay/:session', (ctx) => {
    core.catchUp();
    const found = core.accounts.holding(ctx.params.session!);
    const session = found?.get('checkout.session', ctx.params.session!);
    if (!found || !session) return sendHtml(ctx, 404, notFoundPage());
    if (session.status !== 'open') return sendHtml(ctx, session.status === 'expired' ? 410 : 200, closedPage(session));
    const form = formOf(ctx) as PayerForm;
    const act = core.context(found, NO_REQUEST);
    const submission = session.mode === 'setup' ? submitSetup(act, session, form) : submitPayment(act, session, form);
    if (submission.done) {
      ctx.status = 303;
      ctx.redirect(submission.redirect);
      return;
    }
    sendHtml(ctx, submission.status, checkoutPage(session, found.sessionExtras.get(session.id)!.lines, knownEmail(found, session), submission));
  });
}

/** Any other page under /c/: the hosted pages' 404; the rest goes on to the API's. */
export const hostedPageNotFound: Koa.Middleware = async (ctx, next) => {
  if (ctx.path.startsWith('/c/')) return sendHtml(ctx, 404, notFoundPage());
  await next();
};
