// Webhook forwarding as `stripe listen --forward-to` does it: each event POSTed once, in the order
// made, as JSON signed with the target's secret in the Stripe-Signature header (the SDK's own
// test-header helper, so constructEvent verifies it). In hold mode events are only recorded until
// delivered by hand; a failed delivery is recorded, not retried.
import Stripe from 'stripe';
import type { Delivery, StripeEventRecord } from './events.js';
import type { Account, ForwardTarget } from './state.js';

const DELIVERY_TIMEOUT_MS = 10_000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The stand-in sends nothing off this machine: a target must be an http(s) URL on loopback. */
export function checkTarget(target: ForwardTarget): ForwardTarget {
  const url = new URL(target.url);
  if (!['http:', 'https:'].includes(url.protocol) || !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new Error(`forward target must be an http(s) URL on 127.0.0.1, localhost or [::1]: ${target.url}`);
  }
  if (!target.secret) throw new Error('forward target needs a webhook signing secret (whsec_...)');
  return target;
}

export class Forwarding {
  /** Events are forwarded one after another, so a receiver sees them in the order they were made. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The CLI's --forward-to: the target of every account that has not been given its own. */
  private readonly defaultTarget: ForwardTarget | null;

  constructor(
    defaultTarget: ForwardTarget | null,
    public hold: boolean,
  ) {
    this.defaultTarget = defaultTarget ? checkTarget(defaultTarget) : null;
  }

  target(account: Account): ForwardTarget | null {
    return account.forward === undefined ? this.defaultTarget : account.forward;
  }

  /** Where the account's events go from now on; null: nowhere. */
  forward(account: Account, target: ForwardTarget | null): void {
    account.forward = target ? checkTarget(target) : null;
  }

  /** Sends a new event to `target` after the events made before it, unless events are held. */
  enqueue(record: StripeEventRecord, target: ForwardTarget): void {
    if (!this.hold) this.queue = this.queue.then(() => this.send(record, target));
  }

  /** Sends an event now (again, or for the first time in hold mode) to its account's target: the receiver's status. */
  async deliver(record: StripeEventRecord, account: Account): Promise<number> {
    const target = this.target(account);
    if (!target) throw new Error(`${account.id} forwards its events nowhere: give it a target first`);
    const delivery = await this.send(record, target);
    if (delivery.status === null) throw new Error(`delivering ${record.event.id} to ${target.url} failed: ${delivery.error ?? 'unknown error'}`);
    return delivery.status;
  }

  /** Resolves once every event queued for forwarding so far has been sent. */
  async idle(): Promise<void> {
    let seen: Promise<unknown>;
    do {
      seen = this.queue;
      await seen;
    } while (seen !== this.queue);
  }

  private async send(record: StripeEventRecord, target: ForwardTarget): Promise<Delivery> {
    const payload = JSON.stringify(record.event, null, 2);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: target.secret });
    let delivery: Delivery;
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'cache-control': 'no-cache',
          'stripe-signature': signature,
        },
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      delivery = { url: target.url, status: response.status, at: Date.now() };
    } catch (error) {
      delivery = { url: target.url, status: null, error: (error as Error).message, at: Date.now() };
    }
    record.deliveries.push(delivery);
    return delivery;
  }
}
