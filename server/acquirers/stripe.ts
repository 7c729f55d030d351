// Stripe as a business's acquirer, through its official SDK: Checkout Sessions take payments (mode
// `payment`: cards, FPX online banking and GrabPay where the currency allows) and save cards (mode
// `setup`), off-session PaymentIntents charge saved cards, detaching a PaymentMethod forgets one, the
// Refunds API gives money back, notifications are Stripe's signed webhook events, and its balance
// transactions and payouts are the settlement feed (fees, availability, payouts). No card data passes through the service.
//
// Every call carries an idempotency key made from our own id, so a call retried (by the SDK, or by
// the pending sweep after a crash) never charges, refunds or opens twice.
import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import {
  NotificationRefused,
  type AcquirerBalance,
  type AcquirerRefund,
  type ChargeRequest,
  type ChargeResult,
  type HostedPaymentRequest,
  type HostedPaymentState,
  type HostedAcquirer,
  type HostedSession,
  type HostedSetupRequest,
  type HostedSetupState,
  type PaymentMethod,
  type AcquirerNotification,
  type RefundRequest,
  type RefundResult,
} from './acquirer.js';
import type { AcquirerPayout, BalanceEntry, SettlementFeed } from './settlement-feed.js';
import { paymentReferenceOfSource, stripeDay, toAcquirerPayout, toBalanceEntry } from './stripe-settlement.js';

/**
 * The SDK, loaded when the first business on Stripe is served: it is the largest module the service
 * has, and a sandbox-only instance (the embedded default) would pay for it at every start.
 */
let sdk: typeof Stripe | undefined;
function stripeSdk(): typeof Stripe {
  return (sdk ??= createRequire(import.meta.url)('stripe') as typeof Stripe);
}

/** Where the SDK sends its requests: Stripe's API unless pointed at a stand-in (tests, the local journey). */
export interface StripeApiAddress {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

export interface StripeAccount {
  secretKey: string;
  /** The signing secret (`whsec_...`) of the webhook endpoint registered for this business; null until set. */
  webhookSecret: string | null;
}

/** Parses STRIPE_API_URL (e.g. http://127.0.0.1:12111) into the SDK's host, port and protocol. */
export function stripeApiAddress(url: string): StripeApiAddress {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`STRIPE_API_URL must be an http(s) URL, not ${url}`);
  const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
  return { host: parsed.hostname, port: parsed.port ? Number(parsed.port) : protocol === 'http' ? 80 : 443, protocol };
}

const SETUP_CURRENCY = 'myr';

/**
 * What Checkout may offer for a currency, of the methods the account enabled at Stripe: FPX takes
 * ringgit only, GrabPay ringgit and Singapore dollars, cards any currency.
 */
export function checkoutMethodsFor(currency: string): PaymentMethod[] {
  const upper = currency.toUpperCase();
  if (upper === 'MYR') return ['card', 'fpx', 'grabpay'];
  if (upper === 'SGD') return ['card', 'grabpay'];
  return ['card'];
}

const KNOWN_METHODS: readonly string[] = ['card', 'fpx', 'grabpay'];

function methodOf(intent: Stripe.PaymentIntent): PaymentMethod | null {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const type = charge?.payment_method_details?.type ?? (typeof intent.payment_method === 'object' ? intent.payment_method?.type : undefined);
  return type && KNOWN_METHODS.includes(type) ? (type as PaymentMethod) : null;
}

function cardOf(intent: Stripe.PaymentIntent): { brand: string; last4: string } | null {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const card = charge?.payment_method_details?.card ?? (typeof intent.payment_method === 'object' ? intent.payment_method?.card : undefined);
  return card?.brand && card.last4 ? { brand: card.brand, last4: card.last4 } : null;
}

/** Stripe's precise reason where it gives one (`insufficient_funds`), else its error code (`card_declined`, `expired_card`). */
function declineCodeOf(error: { code?: string | undefined; decline_code?: string | undefined }): string {
  if (error.decline_code && error.decline_code !== 'generic_decline') return error.decline_code;
  return error.code ?? 'card_declined';
}

/** Stripe answered that it will not do the request at all: 400, 401 or 403. */
function isRefusedRequest(error: unknown): error is Stripe.errors.StripeError {
  return (
    error instanceof stripeSdk().errors.StripeInvalidRequestError ||
    error instanceof stripeSdk().errors.StripeAuthenticationError ||
    error instanceof stripeSdk().errors.StripePermissionError
  );
}

/** The fee and availability Stripe booked for a paid intent, where its charge's balance transaction was read with it. */
function balanceOf(intent: Stripe.PaymentIntent): AcquirerBalance | null {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const transaction = charge && typeof charge.balance_transaction === 'object' ? charge.balance_transaction : null;
  return transaction ? { fee: transaction.fee, availableOn: stripeDay(transaction.available_on), acquirerReference: transaction.id } : null;
}

/** A PaymentIntent (read with its latest charge, its balance transaction and payment method) as where the payment stands. */
function intentState(intent: Stripe.PaymentIntent): HostedPaymentState {
  const method = methodOf(intent);
  const details = { paymentReference: intent.id, method: method ?? 'card', card: cardOf(intent) };
  switch (intent.status) {
    case 'succeeded':
      return { state: 'paid', amount: intent.amount_received, ...details, balance: balanceOf(intent) };
    case 'processing':
      return { state: 'processing', ...details };
    case 'canceled':
      return { state: 'failed', paymentReference: intent.id, method, code: 'canceled', message: 'The payment was canceled.' };
    case 'requires_action':
      return {
        state: 'failed',
        paymentReference: intent.id,
        method,
        code: 'authentication_required',
        message: 'The card asks the cardholder to authenticate this payment.',
      };
    default: {
      const error = intent.last_payment_error;
      return {
        state: 'failed',
        paymentReference: intent.id,
        method,
        code: error ? declineCodeOf(error) : 'payment_failed',
        message: error?.message ?? 'The payment failed.',
      };
    }
  }
}

function refundStatus(refund: Stripe.Refund): AcquirerRefund['status'] {
  if (refund.status === 'succeeded') return 'succeeded';
  if (refund.status === 'failed' || refund.status === 'canceled') return 'failed';
  return 'pending';
}

const REFUND_FAILURES: Record<string, string> = {
  expired_or_canceled_card: 'The card the payment was made with has expired or was canceled.',
  lost_or_stolen_card: 'The card the payment was made with was reported lost or stolen.',
  unknown: 'The acquirer could not return the money to the card.',
};

function toAcquirerRefund(refund: Stripe.Refund): AcquirerRefund {
  const status = refundStatus(refund);
  const failure = status === 'failed' ? (refund.failure_reason ?? refund.status ?? 'unknown') : null;
  return {
    refundId: refund.id,
    reference: refund.metadata?.refund_id ?? null,
    amount: refund.amount,
    status,
    failureCode: failure,
    failureMessage: failure ? (REFUND_FAILURES[failure] ?? REFUND_FAILURES.unknown!) : null,
  };
}

/** A saved card is named by the Stripe customer it is attached to and the PaymentMethod itself. */
export function savedCardToken(customer: string, paymentMethod: string): string {
  return `${customer}/${paymentMethod}`;
}

function splitSavedCardToken(token: string): { customer: string; paymentMethod: string } {
  const [customer, paymentMethod] = token.split('/');
  if (!customer || !paymentMethod) throw new Error('the saved card reference is not a Stripe customer and payment method');
  return { customer, paymentMethod };
}

const SESSION_EVENTS: readonly string[] = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
];
const INTENT_EVENTS: readonly string[] = ['payment_intent.succeeded', 'payment_intent.processing', 'payment_intent.payment_failed', 'payment_intent.canceled'];
const REFUND_EVENTS: readonly string[] = ['charge.refunded', 'charge.refund.updated', 'refund.created', 'refund.updated', 'refund.failed'];
const PAYOUT_EVENTS: readonly string[] = [
  'payout.created',
  'payout.updated',
  'payout.paid',
  'payout.failed',
  'payout.canceled',
  'payout.reconciliation_completed',
];

/** The events docs/operating.md (Stripe) tells a merchant to enable on the endpoint they register at Stripe. */
export const STRIPE_WEBHOOK_EVENTS: readonly string[] = [...SESSION_EVENTS, 'payment_intent.payment_failed', 'charge.refunded', 'charge.refund.updated'];

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

export class StripeAcquirer implements HostedAcquirer, SettlementFeed {
  readonly name = 'stripe';
  readonly checkout = 'hosted';
  readonly pageOrigin: string;
  private readonly stripe: Stripe;

  /**
   * `returnUrl`: where a cardholder would be sent if their bank insisted on authenticating a charge on
   * a saved card (Stripe asks for one when it confirms a charge; the payer is not there, so such a
   * charge is declined as `authentication_required`).
   */
  constructor(
    private readonly account: StripeAccount,
    private readonly options: { api?: StripeApiAddress | undefined; returnUrl: string },
  ) {
    this.stripe = new (stripeSdk())(account.secretKey, { ...options.api, maxNetworkRetries: 2, timeout: 20_000, telemetry: false });
    // Checkout's pages are on checkout.stripe.com; a stand-in serves them where it serves the API.
    this.pageOrigin = options.api ? `${options.api.protocol}://${options.api.host}:${options.api.port}` : 'https://checkout.stripe.com';
  }

  async startPayment(request: HostedPaymentRequest): Promise<HostedSession> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: request.currency.toLowerCase(),
              unit_amount: request.amount,
              product_data: { name: request.title, ...(request.description ? { description: request.description } : {}) },
            },
          },
        ],
        allowed_payment_method_types: checkoutMethodsFor(request.currency),
        ...(request.payerEmail ? { customer_email: request.payerEmail } : {}),
        client_reference_id: request.reference,
        metadata: request.metadata,
        payment_intent_data: { metadata: request.metadata, description: request.title },
        success_url: request.returnUrl.replace('{SESSION_ID}', '{CHECKOUT_SESSION_ID}'),
        cancel_url: request.cancelUrl,
        expires_at: Math.floor(request.expiresAt.getTime() / 1000),
      },
      { idempotencyKey: `checkout_${request.reference}` },
    );
    if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a URL`);
    return { sessionId: session.id, redirectUrl: session.url };
  }

  async paymentState(sessionId: string): Promise<HostedPaymentState> {
    const session = await this.stripe.checkout.sessions.retrieve(sessionId, {
      expand: ['payment_intent.latest_charge.balance_transaction', 'payment_intent.payment_method'],
    });
    if (session.status === 'expired') return { state: 'expired' };
    const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
    // An open session may have seen declined attempts: the payer can still try again on Stripe's page.
    if (session.status === 'open' || !intent) return { state: 'open', redirectUrl: session.url };
    return intentState(intent);
  }

  async cancelPayment(sessionId: string): Promise<void> {
    await this.stripe.checkout.sessions.expire(sessionId);
  }

  async startCardSetup(request: HostedSetupRequest): Promise<HostedSession> {
    // One customer per token, whichever attempt makes it: a later attempt (the payer came back, or
    // saves a new card after the last was removed) replays the same request under the same key, so
    // nothing of one attempt (its id) goes into it.
    const { attempt_id: _attempt, ...customerMetadata } = request.metadata;
    const customer = await this.stripe.customers.create(
      { email: request.email, description: request.description, metadata: customerMetadata },
      { idempotencyKey: `customer_${request.customerReference}` },
    );
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'setup',
        customer: customer.id,
        // Stripe offers the methods enabled in the account's Dashboard that can be saved for this
        // currency (cards); the service's merchants are Malaysian.
        currency: SETUP_CURRENCY,
        metadata: request.metadata,
        setup_intent_data: { metadata: request.metadata, description: request.description },
        success_url: request.returnUrl.replace('{SESSION_ID}', '{CHECKOUT_SESSION_ID}'),
        cancel_url: request.cancelUrl,
      },
      { idempotencyKey: `setup_${request.reference}` },
    );
    if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a URL`);
    return { sessionId: session.id, redirectUrl: session.url };
  }

  async setupState(sessionId: string): Promise<HostedSetupState> {
    const session = await this.stripe.checkout.sessions.retrieve(sessionId, { expand: ['setup_intent.payment_method'] });
    if (session.status === 'expired') return { state: 'expired' };
    const intent = typeof session.setup_intent === 'object' ? session.setup_intent : null;
    if (session.status === 'open' || !intent) return { state: 'open', redirectUrl: session.url };
    const method = typeof intent.payment_method === 'object' ? intent.payment_method : null;
    const customer = idOf(intent.customer) ?? idOf(session.customer);
    if (intent.status !== 'succeeded' || !method?.card || !customer) {
      const error = intent.last_setup_error;
      return { state: 'failed', code: error ? declineCodeOf(error) : 'setup_failed', message: error?.message ?? 'The card could not be saved.' };
    }
    return {
      state: 'saved',
      card: {
        acquirerToken: savedCardToken(customer, method.id),
        brand: method.card.brand,
        last4: method.card.last4,
        expMonth: method.card.exp_month,
        expYear: method.card.exp_year,
      },
    };
  }

  async chargeSavedCard(request: ChargeRequest): Promise<ChargeResult> {
    const { customer, paymentMethod } = splitSavedCardToken(request.acquirerToken);
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          customer,
          payment_method: paymentMethod,
          off_session: true,
          confirm: true,
          return_url: this.options.returnUrl,
          description: request.description,
          ...(request.metadata ? { metadata: request.metadata } : {}),
          expand: ['latest_charge.balance_transaction'],
        },
        { idempotencyKey: `charge_${request.reference}` },
      );
      const state = intentState(intent);
      if (state.state === 'paid') return { outcome: 'paid', chargeId: intent.id, balance: state.balance ?? null };
      if (state.state === 'processing') return { outcome: 'pending', chargeId: intent.id };
      if (state.state === 'failed') return { outcome: 'declined', code: state.code, message: state.message, chargeId: intent.id };
      return { outcome: 'pending', chargeId: intent.id };
    } catch (error) {
      // A decline is an answer, not a failure to ask: Stripe says it with a card error (HTTP 402).
      if (error instanceof stripeSdk().errors.StripeCardError) {
        return { outcome: 'declined', code: declineCodeOf(error), message: error.message, chargeId: error.payment_intent?.id ?? null };
      }
      // Stripe refused the request itself (bad parameters, a revoked or wrong key): nothing was charged, so
      // the charge has failed. Anything else (no answer, Stripe's 5xx, rate limits, a concurrent use of the
      // idempotency key) leaves the outcome unknown, and the pending sweep asks again.
      if (isRefusedRequest(error)) {
        return { outcome: 'declined', code: 'processing_error', message: `Stripe refused the charge: ${error.message}`, chargeId: null };
      }
      throw error;
    }
  }

  async chargeState(paymentReference: string): Promise<HostedPaymentState> {
    return intentState(await this.stripe.paymentIntents.retrieve(paymentReference, { expand: ['latest_charge.balance_transaction', 'payment_method'] }));
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    try {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: request.paymentReference,
          amount: request.amount,
          ...(request.acquirerReason ? { reason: request.acquirerReason } : {}),
          metadata: { refund_id: request.reference, ...(request.reason ? { reason: request.reason.slice(0, 500) } : {}) },
        },
        { idempotencyKey: `refund_${request.reference}` },
      );
      const settled = toAcquirerRefund(refund);
      if (settled.status === 'succeeded') return { outcome: 'succeeded', refundId: refund.id };
      if (settled.status === 'pending') return { outcome: 'pending', refundId: refund.id };
      return { outcome: 'failed', code: settled.failureCode ?? 'refund_failed', message: settled.failureMessage ?? 'The refund failed.', refundId: refund.id };
    } catch (error) {
      // Stripe refusing the request itself (the charge is already refunded, disputed, ...) is a failed refund.
      if (error instanceof stripeSdk().errors.StripeInvalidRequestError) {
        return { outcome: 'failed', code: error.code ?? 'refund_declined', message: error.message, refundId: null };
      }
      throw error;
    }
  }

  async forgetSavedCard(acquirerToken: string): Promise<void> {
    const { paymentMethod } = splitSavedCardToken(acquirerToken);
    try {
      await this.stripe.paymentMethods.detach(paymentMethod);
    } catch (error) {
      // Stripe refuses to detach a PaymentMethod no longer attached (an earlier detach whose answer
      // was lost, or one made in its Dashboard): what it holds now says whether the card is gone.
      if (!(error instanceof stripeSdk().errors.StripeInvalidRequestError)) throw error;
      if (error.code === 'resource_missing') return;
      const method = await this.stripe.paymentMethods.retrieve(paymentMethod);
      if (method.customer) throw error;
    }
  }

  async refunds(paymentReference: string): Promise<AcquirerRefund[]> {
    const found: AcquirerRefund[] = [];
    for await (const refund of this.stripe.refunds.list({ payment_intent: paymentReference, limit: 100 })) found.push(toAcquirerRefund(refund));
    return found;
  }

  readNotification(rawBody: Buffer, signature: string | undefined): AcquirerNotification {
    if (!this.account.webhookSecret)
      throw new NotificationRefused('no Stripe webhook signing secret is set for this business (set-provider, STRIPE_WEBHOOK_SECRET)');
    if (!signature) throw new NotificationRefused('the Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.account.webhookSecret);
    } catch (error) {
      throw new NotificationRefused((error as Error).message);
    }
    const base = { eventId: event.id, type: event.type };
    const object = event.data.object as unknown as Record<string, unknown>;
    if (SESSION_EVENTS.includes(event.type)) {
      const session = object as unknown as Stripe.Checkout.Session;
      if (session.mode === 'setup') return { ...base, about: 'setup_session', sessionId: session.id, attemptId: session.metadata?.attempt_id ?? null };
      return { ...base, about: 'payment_session', sessionId: session.id, paymentId: session.metadata?.payment_id ?? session.client_reference_id ?? null };
    }
    if (INTENT_EVENTS.includes(event.type)) return { ...base, about: 'payment', paymentReference: String(object.id) };
    if (REFUND_EVENTS.includes(event.type)) {
      const paymentReference = idOf(object.payment_intent as string | { id: string } | null);
      if (paymentReference) return { ...base, about: 'refunds', paymentReference };
    }
    if (PAYOUT_EVENTS.includes(event.type)) return { ...base, about: 'payout', payoutId: String(object.id) };
    return { ...base, about: 'nothing' };
  }

  async paymentBalance(paymentReference: string): Promise<BalanceEntry | null> {
    const intent = await this.stripe.paymentIntents.retrieve(paymentReference, { expand: ['latest_charge.balance_transaction'] });
    const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
    const transaction = typeof charge?.balance_transaction === 'object' ? charge.balance_transaction : null;
    return transaction ? toBalanceEntry(transaction, intent.id) : null;
  }

  async refundBalance(refundId: string): Promise<BalanceEntry[]> {
    const refund = await this.stripe.refunds.retrieve(refundId, { expand: ['balance_transaction', 'failure_balance_transaction'] });
    const paymentReference = idOf(refund.payment_intent);
    return [refund.balance_transaction, refund.failure_balance_transaction]
      .filter((transaction): transaction is Stripe.BalanceTransaction => typeof transaction === 'object' && transaction !== null)
      .map((transaction) => toBalanceEntry(transaction, paymentReference));
  }

  async payoutsCreatedSince(since: Date): Promise<AcquirerPayout[]> {
    const found: AcquirerPayout[] = [];
    for await (const payout of this.stripe.payouts.list({ created: { gte: Math.floor(since.getTime() / 1000) }, limit: 100 }))
      found.push(toAcquirerPayout(payout));
    // Stripe lists newest first.
    return found.reverse();
  }

  async payoutEntries(payoutId: string): Promise<BalanceEntry[]> {
    const found: BalanceEntry[] = [];
    // The source expanded, for the PaymentIntent each charge or refund belongs to.
    for await (const transaction of this.stripe.balanceTransactions.list({ payout: payoutId, limit: 100, expand: ['data.source'] })) {
      if (transaction.type !== 'payout') found.push(toBalanceEntry(transaction, paymentReferenceOfSource(transaction.source)));
    }
    return found;
  }

  async payout(payoutId: string): Promise<AcquirerPayout | null> {
    try {
      return toAcquirerPayout(await this.stripe.payouts.retrieve(payoutId));
    } catch (error) {
      if (error instanceof stripeSdk().errors.StripeInvalidRequestError && error.code === 'resource_missing') return null;
      throw error;
    }
  }
}
