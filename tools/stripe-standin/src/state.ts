// What the stand-in holds: one Account per secret key (a Stripe account in test mode), each with its
// objects by id, its events, its saved idempotent answers, its webhook forwarding target and its
// balance's settings and clock (settlement.ts).
import { createHash, randomInt } from 'node:crypto';
import type Stripe from 'stripe';
import type { TestCard } from './cards.js';

export type StripeObject =
  | Stripe.Customer
  | Stripe.Checkout.Session
  | Stripe.PaymentIntent
  | Stripe.SetupIntent
  | Stripe.PaymentMethod
  | Stripe.Charge
  | Stripe.Refund
  | Stripe.BalanceTransaction
  | Stripe.Payout;

/** What an event may carry: an object of the account, or its balance (`balance.available`). */
export type EventObject = StripeObject | Stripe.Balance;

type ObjectOfKind = {
  customer: Stripe.Customer;
  'checkout.session': Stripe.Checkout.Session;
  payment_intent: Stripe.PaymentIntent;
  setup_intent: Stripe.SetupIntent;
  payment_method: Stripe.PaymentMethod;
  charge: Stripe.Charge;
  refund: Stripe.Refund;
  balance_transaction: Stripe.BalanceTransaction;
  payout: Stripe.Payout;
};
export type ObjectKind = keyof ObjectOfKind;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An id as Stripe makes them: a prefix and random letters and digits (a Checkout Session's is 66 characters long). */
export function newId(prefix: string, length = 24): string {
  let id = prefix;
  for (let i = 0; i < length; i += 1) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

export function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** Stripe's fee on a payment by one payment method type: a percentage of the amount plus a fixed amount (in the currency's smallest unit). */
export interface FeeRule {
  percent: number;
  fixed: number;
}

/** How an account's balance works: the fee of each payment method type, and how many days a payment's funds stay pending. */
export interface SettlementSettings {
  fees: Record<string, FeeRule>;
  availableAfterDays: number;
}

/**
 * Stripe Malaysia's standard pricing as published when this was written (cards 3% + RM1.00, FPX 2.5%,
 * GrabPay 3.3%), and its two-day payout schedule: a test asserts against these, a merchant's real
 * rates differ.
 */
export const DEFAULT_SETTLEMENT: SettlementSettings = {
  fees: { card: { percent: 3, fixed: 100 }, fpx: { percent: 2.5, fixed: 0 }, grabpay: { percent: 3.3, fixed: 0 } },
  availableAfterDays: 2,
};

/** Where an account's events are forwarded, like `stripe listen --forward-to`, and the secret they are signed with. */
export interface ForwardTarget {
  url: string;
  secret: string;
}

/** An answer kept for an Idempotency-Key: replayed for the same request, refused for a different one. */
export interface SavedAnswer {
  method: string;
  path: string;
  params: string;
  status: number;
  body: unknown;
}

/** What a Checkout Session sells, which Stripe keeps as line items the session object does not show. */
export interface SessionLine {
  name: string;
  description: string | null;
  unitAmount: number;
  quantity: number;
}

/** What a Checkout Session knows beyond its object: its line items and what its PaymentIntent is to carry. */
export interface SessionExtras {
  lines: SessionLine[];
  intentDescription: string | null;
  intentMetadata: Stripe.Metadata;
}

export class Account {
  /** acct_…: names the account in the control pages without showing its secret key. */
  readonly id: string;
  /** The API version of the account's first request, as Stripe pins an account's version at its first call. */
  apiVersion: string | undefined;
  /** undefined: the stand-in's default target (the CLI's --forward-to); null: none. */
  forward: ForwardTarget | null | undefined;
  readonly idempotency = new Map<string, SavedAnswer>();
  /** How each saved card behaves, by PaymentMethod id (its number is not kept). */
  readonly cards = new Map<string, TestCard>();
  readonly sessionExtras = new Map<string, SessionExtras>();
  /** The payout each balance transaction was paid out in, by balance transaction id. */
  readonly paidOutIn = new Map<string, string>();
  /** Unix seconds the account's balance has reached: real time, or later once a payout as of a later day was run. */
  balanceClock = 0;
  private readonly objects = new Map<string, StripeObject>();

  constructor(
    readonly secretKey: string,
    readonly settlement: SettlementSettings = DEFAULT_SETTLEMENT,
  ) {
    this.id = `acct_${createHash('sha256').update(secretKey).digest('hex').slice(0, 16)}`;
  }

  add<T extends StripeObject>(object: T): T {
    this.objects.set(object.id, object);
    return object;
  }

  get<K extends ObjectKind>(kind: K, id: string): ObjectOfKind[K] | undefined {
    const object = this.objects.get(id);
    return object?.object === kind ? (object as ObjectOfKind[K]) : undefined;
  }

  /** Any object of the account by id, whatever its kind (for expanding an id). */
  find(id: string): StripeObject | undefined {
    return this.objects.get(id);
  }

  all<K extends ObjectKind>(kind: K): ObjectOfKind[K][] {
    return [...this.objects.values()].filter((object): object is ObjectOfKind[K] => object.object === kind);
  }
}

export class Accounts {
  private readonly byKey = new Map<string, Account>();

  constructor(private readonly settlement: SettlementSettings = DEFAULT_SETTLEMENT) {}

  forKey(secretKey: string): Account {
    let account = this.byKey.get(secretKey);
    if (!account) {
      account = new Account(secretKey, this.settlement);
      this.byKey.set(secretKey, account);
    }
    return account;
  }

  /** The account holding an object (ids are unique across accounts), for the hosted pages and the controls. */
  holding(id: string): Account | undefined {
    return [...this.byKey.values()].find((account) => account.find(id) !== undefined);
  }

  all(): Account[] {
    return [...this.byKey.values()];
  }

  /** The account of an acct_ id, as the control pages name it. */
  byId(id: string): Account | undefined {
    return this.all().find((account) => account.id === id);
  }
}
