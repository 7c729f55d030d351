// The Stripe API operations the stand-in serves: each takes the request's params (already checked
// against Stripe's description) and answers an object or throws Stripe's error for what Stripe
// refuses beyond the description (missing ids, amounts, states). Params Stripe takes that the
// stand-in does not act on are refused as NotImplemented rather than silently ignored.
import type Stripe from 'stripe';
import { BALANCE_HANDLERS, BALANCE_PARAMS } from './balance-api.js';
import { StripeApiError, docUrl, invalidRequest, resourceMissing } from './errors.js';
import { pageOf } from './lists.js';
import { money } from './money.js';
import * as objects from './objects.js';
import type { StripeOperation } from './operations.js';
import { attempt, expireSession, refundCharge, refundedAmount, type Context } from './payments.js';
import { now, type EventObject, type StripeObject } from './state.js';
import { AUTOMATIC_PAYMENT_METHODS, atLeast } from './versions.js';

export interface ApiCall {
  ctx: Context;
  /** The API version the request speaks (see versions.ts). */
  version: string;
  path: Record<string, string>;
  params: Record<string, unknown>;
  /** The hosted page of a Checkout Session. */
  pageUrl(sessionId: string): string;
}

/** A Stripe parameter the stand-in does not act on: refused (400) and recorded as a violation, so no test passes on an ignored parameter. */
export class NotImplemented extends StripeApiError {
  constructor(param: string) {
    super(400, { type: 'invalid_request_error', message: `The Stripe stand-in does not implement \`${param}\` (real Stripe takes it).`, param });
  }
}

type Shape = true | { [param: string]: Shape };

const EXPAND_ONLY: Shape = { expand: true };

/** The params each operation acts on; anything else Stripe's description allows is NotImplemented. */
const SUPPORTED: Record<string, Shape> = {
  'post /v1/customers': { email: true, name: true, description: true, phone: true, metadata: true, expand: true },
  'post /v1/checkout/sessions': {
    mode: true,
    success_url: true,
    cancel_url: true,
    line_items: { price: true, price_data: { currency: true, unit_amount: true, product_data: { name: true, description: true } }, quantity: true },
    currency: true,
    payment_method_types: true,
    allowed_payment_method_types: true,
    customer: true,
    customer_email: true,
    client_reference_id: true,
    metadata: true,
    payment_intent_data: { description: true, metadata: true },
    setup_intent_data: { description: true, metadata: true },
    expires_at: true,
    locale: true,
    expand: true,
  },
  'post /v1/payment_intents': {
    amount: true,
    currency: true,
    customer: true,
    payment_method: true,
    payment_method_types: true,
    allowed_payment_method_types: true,
    automatic_payment_methods: { enabled: true, allow_redirects: true },
    return_url: true,
    off_session: true,
    confirm: true,
    description: true,
    metadata: true,
    expand: true,
  },
  'post /v1/refunds': { payment_intent: true, charge: true, amount: true, reason: true, metadata: true, expand: true },
  'get /v1/refunds': { payment_intent: true, charge: true, limit: true, starting_after: true, expand: true },
  ...BALANCE_PARAMS,
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unsupported(value: unknown, shape: Shape, at: string): string | undefined {
  if (shape === true) return undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unsupported(item, shape, `${at}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const param = at === '' ? key : `${at}[${key}]`;
    const inner = shape[key];
    if (!inner) return param;
    const found = unsupported(item, inner, param);
    if (found) return found;
  }
  return undefined;
}

export function checkSupported(operation: StripeOperation, params: Record<string, unknown>): void {
  const param = unsupported(params, SUPPORTED[`${operation.method} ${operation.path}`] ?? EXPAND_ONLY, '');
  if (param) throw new NotImplemented(param);
}

/** Metadata as Stripe keeps it: string values, with keys posted empty left out. */
function metadataOf(value: unknown): Stripe.Metadata {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
}

function isWebUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The payment methods the stand-in's accounts have enabled "in the Dashboard", in Checkout's order. */
const OFFERED_METHODS = ['card', 'fpx', 'grabpay'];
/** Methods that send the payer to their bank or wallet and back. */
const REDIRECT_METHODS = ['fpx', 'grabpay'];
/** The currencies Stripe takes each non-card method in. */
const METHOD_CURRENCIES: Record<string, string[]> = { fpx: ['myr'], grabpay: ['myr', 'sgd'] };
const SESSION_MIN_LIFETIME = 30 * 60;
const SESSION_MAX_LIFETIME = 24 * 60 * 60;

function takesCurrency(type: string, currency: string | null): boolean {
  return !METHOD_CURRENCIES[type] || (currency !== null && METHOD_CURRENCIES[type].includes(currency));
}

/** What the create params say about payment methods, in both of Stripe's ways (see versions.ts). */
interface MethodParams {
  payment_method_types?: string[];
  allowed_payment_method_types?: string[];
}

/**
 * The methods a session or payment intent offers: those named in payment_method_types (each must be
 * one the stand-in offers and take the currency), or else the enabled ones that take the currency,
 * narrowed to allowed_payment_method_types if given.
 */
function methodTypes(p: MethodParams, currency: string | null, options: { setup: boolean }): string[] {
  if (p.payment_method_types) {
    const notOffered = p.payment_method_types.find((type) => !OFFERED_METHODS.includes(type));
    if (notOffered) throw new NotImplemented(`payment_method_types=${notOffered}`);
    if (options.setup && p.payment_method_types.some((type) => type !== 'card')) throw new NotImplemented('payment_method_types other than card in setup mode');
    if (p.payment_method_types.some((type) => !takesCurrency(type, currency))) {
      throw invalidRequest(
        `The currency provided (${currency ?? 'none'}) is invalid for one or more payment method types on this request. Payment methods used: ${p.payment_method_types.join(', ')}.`,
        'payment_method_types',
      );
    }
    return p.payment_method_types;
  }
  const enabled = OFFERED_METHODS.filter((type) => (!options.setup || type === 'card') && takesCurrency(type, currency));
  const types = p.allowed_payment_method_types ? enabled.filter((type) => p.allowed_payment_method_types!.includes(type)) : enabled;
  if (types.length === 0) {
    throw invalidRequest(
      `None of the payment method types enabled for this account (${OFFERED_METHODS.join(', ')}) can be used here${currency ? ` with ${currency}` : ''}.`,
      p.allowed_payment_method_types ? 'allowed_payment_method_types' : undefined,
    );
  }
  return types;
}

function createCustomer({ ctx, params }: ApiCall): StripeObject {
  const p = params as Stripe.CustomerCreateParams;
  const customer = ctx.account.add(objects.customer({ email: p.email, name: p.name, description: p.description, metadata: metadataOf(p.metadata) }));
  if (p.phone) customer.phone = p.phone;
  ctx.emit('customer.created', customer);
  return customer;
}

function retrieve<K extends 'customer' | 'checkout.session' | 'payment_intent' | 'setup_intent' | 'payment_method' | 'refund'>(
  kind: K,
  shown: string,
  param: string,
) {
  return ({ ctx, path }: ApiCall): StripeObject => {
    const object = ctx.account.get(kind, path[param]!);
    if (!object) throw resourceMissing(shown, path[param]!, 'id');
    return object;
  };
}

interface SessionLineParams {
  price?: string;
  price_data?: { currency: string; unit_amount?: number; product_data?: { name: string; description?: string } };
  quantity?: number;
}

function sessionLines(lines: SessionLineParams[]) {
  return lines.map((line, index) => {
    const at = `line_items[${index}]`;
    if (line.price) throw resourceMissing('price', line.price, `${at}[price]`);
    if (!line.price_data) throw invalidRequest(`You must specify either \`price\` or \`price_data\` in ${at}.`, at);
    if (line.price_data.unit_amount === undefined)
      throw invalidRequest(`Missing required param: ${at}[price_data][unit_amount].`, `${at}[price_data][unit_amount]`);
    if (line.price_data.unit_amount < 0) throw invalidRequest('This value must be greater than or equal to 0.', `${at}[price_data][unit_amount]`);
    if (!line.price_data.product_data) throw invalidRequest(`Missing required param: ${at}[price_data][product_data].`, `${at}[price_data][product_data]`);
    if (line.quantity === undefined) throw invalidRequest(`Quantity is required. Add \`quantity\` to \`${at}\``, `${at}[quantity]`);
    if (line.quantity < 1) throw invalidRequest('This value must be greater than or equal to 1.', `${at}[quantity]`);
    return {
      currency: line.price_data.currency.toLowerCase(),
      name: line.price_data.product_data.name,
      description: line.price_data.product_data.description ?? null,
      unitAmount: line.price_data.unit_amount,
      quantity: line.quantity,
    };
  });
}

function createSession({ ctx, params, pageUrl }: ApiCall): StripeObject {
  const p = params as Stripe.Checkout.SessionCreateParams & MethodParams;
  const { account } = ctx;
  if (!p.mode) throw invalidRequest('Missing required param: mode.', 'mode');
  if (p.mode !== 'payment' && p.mode !== 'setup') throw new NotImplemented(`mode=${p.mode}`);
  if (p.customer && p.customer_email) throw invalidRequest('You may only specify one of these parameters: customer, customer_email.', 'customer_email');
  if (p.customer && !account.get('customer', p.customer)) throw resourceMissing('customer', p.customer, 'customer');
  if (!p.success_url || !isWebUrl(p.success_url)) throw invalidRequest('Not a valid URL', 'success_url');
  if (p.cancel_url !== undefined && !isWebUrl(p.cancel_url)) throw invalidRequest('Not a valid URL', 'cancel_url');
  const created = now();
  const expiresAt = p.expires_at ?? created + SESSION_MAX_LIFETIME;
  if (expiresAt < created + SESSION_MIN_LIFETIME)
    throw invalidRequest('The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.', 'expires_at');
  if (expiresAt > created + SESSION_MAX_LIFETIME)
    throw invalidRequest('The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.', 'expires_at');
  let types: string[];
  let currency: string | null = p.currency?.toLowerCase() ?? null;
  let amountTotal: number | null = null;
  let lines: ReturnType<typeof sessionLines> = [];
  let setupIntent: Stripe.SetupIntent | undefined;
  if (p.mode === 'payment') {
    if (p.setup_intent_data) throw invalidRequest('You can only pass in `setup_intent_data` in `setup` mode.', 'setup_intent_data');
    if (!p.line_items || p.line_items.length === 0) throw invalidRequest('`line_items` is required in `payment` mode.', 'line_items');
    lines = sessionLines(p.line_items as SessionLineParams[]);
    currency ??= lines[0]!.currency;
    if (lines.some((line) => line.currency !== currency))
      throw invalidRequest('All line items must use the same currency as the Checkout Session.', 'line_items');
    amountTotal = lines.reduce((sum, line) => sum + line.unitAmount * line.quantity, 0);
    if (amountTotal < 1) throw invalidRequest("The Checkout Session's total amount due must be greater than 0.", 'line_items');
    types = methodTypes(p, currency, { setup: false });
  } else {
    if (p.line_items) throw invalidRequest('You cannot pass `line_items` in `setup` mode.', 'line_items');
    if (p.payment_intent_data) throw invalidRequest('You can only pass in `payment_intent_data` in `payment` mode.', 'payment_intent_data');
    if (!p.payment_method_types && !p.allowed_payment_method_types && !currency) throw invalidRequest('Missing required param: currency.', 'currency');
    // The stand-in saves cards only.
    types = methodTypes(p, currency, { setup: true });
    setupIntent = account.add(
      objects.setupIntent({
        customer: p.customer ?? null,
        metadata: metadataOf(p.setup_intent_data?.metadata),
        description: p.setup_intent_data?.description ?? null,
        paymentMethodTypes: types,
      }),
    );
    ctx.emit('setup_intent.created', setupIntent);
  }

  const session = account.add(
    objects.checkoutSession({
      mode: p.mode as 'payment' | 'setup',
      url: pageUrl,
      successUrl: p.success_url,
      cancelUrl: p.cancel_url ?? null,
      currency,
      amountTotal,
      paymentMethodTypes: types,
      customer: p.customer ?? null,
      customerEmail: p.customer_email ?? null,
      clientReferenceId: p.client_reference_id ?? null,
      metadata: metadataOf(p.metadata),
      expiresAt,
      setupIntent: setupIntent?.id ?? null,
    }),
  );
  session.created = created;
  if (p.locale) session.locale = p.locale;
  account.sessionExtras.set(session.id, {
    lines,
    intentDescription: p.payment_intent_data?.description ?? null,
    intentMetadata: metadataOf(p.payment_intent_data?.metadata),
  });
  return session;
}

function expireSessionCall(call: ApiCall): StripeObject {
  const session = retrieve('checkout.session', 'checkout.session', 'session')(call) as Stripe.Checkout.Session;
  if (session.status !== 'open') {
    throw invalidRequest(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of \`${session.status}\`.`);
  }
  expireSession(call.ctx, session);
  return session;
}

function createPaymentIntent({ ctx, params, version }: ApiCall): StripeObject {
  const p = params as unknown as Stripe.PaymentIntentCreateParams & MethodParams;
  const { account } = ctx;
  if (p.amount < 1) throw invalidRequest('This value must be greater than or equal to 1.', 'amount');
  if (!/^[a-z]{3}$/.test(p.currency)) throw invalidRequest(`Invalid currency: ${p.currency}.`, 'currency');
  if (p.customer && !account.get('customer', p.customer)) throw resourceMissing('customer', p.customer, 'customer');
  const method = p.payment_method ? account.get('payment_method', p.payment_method) : undefined;
  if (p.payment_method && !method) throw resourceMissing('PaymentMethod', p.payment_method, 'payment_method');
  if (method && method.customer !== (p.customer ?? null)) {
    throw invalidRequest(
      method.customer
        ? `The provided PaymentMethod belongs to a different Customer than the one on this PaymentIntent (${p.customer ?? 'none'}).`
        : 'The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.',
      'payment_method',
    );
  }
  // Since 2023-08-16 a PaymentIntent without payment_method_types takes the Dashboard's methods.
  const automatic =
    p.payment_method_types || (!atLeast(version, AUTOMATIC_PAYMENT_METHODS) && !p.automatic_payment_methods?.enabled)
      ? null
      : { enabled: true, allow_redirects: p.automatic_payment_methods?.allow_redirects ?? ('always' as const) };
  const types = automatic
    ? methodTypes(p, p.currency, { setup: false }).filter((type) => automatic.allow_redirects !== 'never' || !REDIRECT_METHODS.includes(type))
    : (p.payment_method_types ?? ['card']);
  if (method && !types.includes(method.type)) {
    throw invalidRequest(
      `The PaymentMethod provided (${method.type}) is not allowed for this PaymentIntent. Please attach a PaymentMethod of one of the following types: ${types.join(', ')}.`,
      'payment_method',
    );
  }
  if (p.confirm && automatic && automatic.allow_redirects !== 'never' && types.some((type) => REDIRECT_METHODS.includes(type)) && !p.return_url) {
    throw invalidRequest(
      'A `return_url` must be specified because this Payment Intent is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.',
    );
  }
  const intent = account.add(
    objects.paymentIntent({
      amount: p.amount,
      currency: p.currency,
      customer: p.customer ?? null,
      description: p.description ?? null,
      metadata: metadataOf(p.metadata),
      paymentMethodTypes: types,
      paymentMethod: method?.id ?? null,
    }),
  );
  intent.automatic_payment_methods = automatic;
  ctx.emit('payment_intent.created', intent);
  if (!p.confirm) return intent;
  if (!method) {
    throw invalidRequest(
      "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with " +
        `${p.customer ?? 'a customer'}, specify a payment method attached to this customer along with the customer ID.`,
      'payment_method',
    );
  }
  if (method.type !== 'card') throw new NotImplemented(`payment_method of type ${method.type} for a confirmed PaymentIntent`);
  const decline = account.cards.get(method.id)?.chargeDecline;
  const charge = attempt(ctx, intent, method, decline ?? 'succeeded');
  if (decline) {
    throw new StripeApiError(402, {
      type: 'card_error',
      code: decline.code,
      decline_code: decline.declineCode,
      doc_url: docUrl(decline.code),
      message: decline.message,
      charge: charge.id,
      payment_intent: structuredClone(intent),
      payment_method: structuredClone(method),
    });
  }
  return intent;
}

/** Detaches a saved card from its customer: it can no longer be charged or attached again. */
function detachPaymentMethod(call: ApiCall): StripeObject {
  const method = retrieve('payment_method', 'PaymentMethod', 'payment_method')(call) as Stripe.PaymentMethod;
  if (!method.customer) throw invalidRequest('The payment method you provided is not attached to a customer so detachment is impossible.');
  const customer = method.customer;
  method.customer = null;
  call.ctx.emit('payment_method.detached', method, { customer });
  return method;
}

function createRefund({ ctx, params }: ApiCall): StripeObject {
  const p = params as Stripe.RefundCreateParams;
  const { account } = ctx;
  if (!p.payment_intent && !p.charge) throw invalidRequest('One of the following params should be provided for this request: payment_intent or charge.');
  let charge: Stripe.Charge | undefined;
  if (p.payment_intent) {
    const intent = account.get('payment_intent', p.payment_intent);
    if (!intent) throw resourceMissing('payment_intent', p.payment_intent, 'payment_intent');
    charge = intent.latest_charge ? account.get('charge', intent.latest_charge as string) : undefined;
    if (p.charge && charge?.id !== p.charge) throw invalidRequest('The charge is not the latest charge of the payment intent.', 'charge');
    if (!charge || intent.status !== 'succeeded') {
      throw invalidRequest(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, 'payment_intent');
    }
  } else {
    charge = account.get('charge', p.charge!);
    if (!charge) throw resourceMissing('charge', p.charge!, 'charge');
  }
  if (charge.status !== 'succeeded') throw invalidRequest(`Charge ${charge.id} has not succeeded, so it cannot be refunded.`, 'charge');
  const refunded = refundedAmount(account, charge.id);
  if (refunded >= charge.amount) throw invalidRequest(`Charge ${charge.id} has already been refunded.`, undefined, 'charge_already_refunded');
  const amount = p.amount ?? charge.amount - refunded;
  if (amount < 1) throw invalidRequest('This value must be greater than or equal to 1.', 'amount');
  if (amount > charge.amount - refunded) {
    throw invalidRequest(
      `Refund amount (${money(amount, charge.currency)}) is greater than unrefunded amount on charge (${money(charge.amount - refunded, charge.currency)})`,
      'amount',
    );
  }
  return refundCharge(ctx, charge, { amount, reason: p.reason ?? null, metadata: metadataOf(p.metadata) });
}

/** GET /v1/refunds: the account's refunds, newest first, those of one PaymentIntent or charge when asked. */
function listRefunds({ ctx, params }: ApiCall): Stripe.ApiList<Stripe.Refund> {
  const p = params as Stripe.RefundListParams;
  const all = ctx.account
    .all('refund')
    .filter((refund) => (!p.payment_intent || refund.payment_intent === p.payment_intent) && (!p.charge || refund.charge === p.charge))
    .reverse();
  return pageOf(all, p, '/v1/refunds', 'refund');
}

/** What an operation answers: an object, a list of them, or the balance. */
export type Answer = EventObject | Stripe.ApiList<StripeObject>;

export const HANDLERS: Record<string, (call: ApiCall) => Answer> = {
  'post /v1/customers': createCustomer,
  'get /v1/customers/{customer}': retrieve('customer', 'customer', 'customer'),
  'post /v1/checkout/sessions': createSession,
  'get /v1/checkout/sessions/{session}': retrieve('checkout.session', 'checkout.session', 'session'),
  'post /v1/checkout/sessions/{session}/expire': expireSessionCall,
  'post /v1/payment_intents': createPaymentIntent,
  'get /v1/payment_intents/{intent}': retrieve('payment_intent', 'payment_intent', 'intent'),
  'get /v1/setup_intents/{intent}': retrieve('setup_intent', 'setupintent', 'intent'),
  'get /v1/payment_methods/{payment_method}': retrieve('payment_method', 'PaymentMethod', 'payment_method'),
  'post /v1/payment_methods/{payment_method}/detach': detachPaymentMethod,
  'post /v1/refunds': createRefund,
  'get /v1/refunds/{refund}': retrieve('refund', 'refund', 'refund'),
  'get /v1/refunds': listRefunds,
  ...BALANCE_HANDLERS,
};
