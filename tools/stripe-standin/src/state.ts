// What the stand-in holds: one Account per secret key (a Stripe account in test mode), each with its
// objects by id, its events, its saved idempotent answers and its webhook forwarding target.
import { createHash, randomInt } from 'node:crypto';
import type Stripe from 'stripe';
import type { TestCard } from './cards.js';

export type StripeObject =
  Stripe.Customer | Stripe.Checkout.Session | Stripe.PaymentIntent | Stripe.SetupIntent | Stripe.PaymentMethod | Stripe.Charge | Stripe.Refund;

type ObjectOfKind = {
  customer: Stripe.Customer;
  'checkout.session': Stripe.Checkout.Session;
  payment_intent: Stripe.PaymentIntent;
  setup_intent: Stripe.SetupIntent;
  payment_method: Stripe.PaymentMethod;
  charge: Stripe.Charge;
  refund: Stripe.Refund;
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
  private readonly objects = new Map<string, StripeObject>();

  constructor(readonly secretKey: string) {
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

  forKey(secretKey: string): Account {
    let account = this.byKey.get(secretKey);
    if (!account) {
      account = new Account(secretKey);
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
}
