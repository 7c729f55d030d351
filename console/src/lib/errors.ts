// The API's 422 answers (Laravel's shape: `errors` maps each field to its messages) shown on the form's
// fields; a message for a field the form does not show goes in the form's general message. The API's
// limits on an amount are numbers in its unit (cents for a payment link's `amount`, currency units for an
// open link's `minimum_amount`): on a money field they read as money, "at most RM 30,000.00".
import { formatCents, formatUnits } from './money.js';

/** A field that holds money, and the unit the API counts it in. */
export interface MoneyField {
  currency: string;
  unit: 'cents' | 'units';
}

// A number that is a limit, not the start of "50 characters": digits not followed by more of the number.
const AT_MOST = /must not be greater than (\d{1,15}(?:\.\d{1,2})?)(?!\d|\.\d| characters)/g;
const AT_LEAST = /must be at least (\d{1,15}(?:\.\d{1,2})?)(?!\d|\.\d| characters)/g;

/** The API's message about an amount, its limits written as money. */
export function moneyMessage(text: string, money: MoneyField): string {
  const written = (limit: string) => (money.unit === 'cents' ? formatCents(Number(limit), money.currency) : formatUnits(limit, money.currency));
  return text
    .replace(AT_MOST, (_, limit: string) => `must be at most ${written(limit)}`)
    .replace(AT_LEAST, (_, limit: string) => `must be at least ${written(limit)}`);
}

export interface FieldErrors {
  fields: Record<string, string>;
  general: string | undefined;
}

export function fieldErrors(error: unknown, shownFields: readonly string[], money: Readonly<Record<string, MoneyField>> = {}): FieldErrors {
  const body = (error ?? {}) as { message?: unknown; errors?: unknown };
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  if (typeof body.errors === 'object' && body.errors !== null) {
    for (const [field, messages] of Object.entries(body.errors as Record<string, unknown>)) {
      const said = Array.isArray(messages) ? messages.map(String).join(' ') : String(messages);
      const text = money[field] ? moneyMessage(said, money[field]) : said;
      if (shownFields.includes(field)) fields[field] = text;
      else elsewhere.push(text);
    }
  }
  const message = typeof body.message === 'string' ? body.message : undefined;
  const general = elsewhere.length > 0 ? elsewhere.join(' ') : Object.keys(fields).length === 0 ? message : undefined;
  return { fields, general };
}

/**
 * Whether the API refused a request as invalid (a 422, whose body maps fields to messages): asking
 * again gets the same answer, so a query shows it at once rather than after its retries.
 */
export function isValidationRefusal(error: unknown): boolean {
  const errors = (error as { errors?: unknown } | null | undefined)?.errors;
  return typeof errors === 'object' && errors !== null && !Array.isArray(errors);
}

/**
 * Whether asking again gets the same refusal: a 422 (the request is invalid) or a 403 (the caller lacks
 * the permission or the credential), so a query shows it at once rather than after its retries.
 */
export function isFinalRefusal(error: unknown): boolean {
  if (isValidationRefusal(error)) return true;
  const body = error as { required_permission?: unknown; required_credential?: unknown } | null | undefined;
  return typeof body?.required_permission === 'string' || typeof body?.required_credential === 'string';
}

/** What a refused action says in a toast: the API's message, or a plain one. */
export function refusalMessage(error: unknown): string {
  return fieldErrors(error, []).general ?? 'The service refused this.';
}
