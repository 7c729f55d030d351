import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../server/http/query.js';

describe('parseQuery', () => {
  it('keeps each parameter under the name openapi.yaml gives it, brackets and all, decoded', () => {
    expect(parseQuery('per_page=5&filter[status]=Paid&filter%5Bemail%5D=a%40b.c')).toEqual({
      per_page: '5',
      'filter[status]': 'Paid',
      'filter[email]': 'a@b.c',
    });
    expect(parseQuery('')).toEqual({});
  });

  it('turns a repeated parameter into an array, so it is refused rather than one value picked', () => {
    expect(parseQuery('page=1&page=2&page=3')).toEqual({ page: ['1', '2', '3'] });
  });

  it('keeps keys named after Object.prototype members as own keys, so validation can refuse them', () => {
    const query = parseQuery('constructor=1&toString=x&filter[hasOwnProperty]=y');
    expect(Object.keys(query)).toEqual(['constructor', 'toString', 'filter[hasOwnProperty]']);
  });

  it('keeps __proto__ as an own key however it is encoded, without touching any prototype', () => {
    const query = parseQuery('__proto__=1&filter[__proto__][polluted]=yes&%5F%5Fproto%5F%5F=2');
    expect(Object.keys(query)).toEqual(['__proto__', 'filter[__proto__][polluted]']);
    expect(Object.getOwnPropertyDescriptor(query, '__proto__')?.value).toEqual(['1', '2']);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
