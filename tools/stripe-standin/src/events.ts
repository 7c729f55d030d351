// Events as Stripe makes them: each checked against Stripe's description as it is made and kept per
// account, in the order made, with what became of its deliveries (forwarding.ts sends them).
import Stripe from 'stripe';
import type { StripeSpec } from './spec.js';
import { newId, now, type Account, type EventObject } from './state.js';

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
  data: { object: EventObject; previous_attributes?: Record<string, unknown> };
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

export class EventLog {
  private readonly records = new Map<string, StripeEventRecord[]>();
  private readonly byId = new Map<string, { record: StripeEventRecord; account: Account }>();

  constructor(
    private readonly spec: StripeSpec,
    private readonly violations: Violation[],
  ) {}

  /** Makes and keeps an event of the account's API version; `pendingWebhooks` is 1 when it is to be forwarded. */
  make(
    account: Account,
    type: string,
    object: EventObject,
    request: EventRequest,
    previous: Record<string, unknown> | undefined,
    pendingWebhooks: number,
  ): StripeEventRecord {
    const event: StandinEvent = {
      id: newId('evt_'),
      object: 'event',
      api_version: account.apiVersion ?? Stripe.API_VERSION,
      created: now(),
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: pendingWebhooks,
      request,
      type,
    };
    const problems = this.spec.checkEvent(event);
    if (problems.length > 0) this.violations.push({ method: 'EVENT', path: type, problems });
    const record: StripeEventRecord = { event, account: account.id, deliveries: [] };
    this.records.set(account.id, [...(this.records.get(account.id) ?? []), record]);
    this.byId.set(event.id, { record, account });
    return record;
  }

  of(account: Account): StripeEventRecord[] {
    return this.records.get(account.id) ?? [];
  }

  all(): StripeEventRecord[] {
    return [...this.byId.values()].map(({ record }) => record);
  }

  find(eventId: string): { record: StripeEventRecord; account: Account } | undefined {
    return this.byId.get(eventId);
  }
}
