// Stripe's objects as new ones look: every field the SDK's types promise (so code reading them meets
// what real Stripe sends), with the values Stripe gives a test-mode object that has not used the
// feature behind the field. Typed by the official SDK, checked against Stripe's OpenAPI in the tests.
import type Stripe from 'stripe';
import type { CardBrand, Decline, TestCard } from './cards.js';
import { newId, now } from './state.js';

const NO_ADDRESS: Stripe.Address = { city: null, country: null, line1: null, line2: null, postal_code: null, state: null };

function billingDetails(name: string | null, email: string | null): Stripe.PaymentMethod.BillingDetails {
  return { address: { ...NO_ADDRESS }, email, name, phone: null, tax_id: null };
}

export function customer(params: { email?: string; name?: string; metadata?: Stripe.Metadata; description?: string }): Stripe.Customer {
  return {
    id: newId('cus_', 14),
    object: 'customer',
    address: null,
    balance: 0,
    created: now(),
    currency: null,
    default_source: null,
    delinquent: false,
    description: params.description ?? null,
    discount: null,
    email: params.email ?? null,
    invoice_prefix: newId('', 8).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: params.metadata ?? {},
    name: params.name ?? null,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

export interface SessionParams {
  mode: 'payment' | 'setup';
  url: (id: string) => string;
  successUrl: string;
  cancelUrl: string | null;
  currency: string | null;
  amountTotal: number | null;
  paymentMethodTypes: string[];
  customer: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
  metadata: Stripe.Metadata;
  expiresAt: number;
  setupIntent: string | null;
}

export function checkoutSession(params: SessionParams): Stripe.Checkout.Session {
  const id = newId('cs_test_', 58);
  const payment = params.mode === 'payment';
  return {
    id,
    object: 'checkout.session',
    adaptive_pricing: payment ? { enabled: false } : null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: params.amountTotal,
    amount_total: params.amountTotal,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: params.cancelUrl,
    client_reference_id: params.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: now(),
    currency: params.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: params.customer,
    customer_account: null,
    customer_creation: payment && !params.customer ? 'if_required' : null,
    customer_details: params.customerEmail
      ? { address: null, business_name: null, email: params.customerEmail, individual_name: null, name: null, phone: null, tax_exempt: 'none', tax_ids: null }
      : null,
    customer_email: params.customerEmail,
    discounts: payment ? [] : null,
    expires_at: params.expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: payment
      ? {
          enabled: false,
          invoice_data: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: null, metadata: {}, rendering_options: null },
        }
      : null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: params.metadata,
    mode: params.mode,
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: payment ? 'if_required' : 'always',
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: params.paymentMethodTypes,
    payment_status: payment ? 'unpaid' : 'no_payment_required',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: params.setupIntent,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: params.successUrl,
    tax_id_collection: { enabled: false, required: 'never' },
    total_details: payment ? { amount_discount: 0, amount_shipping: 0, amount_tax: 0 } : null,
    ui_mode: 'hosted',
    url: params.url(id),
    wallet_options: null,
  };
}

export interface PaymentIntentParams {
  amount: number;
  currency: string;
  customer: string | null;
  description: string | null;
  metadata: Stripe.Metadata;
  paymentMethodTypes: string[];
  paymentMethod: string | null;
}

export function paymentIntent(params: PaymentIntentParams): Stripe.PaymentIntent {
  const id = newId('pi_');
  return {
    id,
    object: 'payment_intent',
    allowed_payment_method_types: null,
    amount: params.amount,
    amount_capturable: 0,
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic_async',
    client_secret: `${id}_secret_${newId('', 25)}`,
    confirmation_method: 'automatic',
    created: now(),
    currency: params.currency,
    customer: params.customer,
    customer_account: null,
    description: params.description,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: params.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: params.paymentMethod,
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: params.paymentMethodTypes,
    payment_record: null,
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: params.paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
    transfer_data: null,
    transfer_group: null,
  };
}

export function setupIntent(params: {
  customer: string | null;
  metadata: Stripe.Metadata;
  description: string | null;
  paymentMethodTypes: string[];
}): Stripe.SetupIntent {
  const id = newId('seti_');
  return {
    id,
    object: 'setup_intent',
    allowed_payment_method_types: null,
    application: null,
    automatic_payment_methods: null,
    cancellation_reason: null,
    client_secret: `${id}_secret_${newId('', 32)}`,
    created: now(),
    customer: params.customer,
    customer_account: null,
    description: params.description,
    excluded_payment_method_types: null,
    flow_directions: null,
    last_setup_error: null,
    latest_attempt: null,
    livemode: false,
    mandate: null,
    metadata: params.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: params.paymentMethodTypes,
    single_use_mandate: null,
    status: 'requires_payment_method',
    usage: 'off_session',
  };
}

/** What the payer gave: a card (brand, last four, expiry; never the number), or an FPX bank, or GrabPay. */
export type PaymentMethodInput =
  | { type: 'card'; brand: CardBrand; last4: string; expMonth: number; expYear: number; card: TestCard; fingerprint: string }
  | { type: 'fpx'; bank: Stripe.PaymentMethod.Fpx.Bank }
  | { type: 'grabpay' };

export function paymentMethod(input: PaymentMethodInput, name: string | null, email: string | null): Stripe.PaymentMethod {
  const base = {
    id: newId('pm_'),
    object: 'payment_method' as const,
    allow_redisplay: 'unspecified' as const,
    billing_details: billingDetails(name, email),
    created: now(),
    customer: null,
    customer_account: null,
    livemode: false,
    metadata: {},
  };
  switch (input.type) {
    case 'card':
      return {
        ...base,
        type: 'card',
        card: {
          brand: input.brand,
          checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
          country: input.card.country,
          display_brand: input.brand,
          exp_month: input.expMonth,
          exp_year: input.expYear,
          fingerprint: input.fingerprint,
          funding: input.card.funding,
          generated_from: null,
          last4: input.last4,
          networks: { available: [input.brand], preferred: null },
          regulated_status: 'unregulated',
          three_d_secure_usage: { supported: true },
          wallet: null,
        },
      };
    case 'fpx':
      return { ...base, type: 'fpx', fpx: { account_holder_type: 'individual', bank: input.bank } };
    case 'grabpay':
      return { ...base, type: 'grabpay', grabpay: {} };
  }
}

function chargeDetails(method: Stripe.PaymentMethod): Stripe.Charge.PaymentMethodDetails {
  if (method.type === 'card' && method.card) {
    const card = method.card;
    return {
      type: 'card',
      card: {
        amount_authorized: null,
        authorization_code: null,
        brand: card.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        country: card.country,
        electronic_commerce_indicator: null,
        exp_month: card.exp_month,
        exp_year: card.exp_year,
        fingerprint: card.fingerprint,
        funding: card.funding,
        installments: null,
        last4: card.last4,
        mandate: null,
        network: card.brand,
        network_transaction_id: null,
        regulated_status: 'unregulated',
        three_d_secure: null,
        transaction_link_id: null,
        wallet: null,
      },
    };
  }
  if (method.type === 'fpx' && method.fpx) {
    return { type: 'fpx', fpx: { account_holder_type: method.fpx.account_holder_type, bank: method.fpx.bank, transaction_id: newId('', 16) } };
  }
  return { type: 'grabpay', grabpay: { transaction_id: newId('', 16) } };
}

/** A charge of a payment intent by a payment method: succeeded, pending (a bank that confirms later) or failed with a decline. */
export function charge(intent: Stripe.PaymentIntent, method: Stripe.PaymentMethod, outcome: 'succeeded' | 'pending' | Decline): Stripe.Charge {
  const failed = typeof outcome === 'object';
  const captured = outcome === 'succeeded';
  return {
    id: newId(method.type === 'card' ? 'ch_' : 'py_'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: captured ? intent.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    // Set by settlement.ts once the charge has succeeded.
    balance_transaction: null,
    billing_details: method.billing_details,
    calculated_statement_descriptor: 'STRIPE STAND-IN',
    captured,
    created: now(),
    currency: intent.currency,
    customer: typeof intent.customer === 'string' ? intent.customer : (intent.customer?.id ?? null),
    description: intent.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: failed ? outcome.code : null,
    failure_message: failed ? outcome.message : null,
    fraud_details: {},
    livemode: false,
    metadata: { ...intent.metadata },
    on_behalf_of: null,
    outcome: failed
      ? {
          advice_code: null,
          network_advice_code: null,
          network_decline_code: null,
          network_status: 'declined_by_network',
          reason: outcome.declineCode,
          risk_level: 'normal',
          seller_message: 'The bank did not return any further details with this decline.',
          type: 'issuer_declined',
        }
      : {
          advice_code: null,
          network_advice_code: null,
          network_decline_code: null,
          network_status: 'approved_by_network',
          reason: null,
          risk_level: 'normal',
          seller_message: 'Payment complete.',
          type: 'authorized',
        },
    paid: captured,
    payment_intent: intent.id,
    payment_method: method.id,
    payment_method_details: chargeDetails(method),
    radar_options: {},
    receipt_email: null,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: failed ? 'failed' : outcome,
    transfer_data: null,
    transfer_group: null,
  };
}

export function refund(
  charge: Stripe.Charge,
  params: { amount: number; reason: Stripe.Refund.Reason | null; metadata: Stripe.Metadata; card: boolean },
): Stripe.Refund {
  return {
    id: newId(params.card ? 're_' : 'pyr_'),
    object: 'refund',
    amount: params.amount,
    // Set by settlement.ts as the refund is made.
    balance_transaction: null,
    charge: charge.id,
    created: now(),
    currency: charge.currency,
    customer: typeof charge.customer === 'string' ? charge.customer : null,
    customer_account: null,
    metadata: params.metadata,
    payment_intent: typeof charge.payment_intent === 'string' ? charge.payment_intent : null,
    payment_method: charge.payment_method,
    reason: params.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: 'succeeded',
    transfer_reversal: null,
  };
}

/** The error Stripe puts in a PaymentIntent's last_payment_error (and a SetupIntent's last_setup_error) for a card decline. */
export function cardError(decline: Decline, method: Stripe.PaymentMethod, chargeId: string | null): Stripe.PaymentIntent.LastPaymentError {
  return {
    ...(chargeId ? { charge: chargeId } : {}),
    code: decline.code,
    decline_code: decline.declineCode,
    doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
    message: decline.message,
    payment_method: method,
    type: 'card_error',
  };
}
