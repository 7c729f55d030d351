// What a payer does on a Checkout Session's hosted page: pay by card, FPX or GrabPay (payment mode),
// or save a card (setup mode). Form values are capped and checked here; the card number goes no
// further than choosing the test card's behaviour and its brand and last four digits.
import { createHash } from 'node:crypto';
import type Stripe from 'stripe';
import { FPX_BANKS, passesLuhn, testCard, type Decline } from './cards.js';
import * as objects from './objects.js';
import { attach, attempt, completeSession, failAuthentication, requireAction, type Context } from './payments.js';
import { newId } from './state.js';

export type PayerField = 'email' | 'billingName' | 'cardNumber' | 'cardExpiry' | 'cardCvc' | 'bank';

/** The form as posted; `pay` is the button pressed (card, fpx:succeed, fpx:later, fpx:fail, grabpay:succeed, grabpay:fail). */
export type PayerForm = Partial<Record<PayerField | 'pay', string>>;

export const FIELD_MAX_LENGTH: Record<PayerField, number> = { email: 254, billingName: 100, cardNumber: 23, cardExpiry: 9, cardCvc: 4, bank: 40 };

export type FieldErrors = Partial<Record<PayerField, string>>;
/** What the form shows again after a refusal: never the card's number, expiry or CVC. */
export type FormValues = Partial<Record<'email' | 'billingName' | 'bank', string>>;

export type Submission = { done: true; redirect: string } | { done: false; status: number; alert?: string; errors: FieldErrors; values: FormValues };

const REDIRECT_FAILURE = 'We are unable to authenticate your payment method. Please choose a different payment method and try again.';

function value(form: PayerForm, field: PayerField): string {
  return (form[field] ?? '').slice(0, FIELD_MAX_LENGTH[field]).trim();
}

function isEmail(text: string): boolean {
  const at = text.indexOf('@');
  const domain = text.slice(at + 1);
  return at > 0 && at === text.lastIndexOf('@') && !/\s/.test(text) && domain.includes('.') && !domain.startsWith('.') && !domain.endsWith('.');
}

/** The e-mail the session already has (its customer_email or its customer's), or undefined if the payer must give one. */
export function knownEmail(account: Context['account'], session: Stripe.Checkout.Session): string | undefined {
  if (session.customer_email) return session.customer_email;
  const customer = typeof session.customer === 'string' ? account.get('customer', session.customer) : undefined;
  return customer?.email ?? undefined;
}

interface CardEntry {
  number: string;
  expMonth: number;
  expYear: number;
}

function readCard(form: PayerForm, errors: FieldErrors): CardEntry | undefined {
  const number = value(form, 'cardNumber').replace(/[\s-]/g, '');
  if (!passesLuhn(number)) errors.cardNumber = number === '' ? 'Your card number is incomplete.' : 'Your card number is invalid.';
  const expiry = /^(\d{2})\/?(\d{2})$/.exec(value(form, 'cardExpiry').replace(/\s/g, ''));
  const expMonth = Number(expiry?.[1]);
  const expYear = 2000 + Number(expiry?.[2]);
  const today = new Date();
  if (!expiry || expMonth < 1 || expMonth > 12) errors.cardExpiry = "Your card's expiration date is incomplete.";
  else if (expYear < today.getUTCFullYear()) errors.cardExpiry = "Your card's expiration year is in the past.";
  else if (expYear === today.getUTCFullYear() && expMonth < today.getUTCMonth() + 1) errors.cardExpiry = "Your card's expiration date is in the past.";
  if (!/^\d{3,4}$/.test(value(form, 'cardCvc'))) errors.cardCvc = "Your card's security code is incomplete.";
  if (value(form, 'billingName') === '') errors.billingName = 'Enter the name on your card.';
  return errors.cardNumber || errors.cardExpiry || errors.cardCvc ? undefined : { number, expMonth, expYear };
}

function cardMethod(ctx: Context, entry: CardEntry, name: string, email: string | null): Stripe.PaymentMethod {
  const card = testCard(entry.number);
  const method = ctx.account.add(
    objects.paymentMethod(
      {
        type: 'card',
        brand: card.brand,
        last4: entry.number.slice(-4),
        expMonth: entry.expMonth,
        expYear: entry.expYear,
        card,
        // Stripe's fingerprint: the same card number gives the same value within an account.
        fingerprint: createHash('sha256').update(`${ctx.account.id}:${entry.number}`).digest('base64url').slice(0, 16),
      },
      name,
      email,
    ),
  );
  ctx.account.cards.set(method.id, card);
  return method;
}

/** The session's PaymentIntent, made at the first attempt to pay (as Stripe does since API version 2022-08-01). */
function intentOf(ctx: Context, session: Stripe.Checkout.Session): Stripe.PaymentIntent {
  if (typeof session.payment_intent === 'string') return ctx.account.get('payment_intent', session.payment_intent)!;
  const extras = ctx.account.sessionExtras.get(session.id)!;
  const intent = ctx.account.add(
    objects.paymentIntent({
      amount: session.amount_total!,
      currency: session.currency!,
      customer: typeof session.customer === 'string' ? session.customer : null,
      description: extras.intentDescription,
      metadata: extras.intentMetadata,
      paymentMethodTypes: session.payment_method_types,
      paymentMethod: null,
    }),
  );
  session.payment_intent = intent.id;
  ctx.emit('payment_intent.created', intent);
  return intent;
}

function successRedirect(session: Stripe.Checkout.Session): string {
  return session.success_url!.replaceAll('{CHECKOUT_SESSION_ID}', session.id);
}

function declined(status: number, alert: string, values: { email: string; billingName: string; bank?: string }): Submission {
  return { done: false, status, alert, errors: {}, values };
}

export function submitPayment(ctx: Context, session: Stripe.Checkout.Session, form: PayerForm): Submission {
  const errors: FieldErrors = {};
  const email = knownEmail(ctx.account, session) ?? value(form, 'email');
  if (!isEmail(email)) errors.email = email === '' ? 'Enter your email.' : 'Your email address is invalid.';
  const values = { email: value(form, 'email'), billingName: value(form, 'billingName'), bank: value(form, 'bank') };
  const [type, outcome] = (form.pay ?? '').split(':');
  if (!type || !session.payment_method_types.includes(type)) return { done: false, status: 400, alert: 'Choose a way to pay.', errors, values };

  if (type === 'card') {
    const entry = readCard(form, errors);
    if (!entry || Object.keys(errors).length > 0) return { done: false, status: 422, errors, values };
    const method = cardMethod(ctx, entry, values.billingName, email);
    const intent = intentOf(ctx, session);
    const result: Decline | 'succeeded' = ctx.account.cards.get(method.id)!.chargeDecline ?? 'succeeded';
    attempt(ctx, intent, method, result);
    if (result !== 'succeeded') return declined(402, result.message, values);
    completeSession(ctx, session, 'paid', { name: values.billingName, email });
    return { done: true, redirect: successRedirect(session) };
  }

  if (type === 'fpx' && !Object.hasOwn(FPX_BANKS, values.bank)) errors.bank = 'Select your bank.';
  if (!['succeed', 'fail', ...(type === 'fpx' ? ['later'] : [])].includes(outcome ?? ''))
    return { done: false, status: 400, alert: 'Choose an outcome.', errors, values };
  if (Object.keys(errors).length > 0) return { done: false, status: 422, errors, values };
  const input: objects.PaymentMethodInput = type === 'fpx' ? { type: 'fpx', bank: values.bank as Stripe.PaymentMethod.Fpx.Bank } : { type: 'grabpay' };
  const method = ctx.account.add(objects.paymentMethod(input, null, email));
  const intent = intentOf(ctx, session);
  requireAction(ctx, intent, method);
  if (outcome === 'fail') {
    failAuthentication(ctx, intent, method);
    return declined(402, REDIRECT_FAILURE, values);
  }
  attempt(ctx, intent, method, outcome === 'later' ? 'pending' : 'succeeded');
  completeSession(ctx, session, outcome === 'later' ? 'unpaid' : 'paid', { name: null, email });
  return { done: true, redirect: successRedirect(session) };
}

export function submitSetup(ctx: Context, session: Stripe.Checkout.Session, form: PayerForm): Submission {
  const errors: FieldErrors = {};
  const email = knownEmail(ctx.account, session) ?? value(form, 'email');
  if (!isEmail(email)) errors.email = email === '' ? 'Enter your email.' : 'Your email address is invalid.';
  const values = { email: value(form, 'email'), billingName: value(form, 'billingName') };
  const entry = readCard(form, errors);
  if (!entry || Object.keys(errors).length > 0) return { done: false, status: 422, errors, values };
  const method = cardMethod(ctx, entry, values.billingName, email);
  const card = ctx.account.cards.get(method.id)!;
  const intent = ctx.account.get('setup_intent', session.setup_intent as string)!;
  if (card.setupDecline && card.chargeDecline) {
    intent.last_setup_error = { ...objects.cardError(card.chargeDecline, method, null), payment_method: method };
    ctx.emit('setup_intent.setup_failed', intent);
    return declined(402, card.chargeDecline.message, values);
  }
  if (typeof session.customer === 'string') attach(ctx, method, session.customer);
  Object.assign(intent, { status: 'succeeded', payment_method: method.id, latest_attempt: newId('setatt_'), last_setup_error: null });
  ctx.emit('setup_intent.succeeded', intent);
  completeSession(ctx, session, 'no_payment_required', { name: values.billingName, email });
  return { done: true, redirect: successRedirect(session) };
}
