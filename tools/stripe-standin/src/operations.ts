// The Stripe API operations the stand-in serves: the one list that both the vendored subset of
// Stripe's OpenAPI description (subset.ts) and the stand-in's router are made from.

export interface StripeOperation {
  method: 'get' | 'post';
  /** As Stripe's OpenAPI description spells it, e.g. /v1/checkout/sessions/{session}. */
  path: string;
}

export const STRIPE_OPERATIONS = [
  { method: 'post', path: '/v1/customers' },
  { method: 'get', path: '/v1/customers/{customer}' },
  { method: 'post', path: '/v1/checkout/sessions' },
  { method: 'get', path: '/v1/checkout/sessions/{session}' },
  { method: 'post', path: '/v1/checkout/sessions/{session}/expire' },
  { method: 'post', path: '/v1/payment_intents' },
  { method: 'get', path: '/v1/payment_intents/{intent}' },
  { method: 'get', path: '/v1/setup_intents/{intent}' },
  { method: 'get', path: '/v1/payment_methods/{payment_method}' },
  { method: 'post', path: '/v1/payment_methods/{payment_method}/detach' },
  { method: 'post', path: '/v1/refunds' },
  { method: 'get', path: '/v1/refunds' },
  { method: 'get', path: '/v1/refunds/{refund}' },
  { method: 'get', path: '/v1/balance' },
  { method: 'get', path: '/v1/balance_transactions' },
  { method: 'get', path: '/v1/balance_transactions/{id}' },
  { method: 'get', path: '/v1/payouts' },
  { method: 'get', path: '/v1/payouts/{payout}' },
] as const satisfies readonly StripeOperation[];

/**
 * The objects the stand-in answers with or puts in events, by their `object` value: each is kept in
 * the subset with its own fields (nested objects it does not make are left unchecked).
 */
export const STRIPE_OBJECT_SCHEMAS = {
  customer: 'customer',
  'checkout.session': 'checkout.session',
  payment_intent: 'payment_intent',
  setup_intent: 'setup_intent',
  payment_method: 'payment_method',
  charge: 'charge',
  refund: 'refund',
  balance_transaction: 'balance_transaction',
  payout: 'payout',
  balance: 'balance',
  event: 'event',
} as const;

/**
 * The other components kept with their own fields: GET /v1/customers/{customer}'s other answer, the
 * event's parts, the error body, a balance transaction's fees and a balance's amounts.
 */
export const STRIPE_HELPER_SCHEMAS = [
  'deleted_customer',
  'notification_event_data',
  'notification_event_request',
  'error',
  'api_errors',
  'fee',
  'balance_amount',
] as const;

/** Where, in the subset, the list of event types (taken from POST /v1/webhook_endpoints `enabled_events`) sits. */
export const EVENT_TYPE_SCHEMA = 'x-stripe-event-type';
