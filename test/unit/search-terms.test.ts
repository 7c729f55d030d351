import { describe, expect, it } from 'vitest';
import { isSearchTerm, searchedAmount, searchOf } from '../../server/domain/search-terms.js';

describe('searchedAmount', () => {
  it('reads ringgit as people write them, in sen', () => {
    expect(searchedAmount('15')).toBe(1500n);
    expect(searchedAmount('15.00')).toBe(1500n);
    expect(searchedAmount('15.5')).toBe(1550n);
    expect(searchedAmount('RM 15.50')).toBe(1550n);
    expect(searchedAmount('rm15.50')).toBe(1550n);
    expect(searchedAmount('1,500')).toBe(150000n);
    expect(searchedAmount('1,500.00')).toBe(150000n);
    expect(searchedAmount('1,234,567.89')).toBe(123456789n);
    expect(searchedAmount('0.50')).toBe(50n);
  });

  it('reads nothing into text, misplaced commas, three decimals or nothing paid', () => {
    for (const term of ['aisyah', '15.505', '1,50', '15,00', 'RM', '.50', '15.', '0', '0.00', 'RM  15', '-15', '1 500', `${'9'.repeat(30)}`]) {
      expect(searchedAmount(term), term).toBeUndefined();
    }
  });
});

describe('isSearchTerm and searchOf', () => {
  it('takes 3 characters or more as text, and one or two digits as an amount alone', () => {
    expect(isSearchTerm('abc')).toBe(true);
    expect(isSearchTerm('😀😀😀')).toBe(true);
    expect(isSearchTerm('15')).toBe(true);
    expect(isSearchTerm('7')).toBe(true);
    for (const term of ['', 'ab', 'RM', '1.', '😀😀', 'ab\u0000c']) expect(isSearchTerm(term), term).toBe(false);
    expect(searchOf('15')).toEqual({ text: undefined, amount: 1500n });
    expect(searchOf('150')).toEqual({ text: '150', amount: 15000n });
    expect(searchOf('Aisyah')).toEqual({ text: 'Aisyah', amount: undefined });
  });
});
