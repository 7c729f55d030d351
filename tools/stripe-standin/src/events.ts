// Events as Stripe makes them, and their forwarding to a receiver as `stripe listen --forward-to`
// does: each event POSTed once, in the order made, as JSON signed with the target's secret in the
// Stripe-Signature header (the SDK's own test-header helper, so constructEvent verifies it). In hold
// mode events are only recorded until delivered by hand.
import Stripe from 'stripe';
import type { StripeSpec } from './spec.js';
import { newId, now, type Account, type ForwardTarget, type StripeObject } from './state.js';

/** The API request behind an event; both null for what a payer did on a hosted page or what happened later. */
export interface EventRequest {
  id: string | null;
  idempotency_key: string | null;
}

export const NO_REQUEST: EventRequest = { id: null, idempotency_key: null };

export interface StandinEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: StripeObject; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: EventRequest;
  type: string;
}

export interface Delivery {
  url: string;
  /** The receiver's HTTP status; null if it could not be reached (see error). */
  status: number | null;
  error?: string;
  /** Unix milliseconds. */
  at: number;
}

export interface StripeEventRecord {
  event: StandinEvent;
  /** The account's acct_ id. */
  account: string;
  deliveries: Delivery[];
}

export interface Violation {
  method: string;
  path: string;
  problems: string[];
}

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

export class Webhooks {
  /** Events are forwarded one after another, so a receiver sees them in the order they were made. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly records = new Map<string, StripeEventRecord[]>();
  private readonly byId = new Map<string, { record: StripeEventRecord; account: Account }>();

  constructor(
    private readonly spec: StripeSpec,
    private readonly violations: Violation[],
    /** The CLI's --forward-to: the target of every account that has not been given its own. */
    public defaultTarget: ForwardTarget | null,
    public hold: boolean,
  ) {}

  target(account: Account): ForwardTarget | null {
    return account.forward === undefined ? this.defaultTarget : account.forward;
  }

  emit(account: Account, type: string, object: StripeObject, request: EventRequest, previous?: Record<string, unknown>): StandinEvent {
    const target = this.target(account);
    const event: StandinEvent = {
      id: newId('evt_'),
      object: 'event',
      api_version: account.apiVersion ?? Stripe.API_VERSION,
      created: now(),
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: target ? 1 : 0,
      request,
      type,
    };
    const problems = this.spec.checkEvent(event);
    if (problems.length > 0) this.violations.push({ method: 'EVENT', path: type, problems });
    const record: StripeEventRecord = { event, account: account.id, deliveries: [] };
    this.records.set(account.id, [...(this.records.get(account.id) ?? []), record]);
    this.byId.set(event.id, { record, account });
    if (target && !this.hold) this.queue = this.queue.then(() => this.send(record, target));
    return event;
  }

  events(account: Account): StripeEventRecord[] {
    return this.records.get(account.id) ?? [];
  }

  all(): StripeEventRecord[] {
    return [...this.byId.values()].map(({ record }) => record);
  }

  /** Sends an event now (again, or for the first time in hold mode) to its account's target: the receiver's status. */
  async deliver(eventId: string): Promise<number> {
    const found = this.byId.get(eventId);
    if (!found) throw new Error(`no event ${eventId}`);
    const target = this.target(found.account);
    if (!target) throw new Error(`${found.account.id} forwards its events nowhere: give it a target first`);
    const delivery = await this.send(found.record, target);
    if (delivery.status === null) throw new Error(`delivering ${eventId} to ${target.url} failed: ${delivery.error ?? 'unknown error'}`);
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
