// The control panel under /_standin/, for a person at a browser and for scripts: what each account
// holds and what its events became (a page, and JSON), what was asked and refused, and buttons that
// deliver an event, give a bank's later answer, run an account's automatic payout as of a day and
// pay or fail a payout.
import type Router from '@koa/router';
import type Koa from 'koa';
import type { StandinCore } from './core.js';
import { formOf, sendHtml, sendJson } from './http.js';
import { controlPage } from './pages.js';
import { dayOf } from './settlement.js';

/** A control answers JSON to scripts and sends a browser back to the control page. */
function controlAnswer(ctx: Koa.Context, status: number, body: unknown): void {
  if (status < 400 && ctx.accepts('json', 'html') === 'html') {
    ctx.status = 303;
    ctx.redirect('/_standin/');
    return;
  }
  sendJson(ctx, status, body);
}

export function controlRoutes(router: Router, core: StandinCore): void {
  const { accounts, events, forwarding, requests, violations } = core;
  router.get('/_standin/', (ctx) => {
    core.catchUp();
    sendHtml(
      ctx,
      200,
      controlPage(accounts.all(), (account) => events.of(account), {
        hold: forwarding.hold,
        target: (account) => forwarding.target(account)?.url ?? 'nowhere',
      }),
    );
  });
  router.get('/_standin/events', (ctx) => {
    core.catchUp();
    const account = typeof ctx.query.account === 'string' ? ctx.query.account : undefined;
    sendJson(ctx, 200, { data: events.all().filter((record) => !account || record.account === account) });
  });
  router.get('/_standin/violations', (ctx) => sendJson(ctx, 200, { data: violations }));
  router.get('/_standin/requests', (ctx) =>
    sendJson(ctx, 200, { data: requests.map(({ secretKey, ...request }) => ({ ...request, account: accounts.forKey(secretKey).id })) }),
  );
  router.post('/_standin/events/:event/deliver', async (ctx) => {
    try {
      controlAnswer(ctx, 200, { status: await core.deliver(ctx.params.event!) });
    } catch (error) {
      controlAnswer(ctx, 400, { error: (error as Error).message });
    }
  });
  router.post('/_standin/payment_intents/:intent/settle', async (ctx) => {
    core.catchUp();
    const outcome = formOf(ctx).outcome ?? ctx.query.outcome;
    try {
      if (outcome !== 'succeeded' && outcome !== 'failed') throw new Error('outcome must be succeeded or failed');
      await core.settle(ctx.params.intent!, outcome);
      controlAnswer(ctx, 200, { settled: ctx.params.intent, outcome });
    } catch (error) {
      controlAnswer(ctx, 400, { error: (error as Error).message });
    }
  });
  // A control's fields come as a form (the page's buttons) or in the query (scripts, curl).
  const field = (ctx: Koa.Context, name: string): string | undefined => {
    const value = formOf(ctx)[name] ?? ctx.query[name];
    return typeof value === 'string' ? value : undefined;
  };
  router.post('/_standin/accounts/:account/payouts', async (ctx) => {
    try {
      const account = accounts.byId(ctx.params.account!);
      if (!account) throw new Error(`no account ${ctx.params.account}`);
      const asOf = dayOf(field(ctx, 'as_of') ?? '');
      const hold = field(ctx, 'hold') === 'true';
      controlAnswer(ctx, 200, { payouts: await core.runPayouts(account, { asOf, hold }) });
    } catch (error) {
      controlAnswer(ctx, 400, { error: (error as Error).message });
    }
  });
  for (const action of ['pay', 'fail'] as const) {
    router.post(`/_standin/payouts/:payout/${action}`, async (ctx) => {
      try {
        const outcome = action === 'pay' ? { paid: true as const } : { failed: field(ctx, 'failure_code') ?? 'could_not_process' };
        controlAnswer(ctx, 200, { payout: await core.finishPayout(ctx.params.payout!, outcome) });
      } catch (error) {
        controlAnswer(ctx, 400, { error: (error as Error).message });
      }
    });
  }
}
