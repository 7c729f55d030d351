import { describe, expect, it } from 'vitest';
import { AMOUNT_MAX_CENTS, AMOUNT_MIN_CENTS, centsToUnits, formatMoney, formatUnits, parseCents, parseUnits } from '../../server/domain/money.js';

describe('parseUnits: currency units to cents without floating point', () => {
  it('reads decimal strings with up to two decimals', () => {
    expect(parseUnits('100.00')).toEqual({ kind: 'ok', cents: 10000n });
    expect(parseUnits('25.5')).toEqual({ kind: 'ok', cents: 2550n });
    expect(parseUnits('5')).toEqual({ kind: 'ok', cents: 500n });
    expect(parseUnits('0.01')).toEqual({ kind: 'ok', cents: 1n });
    expect(parseUnits('30000.00')).toEqual({ kind: 'ok', cents: 3000000n });
  });

  it('reads JSON numbers by their shortest text, so binary fractions do not lose a cent', () => {
    expect(parseUnits(25.5)).toEqual({ kind: 'ok', cents: 2550n });
    // 0.29 * 100 is 28.999999999999996 in floating point; the cents must still be 29.
    expect(parseUnits(0.29)).toEqual({ kind: 'ok', cents: 29n });
    expect(parseUnits(1.15)).toEqual({ kind: 'ok', cents: 115n });
    expect(parseUnits(100)).toEqual({ kind: 'ok', cents: 10000n });
  });

  it('accepts trailing zeros beyond two decimals: they add no precision', () => {
    expect(parseUnits('4.990')).toEqual({ kind: 'ok', cents: 499n });
    expect(parseUnits('100.0000')).toEqual({ kind: 'ok', cents: 10000n });
  });

  it('reports more than two significant decimals as too precise, with the value truncated to cents', () => {
    expect(parseUnits('4.999')).toEqual({ kind: 'too-precise', cents: 499n });
    expect(parseUnits('5.001')).toEqual({ kind: 'too-precise', cents: 500n });
    expect(parseUnits(0.1 + 0.2)).toEqual({ kind: 'too-precise', cents: 30n });
    expect(parseUnits(1e-7)).toEqual({ kind: 'too-precise', cents: 0n });
  });

  it('keeps the sign of negative amounts so that the minimum bound rejects them', () => {
    expect(parseUnits('-5')).toEqual({ kind: 'ok', cents: -500n });
    expect(parseUnits(-25.5)).toEqual({ kind: 'ok', cents: -2550n });
  });

  it.each(['abc', '', ' 1', '1 ', '1,000.00', '5.', '+5', '1e3', '0x10', '--5', 'NaN', 'Infinity'])('rejects %j as not a number', (text) => {
    expect(parseUnits(text)).toEqual({ kind: 'not-a-number' });
  });

  it('rejects NaN and the infinities as not a number', () => {
    expect(parseUnits(Number.NaN)).toEqual({ kind: 'not-a-number' });
    expect(parseUnits(Number.POSITIVE_INFINITY)).toEqual({ kind: 'not-a-number' });
    expect(parseUnits(Number.NEGATIVE_INFINITY)).toEqual({ kind: 'not-a-number' });
  });

  it('keeps the order of magnitude of numbers JavaScript prints with an exponent', () => {
    expect(parseUnits(1e21)).toEqual({ kind: 'ok', cents: 10n ** 23n });
    expect(parseUnits(-1e21)).toEqual({ kind: 'ok', cents: -(10n ** 23n) });
  });

  it('reads huge digit strings exactly instead of overflowing to a small or infinite value', () => {
    expect(parseUnits('99999999999999999999')).toEqual({ kind: 'ok', cents: 9999999999999999999900n });
    const digits = '9'.repeat(100_000);
    expect(parseUnits(digits)).toEqual({ kind: 'ok', cents: BigInt(digits) * 100n });
    expect(parseUnits(`1.${'0'.repeat(100_000)}`)).toEqual({ kind: 'ok', cents: 100n });
    expect(parseUnits(`1.${'0'.repeat(1_000)}1`)).toEqual({ kind: 'too-precise', cents: 100n });
  });

  it('reads a long run of zeros followed by a digit as too precise', () => {
    // The schema caps minimum_amount at 32 characters; parseUnits itself stays linear for longer text.
    expect(parseUnits(`1.${'0'.repeat(100_000)}1`)).toEqual({ kind: 'too-precise', cents: 100n });
  });
});

describe('centsToUnits: cents to a JSON number in currency units', () => {
  it('divides by one hundred exactly', () => {
    expect(centsToUnits(2550)).toBe(25.5);
    expect(centsToUnits(10000)).toBe(100);
    expect(centsToUnits(29)).toBe(0.29);
    expect(centsToUnits(5)).toBe(0.05);
    expect(centsToUnits(0)).toBe(0);
    expect(centsToUnits(AMOUNT_MIN_CENTS)).toBe(5);
    expect(centsToUnits(AMOUNT_MAX_CENTS)).toBe(30000);
  });

  it('keeps the sign of negative cents', () => {
    expect(centsToUnits(-2550)).toBe(-25.5);
    expect(centsToUnits(-5)).toBe(-0.05);
    expect(centsToUnits(-100n)).toBe(-1);
  });

  /* eslint-disable no-loss-of-precision -- the expected values are the doubles as JavaScript prints them */
  it('rounds bigint totals beyond 2^53 once, from the exact decimal, not from a pre-rounded Number', () => {
    expect(centsToUnits(2n ** 53n + 1n)).toBe(90071992547409.93);
    // Number(cents) / 100 would round twice and give 11529215046068550.
    expect(centsToUnits(1152921504606854895n)).toBe(11529215046068548.95);
    expect(centsToUnits(10n ** 30n)).toBe(1e28);
    expect(centsToUnits(-(2n ** 53n + 1n))).toBe(-90071992547409.93);
  });
  /* eslint-enable no-loss-of-precision */

  it('refuses fractional cents instead of rounding them', () => {
    expect(() => centsToUnits(12.5)).toThrow(RangeError);
  });
});

describe('formatUnits: cents as text with two decimals for pages and e-mails', () => {
  it('always shows two decimals', () => {
    expect(formatUnits(2550)).toBe('25.50');
    expect(formatUnits(10000)).toBe('100.00');
    expect(formatUnits(5)).toBe('0.05');
    expect(formatUnits(0)).toBe('0.00');
  });

  it('groups thousands with commas', () => {
    expect(formatUnits(100000)).toBe('1,000.00');
    expect(formatUnits(3000000)).toBe('30,000.00');
    expect(formatUnits(123456789)).toBe('1,234,567.89');
    expect(formatUnits(99999)).toBe('999.99');
  });

  it('shows negative amounts with a leading minus', () => {
    expect(formatUnits(-2550)).toBe('-25.50');
    expect(formatUnits(-5)).toBe('-0.05');
    expect(formatUnits(-123456789n)).toBe('-1,234,567.89');
  });

  it('formats bigint amounts beyond 2^53 exactly', () => {
    expect(formatUnits(2n ** 53n + 1n)).toBe('90,071,992,547,409.93');
  });
});

describe('parseCents: a validated payment-link amount to cents', () => {
  it('takes JSON integers as they are and reads integer strings', () => {
    expect(parseCents(1000)).toBe(1000);
    expect(parseCents('1500')).toBe(1500);
    expect(parseCents('0500')).toBe(500);
    expect(parseCents('3000000')).toBe(3000000);
  });
});

describe('formatMoney: money as people read it on payer pages, e-mails and posters', () => {
  it('writes ringgit as RM with a thousands separator and two decimals', () => {
    expect(formatMoney('MYR', 150000)).toBe('RM 1,500.00');
    expect(formatMoney('MYR', 500)).toBe('RM 5.00');
    expect(formatMoney('MYR', 1)).toBe('RM 0.01');
    expect(formatMoney('MYR', 3_000_000)).toBe('RM 30,000.00');
    expect(formatMoney('MYR', 123_456_789_012n)).toBe('RM 1,234,567,890.12');
  });

  it('writes the symbol people use where there is one, and the code otherwise', () => {
    expect(formatMoney('SGD', 1050)).toBe('S$ 10.50');
    expect(formatMoney('USD', 1050)).toBe('US$ 10.50');
    expect(formatMoney('EUR', 1050)).toBe('EUR 10.50');
  });
});
