// One action on one account, as every surface that changes Stripe's objects takes it (payments.ts,
// settlement.ts): kept apart so that those modules can call each other without a circle.
import type { EventRequest } from './events.js';
import type { Account, EventObject } from './state.js';

/** One action on one account: who asked (for the events' `request`), and how to emit and defer. */
export interface Context {
  account: Account;
  request: EventRequest;
  emit(type: string, object: EventObject, previous?: Record<string, unknown>): void;
  /** Something Stripe does moments after answering (a refund of the 5126 card failing), with no request behind it. */
  later(step: (ctx: Context) => void): void;
}
