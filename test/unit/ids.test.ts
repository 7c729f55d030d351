import { afterEach, describe, expect, it, vi } from 'vitest';
import { isId, newId, newTokenValue } from '../../server/domain/ids.js';

describe('newId: ObjectId-shaped identifiers that tell nothing about each other', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is 24 lowercase hexadecimal characters', () => {
    for (let i = 0; i < 100; i++) expect(newId()).toMatch(/^[0-9a-f]{24}$/);
  });

  it('never repeats over 10,000 ids made in the same second', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId()));
    expect(ids.size).toBe(10_000);
  });

  it('starts with the creation time in seconds as 8 hex digits', () => {
    vi.useFakeTimers({ now: new Date('2022-05-19T08:36:38.897Z'), toFake: ['Date'] });
    const seconds = Math.floor(Date.parse('2022-05-19T08:36:38Z') / 1000);
    expect(newId().slice(0, 8)).toBe(seconds.toString(16).padStart(8, '0'));
  });

  it('sorts ids made later after ids made earlier', () => {
    vi.useFakeTimers({ now: new Date('2022-05-19T08:36:38Z'), toFake: ['Date'] });
    const earlier = Array.from({ length: 50 }, () => newId());
    vi.setSystemTime(new Date('2022-05-19T08:36:39Z'));
    const later = Array.from({ length: 50 }, () => newId());
    vi.setSystemTime(new Date('2023-01-01T00:00:00Z'));
    const muchLater = newId();
    for (const a of earlier) for (const b of later) expect(a < b).toBe(true);
    for (const b of later) expect(b < muchLater).toBe(true);
  });

  it('passes isId', () => {
    expect(isId(newId())).toBe(true);
  });

  // Ids minted back to back in one process, for any business, as payers' URLs carry them. MongoDB's
  // ObjectId fails each of these: its bytes 4-8 are fixed per process and its last 3 count up by one.
  describe('ids minted back to back share no predictable relation', () => {
    vi.useRealTimers();
    const ids = Array.from({ length: 2_000 }, () => newId());
    const tails = ids.map((id) => id.slice(8));

    it('no two share any part of their random 8 bytes at the same place (no fixed process bytes)', () => {
      for (const [start, end] of [
        [0, 10],
        [10, 16],
        [0, 6],
        [6, 16],
      ] as const) {
        const parts = new Set(tails.map((tail) => tail.slice(start, end)));
        expect(parts.size, `hex ${start}-${end} of the random part`).toBeGreaterThan(ids.length * 0.99);
      }
    });

    it('the difference between neighbours is neither constant nor small (no counter)', () => {
      const differences = tails.slice(1).map((tail, i) => BigInt(`0x${tail}`) - BigInt(`0x${tails[i]}`));
      expect(new Set(differences.map(String)).size).toBe(differences.length);
      // For 8 random bytes, |difference| < 2^32 has a chance of 2^-31 per pair.
      expect(differences.filter((d) => (d < 0n ? -d : d) < 2n ** 32n)).toEqual([]);
    });

    it('the low 3 bytes of neighbours are not one apart, as a counter would be', () => {
      const low = ids.map((id) => parseInt(id.slice(18), 16));
      const oneApart = low.slice(1).filter((value, i) => (value - low[i]! + 0x1000000) % 0x1000000 === 1);
      expect(oneApart.length).toBeLessThan(3);
    });

    it('every bit of the random part is set in about half of the ids', () => {
      for (let bit = 0; bit < 64; bit += 1) {
        const set = tails.filter((tail) => (BigInt(`0x${tail}`) >> BigInt(bit)) & 1n).length;
        expect(set, `bit ${bit}`).toBeGreaterThan(ids.length * 0.4);
        expect(set, `bit ${bit}`).toBeLessThan(ids.length * 0.6);
      }
    });
  });
});

describe('newTokenValue: 32 random bytes as 64 lowercase hex characters', () => {
  it('is 64 lowercase hexadecimal characters', () => {
    for (let i = 0; i < 100; i++) expect(newTokenValue()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never repeats', () => {
    const values = new Set(Array.from({ length: 10_000 }, () => newTokenValue()));
    expect(values.size).toBe(10_000);
  });

  it('is not an id: a token value cannot be mistaken for a record id', () => {
    expect(isId(newTokenValue())).toBe(false);
  });
});

describe('isId: only what newId can produce', () => {
  it('accepts 24 lowercase hex characters', () => {
    expect(isId('6284ff16d4b1c2a3e4f50003')).toBe(true);
    expect(isId('000000000000000000000000')).toBe(true);
  });

  it.each([
    ['upper case', '6284FF16D4B1C2A3E4F50003'],
    ['23 characters', '6284ff16d4b1c2a3e4f5000'],
    ['25 characters', '6284ff16d4b1c2a3e4f500031'],
    ['a non-hex letter', '6284ff16d4b1c2a3e4f5000g'],
    ['a trailing newline', '6284ff16d4b1c2a3e4f50003\n'],
    ['surrounding spaces', ' 6284ff16d4b1c2a3e4f50003 '],
    ['a path', '../../6284ff16d4b1c2a3e4'],
    ['the empty string', ''],
  ])('rejects %s', (_, value) => {
    expect(isId(value)).toBe(false);
  });
});
