import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../server/http/query.js';

describe('parseQuery', () => {
  it('parses bracket filters as qs does', () => {
    expect(parseQuery('per_page=5&filter[status]=Paid&filter[email]=a%40b.c')).toEqual({ per_page: '5', filter: { status: 'Paid', email: 'a@b.c' } });
    expect(parseQuery('')).toEqual({});
  });

  it('keeps keys named after Object.prototype members as own keys, so validation can refuse them', () => {
    const query = parseQuery('constructor=1&toString=x&filter[hasOwnProperty]=y');
    expect(Object.keys(query)).toEqual(['constructor', 'toString', 'filter']);
    expect(Object.keys(query.filter as object)).toEqual(['hasOwnProperty']);
  });

  it('keeps __proto__ as an own key, at any depth and however it is encoded, without touching any prototype', () => {
    const query = parseQuery('__proto__=1&filter[__proto__][polluted]=yes&%5F%5Fproto%5F%5F[x]=2');
    expect(Object.keys(query)).toContain('__proto__');
    expect(Object.keys(query.filter as object)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
