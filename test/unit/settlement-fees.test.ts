// The sandbox acquirer's fees (domain/settlement-fees.ts): the default schedule, rounding half up to the sen,
// never more than the amount, and the setting's parser naming the part it cannot read.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_FEES, DEFAULT_SANDBOX_FEES_TEXT, feeFor, netOf, parseFeeSchedule } from '../../server/domain/settlement-fees.js';
import { SettingError } from '../../server/domain/setting-error.js';

describe('the default schedule', () => {
  it('is cards 2.5%, FPX RM 1.00 flat and GrabPay 1.5%, as its text says', () => {
    expect(feeFor('card', 10_000)).toBe(250);
    expect(feeFor('fpx', 10_000)).toBe(100);
    expect(feeFor('grabpay', 10_000)).toBe(150);
    expect(parseFeeSchedule(DEFAULT_SANDBOX_FEES_TEXT)).toEqual(DEFAULT_SANDBOX_FEES);
    expect(netOf('card', 10_000)).toBe(9_750);
  });
});

describe('feeFor', () => {
  it('rounds the percentage half up to the sen', () => {
    expect(feeFor('card', 10)).toBe(0); // 0.25 sen
    expect(feeFor('card', 20)).toBe(1); // 0.5 sen
    expect(feeFor('card', 30)).toBe(1); // 0.75 sen
    expect(feeFor('card', 123_457)).toBe(3_086); // 3086.425 sen
    expect(feeFor('grabpay', 33)).toBe(0); // 0.495 sen
    expect(feeFor('grabpay', 100)).toBe(2); // 1.5 sen
  });

  it('is never more than the amount: a small FPX payment pays its whole amount in fees, and nothing costs nothing', () => {
    expect(feeFor('fpx', 50)).toBe(50);
    expect(netOf('fpx', 50)).toBe(0);
    expect(feeFor('fpx', 100)).toBe(100);
    expect(feeFor('fpx', 101)).toBe(100);
    expect(feeFor('card', 0)).toBe(0);
    expect(feeFor('fpx', 0)).toBe(0);
  });

  it('adds a flat part to a percentage, then caps the sum at the amount', () => {
    const schedule = parseFeeSchedule('card:2.5%+50');
    expect(feeFor('card', 1_000, schedule)).toBe(75);
    expect(feeFor('card', 40, schedule)).toBe(40);
    expect(feeFor('fpx', 1_000, schedule)).toBe(100);
  });

  it('is exact on the largest amounts, where a floating-point product would not be', () => {
    expect(feeFor('card', Number.MAX_SAFE_INTEGER)).toBe(Number((BigInt(Number.MAX_SAFE_INTEGER) * 25_000n + 500_000n) / 1_000_000n));
    expect(feeFor('card', 100_000_000_000_000)).toBe(2_500_000_000_000);
  });

  it('refuses an amount that is not a whole number of sen from 0', () => {
    expect(() => feeFor('card', -1)).toThrow(RangeError);
    expect(() => feeFor('card', 10.5)).toThrow(RangeError);
  });
});

describe('parseFeeSchedule', () => {
  it('reads percentages with up to four decimals, flat sen and both, and keeps the default of a method it does not name', () => {
    expect(parseFeeSchedule(' card : 2.9% + 30 , grabpay:0.0125%')).toEqual({
      card: { millionths: 29_000, flatSen: 30 },
      fpx: DEFAULT_SANDBOX_FEES.fpx,
      grabpay: { millionths: 125, flatSen: 0 },
    });
    expect(parseFeeSchedule('FPX:0').fpx).toEqual({ millionths: 0, flatSen: 0 });
    expect(parseFeeSchedule('card:100%').card.millionths).toBe(1_000_000);
  });

  it.each([
    ['card', '"card" is not method:fee'],
    ['paypal:1%', 'unknown payment method "paypal"'],
    ['card:1%,card:2%', 'card is named twice'],
    ['card:abc', 'card: "abc" is neither a percentage'],
    ['fpx:1.50', 'fpx: "1.50" is neither a percentage'],
    ['card:2.12345%', 'card: "2.12345%" is not a percentage with at most four decimals'],
    ['card:101%', 'card: 101% is more than 100%'],
    ['card:1%+2%', 'card: "1%+2%" has two percentages'],
    ['card:1+2', 'card: "1+2" has two flat amounts'],
    ['card:1%+', 'card: a fee is a percentage'],
    ['card:', 'card: a fee is a percentage'],
  ])('refuses %j, naming the bad part', (text, message) => {
    expect(() => parseFeeSchedule(text)).toThrow(SettingError);
    expect(() => parseFeeSchedule(text)).toThrow(message);
  });
});
