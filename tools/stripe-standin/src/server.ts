// A local stand-in for Stripe's API (the operations in operations.ts), its Checkout hosted pages and
// its webhooks, for tests and newcomers: the official SDK talks to it on 127.0.0.1, every request is
// checked against Stripe's own OpenAPI description (the vendored subset), and what does not match is
// refused as Stripe would and recorded in `violations`, so a test can assert there were none. This
// module assembles it: the API (api-routes.ts), the hosted pages (hosted-page-routes.ts), the control
// panel (control-routes.ts) and webhook forwarding (forwarding.ts) share one StandinCore.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import type Stripe from 'stripe';
import { apiRoutes, unrecognizedRequest } from './api-routes.js';
import { controlRoutes } from './control-routes.js';
import { StandinCore, type RecordedRequest } from './core.js';
import { StripeApiError } from './errors.js';
import type { StripeEventRecord, Violation } from './events.js';
import { hostedPageNotFound, hostedPageRoutes } from './hosted-page-routes.js';
import { sendJson } from './http.js';
import { dayOf } from './settlement.js';
import { DEFAULT_SETTLEMENT, type FeeRule, type ForwardTarget } from './state.js';

export type { FeeRule, ForwardTarget, RecordedRequest, StripeEventRecord, Violation };

export interface StripeStandin {
  /** http://127.0.0.1:<port> */
  url: string;
  /** For `new Stripe(secretKey, standin.sdkOptions)`. */
  sdkOptions: { host: string; port: number; protocol: 'http' };
  /** Where this account's events go (like `stripe listen --forward-to`); null: nowhere. */
  forward(secretKey: string, target: ForwardTarget | null): void;
  /** While on, events are recorded but not sent until deliver() is called for them. */
  holdWebhooks(on: boolean): void;
  /** The account's events, oldest first, with the results of their deliveries. */
  events(secretKey: string): StripeEventRecord[];
  /** Sends an event now (again, or for the first time when held); the receiver's HTTP status. */
  deliver(eventId: string): Promise<number>;
  /** The bank's later answer for a processing PaymentIntent (FPX "confirms later"); resolves once its events are forwarded. */
  settle(paymentIntentId: string, outcome: 'succeeded' | 'failed'): Promise<void>;
  /** Resolves once every event made so far that is to be forwarded has been sent. */
  idle(): Promise<void>;
  /** The account's acct_ id, which the control routes name it by. */
  accountId(secretKey: string): string;
  /**
   * The account's automatic payout as of a day (YYYY-MM-DD, UTC): what is available by its end and not
   * yet paid out, one payout per currency, paid at once unless `hold` leaves it in transit. Moves the
   * account's balance clock to that day's end. Resolves once its events are forwarded.
   */
  runPayouts(secretKey: string, asOf: string, options?: { hold?: boolean }): Promise<Stripe.Payout[]>;
  /** A payout held in transit reaches the bank. */
  payPayout(payoutId: string): Promise<Stripe.Payout>;
  /** The bank returns a payout, in transit or already paid (`could_not_process` unless another of Stripe's codes is given). */
  failPayout(payoutId: string, failureCode?: string): Promise<Stripe.Payout>;
  requests: RecordedRequest[];
  violations: Violation[];
  close(): Promise<void>;
}

export interface StripeStandinOptions {
  /** 0 (the default): a free port. */
  port?: number;
  /** The forward target of every account not given its own (the CLI's --forward-to and --webhook-secret). */
  forwardTo?: ForwardTarget;
  hold?: boolean;
  /** Stripe's fee per payment method type (over the defaults, card 3% + RM1.00, FPX 2.5%, GrabPay 3.3%), and the days a payment's funds stay pending (2). */
  settlement?: { fees?: Record<string, FeeRule>; availableAfterDays?: number };
}

export async function startStripeStandin(options: StripeStandinOptions = {}): Promise<StripeStandin> {
  const core = new StandinCore({
    ...options,
    settlement: {
      fees: { ...DEFAULT_SETTLEMENT.fees, ...options.settlement?.fees },
      availableAfterDays: options.settlement?.availableAfterDays ?? DEFAULT_SETTLEMENT.availableAfterDays,
    },
  });
  const router = new Router();
  apiRoutes(router, core);
  hostedPageRoutes(router, core);
  controlRoutes(router, core);

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof StripeApiError) return sendJson(ctx, error.status, { error: error.body });
      console.error('stripe stand-in:', error);
      sendJson(ctx, 500, { error: { type: 'api_error', message: `The Stripe stand-in failed: ${(error as Error).message}` } });
    }
  });
  app.use(bodyParser({ enableTypes: ['form'], formLimit: '1mb', onError: (_error, ctx) => ctx.throw(400, 'malformed form body') }));
  app.use(router.routes());
  app.use(hostedPageNotFound);
  app.use(unrecognizedRequest(core));

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port ?? 0, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  core.baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: core.baseUrl,
    sdkOptions: { host: '127.0.0.1', port, protocol: 'http' },
    forward(secretKey, target) {
      core.forwarding.forward(core.accounts.forKey(secretKey), target);
    },
    holdWebhooks(on) {
      core.forwarding.hold = on;
    },
    events(secretKey) {
      core.catchUp();
      return core.events.of(core.accounts.forKey(secretKey));
    },
    deliver: (eventId) => core.deliver(eventId),
    settle: (paymentIntentId, outcome) => core.settle(paymentIntentId, outcome),
    async idle() {
      core.catchUp();
      await core.forwarding.idle();
    },
    accountId: (secretKey) => core.accounts.forKey(secretKey).id,
    runPayouts: (secretKey, asOf, runOptions = {}) => core.runPayouts(core.accounts.forKey(secretKey), { asOf: dayOf(asOf), hold: runOptions.hold ?? false }),
    payPayout: (payoutId) => core.finishPayout(payoutId, { paid: true }),
    failPayout: (payoutId, failureCode = 'could_not_process') => core.finishPayout(payoutId, { failed: failureCode }),
    requests: core.requests,
    violations: core.violations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
