import { afterEach, describe, expect, it, vi } from 'vitest';
import { isId, newId, newTokenValue } from '../../server/domain/ids.js';

describe('newId: ObjectId-like identifiers', () => {
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
