// Money is integer minor units (cents) inside the service. These functions are the only places where
// text or JSON numbers from the boundary become cents, and cents become JSON numbers in currency units.

/** Payment-link amounts, in cents (the seed's limits: docs/compatibility.md, Money and limits). Open-link minimum amounts use the same bounds. */
export const AMOUNT_MIN_CENTS = 500;
export const AMOUNT_MAX_CENTS = 3_000_000;

export type DecimalParse =
  | { kind: 'ok'; cents: bigint }
  | { kind: 'not-a-number' }
  /** More than two decimals: `cents` is the value truncated towards zero. */
  | { kind: 'too-precise'; cents: bigint };

const DECIMAL = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

/** The digits after the second decimal, ignoring trailing zeros ("1.2500" has none). Linear in the input. */
function hasDigitsBeyondCents(fraction: string): boolean {
  for (let i = fraction.length - 1; i >= 2; i -= 1) if (fraction[i] !== '0') return true;
  return false;
}

/**
 * Reads a decimal amount in currency units ("100.00", "25.5", 25.5) as cents without floating-point
 * arithmetic. More than two decimals is reported (with the value truncated to cents, for bound checks).
 */
export function parseUnits(value: string | number): DecimalParse {
  if (typeof value === 'number' && !Number.isFinite(value)) return { kind: 'not-a-number' };
  // String(number) is the shortest text that round-trips, so 25.5 reads as "25.5", never 25.4999...
  const text = typeof value === 'number' ? numberToPlainText(value) : value;
  const match = DECIMAL.exec(text);
  if (!match) return { kind: 'not-a-number' };
  const [, sign, whole = '0', fraction = ''] = match;
  const cents = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
  const signed = sign === '-' ? -cents : cents;
  return hasDigitsBeyondCents(fraction) ? { kind: 'too-precise', cents: signed } : { kind: 'ok', cents: signed };
}

/** Whether a parsed amount lies within [min, max] cents, judged on the exact value, not the truncated one. */
export function compareToBounds(parsed: Exclude<DecimalParse, { kind: 'not-a-number' }>, min: number, max: number): 'below' | 'above' | 'within' {
  const cut = parsed.kind === 'too-precise';
  const { cents } = parsed;
  // Truncation moves a positive value down and a negative one up, towards zero.
  if (cents < BigInt(min) || (cut && cents < 0n && cents === BigInt(min))) return 'below';
  if (cents > BigInt(max) || (cut && cents >= 0n && cents === BigInt(max))) return 'above';
  return 'within';
}

function numberToPlainText(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Exponent forms only appear below 1e-6 or from 1e21: both far outside any bound we accept, so an
  // approximation that keeps the order of magnitude is enough for the bound check that follows.
  return Math.abs(value) >= 1 ? BigInt(Math.trunc(value)).toString() : value.toFixed(20);
}

/** Reads a payment-link amount already validated as an integer or an integer string. */
export function parseCents(value: number | string): number {
  return typeof value === 'number' ? value : Number(value);
}

/** Cents to a JSON number in currency units: 2550 -> 25.5, 10000 -> 100. */
export function centsToUnits(cents: number | bigint): number {
  const value = BigInt(cents);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const text = `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
  return Number(text);
}

/** Cents as text in currency units with two decimals, for pages and e-mails: 2550 -> "25.50". */
export function formatUnits(cents: number | bigint): string {
  const value = BigInt(cents);
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '-' : ''}${groupThousands((abs / 100n).toString())}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * What people read where the currency is named: the payer pages, their e-mails and the poster all
 * write `RM 1,500.00` (Malaysians write RM, not MYR), as the console does (`console/src/lib/money.ts`,
 * which cannot import the server). Same in every language: the amount is grouped with commas and a
 * full stop in English, Malay and Chinese alike.
 */
export function formatMoney(currency: string, cents: number | bigint): string {
  return `${CURRENCY_SYMBOLS[currency] ?? currency} ${formatUnits(cents)}`;
}

/** Where people write a symbol rather than the code; any other currency is written by its code. */
const CURRENCY_SYMBOLS: Record<string, string> = { MYR: 'RM', SGD: 'S$', USD: 'US$' };

/** "1234567" -> "1,234,567", in one pass (the lookahead pattern for this is quadratic in the digits). */
function groupThousands(digits: string): string {
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}
