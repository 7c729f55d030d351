// What a card form can check before anything is sent to an acquirer: Luhn, expiry, CVC shape.
// Card numbers and CVCs never leave this module except to the acquirer; only brand and last four
// digits are ever stored or logged.

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'unknown';

export interface CardInput {
  number: string;
  /** As typed: MM/YY (also accepts MM/YYYY and MMYY). */
  expiry: string;
  cvc: string;
}

export interface Card {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  brand: CardBrand;
  last4: string;
}

export type CardField = 'number' | 'expiry' | 'cvc';
export type CardCheck = { ok: true; card: Card } | { ok: false; errors: Partial<Record<CardField, string>> };

export function digitsOnly(value: string): string {
  return value.replace(/[\s-]/g, '');
}

export function passesLuhn(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i += 1) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function brandOf(number: string): CardBrand {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  return 'unknown';
}

/** "MM / YYYY" is the longest expiry anyone types; longer text is refused before it is read. */
export const EXPIRY_MAX_LENGTH = 9;

/**
 * A card is valid through the last day of its expiry month. Whitespace is dropped first: a pattern
 * with optional whitespace on both sides of an optional slash backtracks polynomially on long input.
 */
export function parseExpiry(value: string, now: Date): { month: number; year: number } | 'malformed' | 'expired' {
  if (value.length > EXPIRY_MAX_LENGTH) return 'malformed';
  const match = /^(\d{1,2})\/?(\d{2}|\d{4})$/.exec(value.replace(/\s/g, ''));
  if (!match) return 'malformed';
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return 'malformed';
  const firstDayAfter = Date.UTC(year, month, 1);
  if (firstDayAfter <= now.getTime()) return 'expired';
  if (year > now.getUTCFullYear() + 20) return 'malformed';
  return { month, year };
}

export function checkCard(input: CardInput, now = new Date()): CardCheck {
  const errors: Partial<Record<CardField, string>> = {};
  const number = digitsOnly(input.number);
  if (!passesLuhn(number)) errors.number = 'The card number is not valid.';
  const expiry = parseExpiry(input.expiry, now);
  if (expiry === 'malformed') errors.expiry = 'Enter the expiry date as MM/YY.';
  else if (expiry === 'expired') errors.expiry = 'The card has expired.';
  const brand = brandOf(number);
  const cvcLength = brand === 'amex' ? 4 : 3;
  if (!new RegExp(`^\\d{${cvcLength}}$`).test(input.cvc.trim())) errors.cvc = `The CVC must be ${cvcLength} digits.`;
  if (Object.keys(errors).length > 0 || typeof expiry === 'string') return { ok: false, errors };
  return { ok: true, card: { number, expMonth: expiry.month, expYear: expiry.year, cvc: input.cvc.trim(), brand, last4: number.slice(-4) } };
}
