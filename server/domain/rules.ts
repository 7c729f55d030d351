// Validation rules the OpenAPI schema cannot express. Each returns Laravel-style field errors and only
// judges a field the schema has accepted the type of, so a field is never reported twice.
import { AMOUNT_MAX_CENTS, AMOUNT_MIN_CENTS, centsToUnits, compareToBounds, parseUnits } from './money.js';

export type FieldErrors = Record<string, string[]>;

/**
 * `amount` as an integer string: the schema bounds (minimum/maximum) only apply to JSON numbers, and
 * its pattern only restates this rule for tools (`x-restates`).
 */
export function amountStringRule(body: unknown): FieldErrors {
  const amount = field(body, 'amount');
  if (typeof amount !== 'string') return {};
  if (!/^[0-9]+$/.test(amount)) return { amount: ['The amount must be an integer.'] };
  const cents = BigInt(amount);
  if (cents < BigInt(AMOUNT_MIN_CENTS)) return { amount: [`The amount must be at least ${AMOUNT_MIN_CENTS}.`] };
  if (cents > BigInt(AMOUNT_MAX_CENTS)) return { amount: [`The amount must not be greater than ${AMOUNT_MAX_CENTS}.`] };
  return {};
}

/** `minimum_amount`: a decimal in currency units with at most two decimals, within the payment-link bounds. */
export function minimumAmountRule(body: unknown): FieldErrors {
  const value = field(body, 'minimum_amount');
  if ((typeof value !== 'string' && typeof value !== 'number') || value === '') return {};
  const parsed = parseUnits(value);
  if (parsed.kind === 'not-a-number') return { minimum_amount: ['The minimum amount must be a number.'] };
  const messages: string[] = [];
  const bounds = compareToBounds(parsed, AMOUNT_MIN_CENTS, AMOUNT_MAX_CENTS);
  if (bounds === 'below') messages.push(`The minimum amount must be at least ${centsToUnits(AMOUNT_MIN_CENTS)}.`);
  if (bounds === 'above') messages.push(`The minimum amount must not be greater than ${centsToUnits(AMOUNT_MAX_CENTS)}.`);
  if (parsed.kind === 'too-precise') messages.push('The minimum amount format is invalid.');
  return messages.length ? { minimum_amount: messages } : {};
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
}

/** `expires_at`, when given, lies in the future (Laravel's `after:now`); its shape is the schema's to check. */
export function expiresAtRule(body: unknown): FieldErrors {
  const value = field(body, 'expires_at');
  if (typeof value !== 'string') return {};
  const at = Date.parse(value);
  if (Number.isNaN(at) || at > Date.now()) return {};
  return { expires_at: ['The expires at must be a date after now.'] };
}
