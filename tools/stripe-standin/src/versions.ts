// Where Stripe's API changed after the vendored description was written, in ways the official SDK we
// use (23.1.0, pinned to 2026-10-28.endive) already speaks. The stand-in follows the request's
// Stripe-Version in these few places, so code that would fail against real Stripe fails here too:
//
// - 2023-08-16: a PaymentIntent created without payment_method_types takes the payment methods
//   enabled in the Dashboard (automatic_payment_methods, redirects allowed), and confirming one then
//   needs a return_url unless redirects are turned off.
// - 2026-09-30.endive: payment_method_types can no longer be written on Checkout Sessions and
//   PaymentIntents (400 payment_method_types_no_longer_supported); allowed_payment_method_types
//   filters the Dashboard's methods instead. The vendored description predates that parameter, so it
//   is taken out before the rest of the request is validated against it, and checked here against
//   Stripe's own list of payment method types as the vendored description gives it: on a Checkout
//   Session, the enum of the payment_method_types it replaces; on a PaymentIntent, whose
//   payment_method_types takes any string there, the enum of a PaymentMethod's type. A method Stripe
//   added after the description was written is refused here though Stripe takes it.
import Stripe from 'stripe';
import { invalidRequest, type StripeApiError } from './errors.js';
import type { ParamProblem, SubsetDocument } from './spec.js';

export const AUTOMATIC_PAYMENT_METHODS = '2023-08-16';
export const ENDIVE = '2026-09-30';

const VERSION = /^\d{4}-\d{2}-\d{2}(?:\.[a-z]{1,20})?$/;

/** The version a request speaks: its Stripe-Version header, else the account's, else the SDK's. */
export function requestVersion(header: string | undefined, accountVersion: string | undefined): string {
  return header ?? accountVersion ?? Stripe.API_VERSION;
}

export function isVersion(text: string): boolean {
  return VERSION.test(text);
}

export function atLeast(version: string, date: string): boolean {
  return version.slice(0, 10) >= date;
}

/** Walks a parsed JSON document; undefined where a step is missing. */
function at(node: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined), node);
}

/** A list of strings the description holds at `keys`: a subset cut without it fails here rather than taking anything. */
function enumAt(document: SubsetDocument, ...keys: string[]): readonly string[] {
  const values = at(document, ...keys);
  if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === 'string')) {
    throw new Error(`the vendored Stripe description has no list of values at ${keys.join(' > ')}`);
  }
  return values as string[];
}

const FORM = 'application/x-www-form-urlencoded';

/** The params newer than the vendored description, each with where that description lists the values its items may take. */
const NEWER_PARAMS: Record<string, Record<string, (document: SubsetDocument) => readonly string[]>> = {
  'post /v1/checkout/sessions': {
    allowed_payment_method_types: (document) =>
      enumAt(
        document,
        'paths',
        '/v1/checkout/sessions',
        'post',
        'requestBody',
        'content',
        FORM,
        'schema',
        'properties',
        'payment_method_types',
        'items',
        'enum',
      ),
  },
  'post /v1/payment_intents': {
    allowed_payment_method_types: (document) => enumAt(document, 'components', 'schemas', 'payment_method', 'properties', 'type', 'enum'),
  },
};

/** What is wrong with a list of payment method types: not a list of strings, or an item Stripe does not list. */
function listProblems(name: string, value: unknown, allowed: readonly string[]): ParamProblem[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return [{ message: 'Invalid array', param: name }];
  return value.flatMap((item: string, index) =>
    allowed.includes(item) ? [] : [{ message: `Invalid ${name}[${index}]: must be one of ${allowed.join(', ')}`, param: `${name}[${index}]` }],
  );
}

/**
 * Takes the params newer than the vendored description out of a body (checking them here) when the
 * request's version has them; what remains is validated against the description.
 */
export function takeNewerParams(
  document: SubsetDocument,
  operationKey: string,
  version: string,
  body: Record<string, unknown>,
): { rest: Record<string, unknown>; newer: Record<string, unknown>; problems: ParamProblem[] } {
  if (!atLeast(version, ENDIVE)) return { rest: body, newer: {}, problems: [] };
  const params = NEWER_PARAMS[operationKey] ?? {};
  const rest = Object.fromEntries(Object.entries(body).filter(([name]) => !(name in params)));
  const newer: Record<string, unknown> = {};
  const problems: ParamProblem[] = [];
  for (const [name, allowedIn] of Object.entries(params).filter(([candidate]) => candidate in body)) {
    const found = listProblems(name, body[name], allowedIn(document));
    if (found.length === 0) newer[name] = body[name];
    problems.push(...found);
  }
  return { rest, newer, problems };
}

/** A request real Stripe refuses at its version though the vendored description (older) allows it. */
export function refusedAtVersion(operationKey: string, version: string, params: Record<string, unknown>): StripeApiError | undefined {
  if (NEWER_PARAMS[operationKey] && atLeast(version, ENDIVE) && 'payment_method_types' in params) {
    return invalidRequest(
      `\`payment_method_types\` is no longer supported on API version ${version}: use \`allowed_payment_method_types\` or the payment methods enabled in the Dashboard.`,
      'payment_method_types',
      'payment_method_types_no_longer_supported',
    );
  }
  return undefined;
}
