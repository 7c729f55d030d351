// What the API, the hosted pages, the controls and the handle a test holds share: Stripe's
// description, the accounts, the events and where they go, what was asked and what was refused, and
// the stand-in's clock (steps Stripe takes moments after answering, sessions whose time ran out),
// caught up before anything is read or done (funds whose day has come included), and the payouts a
// control runs.
import { NO_REQUEST, EventLog, type EventRequest, type Violation } from './events.js';
import { Forwarding } from './forwarding.js';
import type Stripe from 'stripe';
import { expireSession, settle, type Context } from './payments.js';
import { failPayout, payPayout, releaseAvailable, runPayouts, type PayoutRun } from './settlement.js';
import { StripeSpec } from './spec.js';
import { Accounts, now, type Account, type ForwardTarget, type SettlementSettings } from './state.js';

export interface RecordedRequest {
  method: string;
  path: string;
  secretKey: string;
  params: unknown;
  idempotencyKey?: string;
}

export class StandinCore {
  readonly spec = StripeSpec.load();
  readonly violations: Violation[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly accounts: Accounts;
  readonly events: EventLog;
  readonly forwarding: Forwarding;
  /** http://127.0.0.1:<port>, once listening. */
  baseUrl = '';
  private readonly deferred: (() => void)[] = [];

  constructor(options: { forwardTo?: ForwardTarget; hold?: boolean; settlement?: SettlementSettings }) {
    this.accounts = new Accounts(options.settlement);
    this.events = new EventLog(this.spec, this.violations);
    this.forwarding = new Forwarding(options.forwardTo ?? null, options.hold ?? false);
  }

  /** One action on one account: its events are made, and forwarded unless held. */
  context(account: Account, request: EventRequest): Context {
    return {
      account,
      request,
      emit: (type, object, previous) => {
        const target = this.forwarding.target(account);
        const record = this.events.make(account, type, object, request, previous, target ? 1 : 0);
        if (target) this.forwarding.enqueue(record, target);
      },
      later: (step) => {
        this.deferred.push(() => step(this.context(account, NO_REQUEST)));
        setImmediate(() => this.runDeferred());
      },
    };
  }

  /** What Stripe would have done by now: deferred steps, and sessions whose expires_at has passed. */
  catchUp(): void {
    this.runDeferred();
    for (const account of this.accounts.all()) {
      for (const session of account.all('checkout.session')) {
        if (session.status === 'open' && session.expires_at <= now()) expireSession(this.context(account, NO_REQUEST), session);
      }
      // Funds whose day came in real time: no balance.available event for those (a payout run's day announces its own).
      releaseAvailable(account);
    }
  }

  /** The hosted page of a Checkout Session. */
  pageUrl(sessionId: string): string {
    return `${this.baseUrl}/c/pay/${sessionId}`;
  }

  /** The bank's later answer for a processing PaymentIntent; resolves once its events are forwarded. */
  async settle(paymentIntentId: string, outcome: 'succeeded' | 'failed'): Promise<void> {
    this.catchUp();
    const account = this.accounts.holding(paymentIntentId);
    const intent = account?.get('payment_intent', paymentIntentId);
    if (!account || !intent) throw new Error(`no PaymentIntent ${paymentIntentId}`);
    settle(this.context(account, NO_REQUEST), intent, outcome);
    await this.forwarding.idle();
  }

  /** An automatic payout of the account as of a day (settlement.ts); resolves once its events are forwarded. */
  async runPayouts(account: Account, run: PayoutRun): Promise<Stripe.Payout[]> {
    this.catchUp();
    const payouts = runPayouts(this.context(account, NO_REQUEST), run);
    await this.forwarding.idle();
    return payouts;
  }

  /** A payout on its way reaches the bank (paid), or the bank returns it (failed), now or after it was paid. */
  async finishPayout(payoutId: string, outcome: { paid: true } | { failed: string }): Promise<Stripe.Payout> {
    this.catchUp();
    const account = this.accounts.holding(payoutId);
    const payout = account?.get('payout', payoutId);
    if (!account || !payout) throw new Error(`no payout ${payoutId}`);
    const ctx = this.context(account, NO_REQUEST);
    if ('paid' in outcome) payPayout(ctx, payout);
    else failPayout(ctx, payout, outcome.failed);
    await this.forwarding.idle();
    return payout;
  }

  /** Sends an event now (again, or for the first time when held): the receiver's HTTP status. */
  async deliver(eventId: string): Promise<number> {
    const found = this.events.find(eventId);
    if (!found) throw new Error(`no event ${eventId}`);
    return this.forwarding.deliver(found.record, found.account);
  }

  private runDeferred(): void {
    while (this.deferred.length > 0) this.deferred.shift()!();
  }
}
