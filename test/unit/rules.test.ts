import { describe, expect, it } from 'vitest';
import { amountStringRule, minimumAmountRule } from '../../server/domain/rules.js';

const AT_LEAST_500 = 'The amount must be at least 500.';
const AT_MOST_3000000 = 'The amount must not be greater than 3000000.';

describe('amountStringRule: bounds of an amount sent as an integer string', () => {
  it('rejects integer strings below 500 cents', () => {
    expect(amountStringRule({ amount: '499' })).toEqual({ amount: [AT_LEAST_500] });
    expect(amountStringRule({ amount: '0' })).toEqual({ amount: [AT_LEAST_500] });
  });

  it('accepts both bounds inclusively', () => {
    expect(amountStringRule({ amount: '500' })).toEqual({});
    expect(amountStringRule({ amount: '3000000' })).toEqual({});
    expect(amountStringRule({ amount: '0500' })).toEqual({});
  });

  it('rejects integer strings above 3000000 cents, however long', () => {
    expect(amountStringRule({ amount: '3000001' })).toEqual({ amount: [AT_MOST_3000000] });
    expect(amountStringRule({ amount: '99999999999999999999' })).toEqual({ amount: [AT_MOST_3000000] });
  });

  it('ignores JSON integers: the schema minimum and maximum bound them', () => {
    expect(amountStringRule({ amount: 499 })).toEqual({});
    expect(amountStringRule({ amount: 3000001 })).toEqual({});
  });

  it('reports strings that are not integers as Laravel does (the schema pattern only restates this for tools)', () => {
    for (const amount of ['12.5', 'abc', '-500', '', ' 600', '1e3'])
      expect(amountStringRule({ amount })).toEqual({ amount: ['The amount must be an integer.'] });
  });

  it('ignores a missing amount and a body that is not an object', () => {
    expect(amountStringRule({})).toEqual({});
    expect(amountStringRule(null)).toEqual({});
    expect(amountStringRule(['499'])).toEqual({});
    expect(amountStringRule('499')).toEqual({});
    expect(amountStringRule(undefined)).toEqual({});
  });
});

const NUMBER = 'The minimum amount must be a number.';
const AT_LEAST_5 = 'The minimum amount must be at least 5.';
const AT_MOST_30000 = 'The minimum amount must not be greater than 30000.';
const FORMAT = 'The minimum amount format is invalid.';

describe('minimumAmountRule: a decimal in currency units from 5 to 30000 with at most two decimals', () => {
  it('accepts strings and numbers within the bounds, bounds included', () => {
    for (const minimum_amount of ['5', '5.00', '5.000', '100.00', '25.5', '30000', '30000.00', 5, 25.5, 30000]) {
      expect(minimumAmountRule({ minimum_amount })).toEqual({});
    }
  });

  it('leaves an empty string to the schema, which reports it as a missing required field', () => {
    expect(minimumAmountRule({ minimum_amount: '' })).toEqual({});
  });

  it('says "must be a number" for text that is not a decimal', () => {
    for (const minimum_amount of ['abc', ' 5', '5,00', '1e3', '5.']) expect(minimumAmountRule({ minimum_amount })).toEqual({ minimum_amount: [NUMBER] });
  });

  it('says "must be at least 5" below the minimum, negatives included', () => {
    expect(minimumAmountRule({ minimum_amount: '4.99' })).toEqual({ minimum_amount: [AT_LEAST_5] });
    expect(minimumAmountRule({ minimum_amount: 4.99 })).toEqual({ minimum_amount: [AT_LEAST_5] });
    expect(minimumAmountRule({ minimum_amount: '4.990' })).toEqual({ minimum_amount: [AT_LEAST_5] });
    expect(minimumAmountRule({ minimum_amount: '0' })).toEqual({ minimum_amount: [AT_LEAST_5] });
    expect(minimumAmountRule({ minimum_amount: '-5' })).toEqual({ minimum_amount: [AT_LEAST_5] });
  });

  it('says "must not be greater than 30000" above the maximum', () => {
    expect(minimumAmountRule({ minimum_amount: '30000.01' })).toEqual({ minimum_amount: [AT_MOST_30000] });
    expect(minimumAmountRule({ minimum_amount: 30000.01 })).toEqual({ minimum_amount: [AT_MOST_30000] });
    expect(minimumAmountRule({ minimum_amount: '99999999999999999999' })).toEqual({ minimum_amount: [AT_MOST_30000] });
    expect(minimumAmountRule({ minimum_amount: 1e21 })).toEqual({ minimum_amount: [AT_MOST_30000] });
  });

  it('says "format is invalid" for more than two decimals within the bounds', () => {
    expect(minimumAmountRule({ minimum_amount: '5.001' })).toEqual({ minimum_amount: [FORMAT] });
    expect(minimumAmountRule({ minimum_amount: '100.125' })).toEqual({ minimum_amount: [FORMAT] });
    expect(minimumAmountRule({ minimum_amount: 25.555 })).toEqual({ minimum_amount: [FORMAT] });
  });

  it('reports a bound and the format together when both fail, bound first', () => {
    expect(minimumAmountRule({ minimum_amount: '4.999' })).toEqual({ minimum_amount: [AT_LEAST_5, FORMAT] });
    expect(minimumAmountRule({ minimum_amount: '30001.001' })).toEqual({ minimum_amount: [AT_MOST_30000, FORMAT] });
  });

  it('judges the maximum on the exact value, not on the value truncated to cents', () => {
    // 30000.009 is greater than 30000; truncating it to 3000000 cents must not hide that.
    expect(minimumAmountRule({ minimum_amount: '30000.009' })).toEqual({ minimum_amount: [AT_MOST_30000, FORMAT] });
    expect(minimumAmountRule({ minimum_amount: '30000.001' })).toEqual({ minimum_amount: [AT_MOST_30000, FORMAT] });
  });

  it('leaves other types and a missing field to the schema', () => {
    for (const minimum_amount of [true, null, [], {}]) expect(minimumAmountRule({ minimum_amount })).toEqual({});
    expect(minimumAmountRule({})).toEqual({});
    expect(minimumAmountRule(null)).toEqual({});
    expect(minimumAmountRule([{ minimum_amount: 'abc' }])).toEqual({});
  });
});
