import { describe, expect, it } from 'vitest';
import { nowIso, toIsoMicros } from '../../server/store/timestamps.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('toIsoMicros: database timestamps in the API format', () => {
  it('reads PostgreSQL text with milliseconds', () => {
    expect(toIsoMicros('2022-05-19 08:36:38.897+00')).toBe('2022-05-19T08:36:38.897000Z');
  });

  it('keeps all six PostgreSQL fractional digits', () => {
    expect(toIsoMicros('2022-05-19 08:36:38.897123+00')).toBe('2022-05-19T08:36:38.897123Z');
    expect(toIsoMicros('2022-05-19 08:36:38.000001+00')).toBe('2022-05-19T08:36:38.000001Z');
  });

  it('pads fractions of one or two digits on the right', () => {
    expect(toIsoMicros('2022-05-19 08:36:38.5+00')).toBe('2022-05-19T08:36:38.500000Z');
    expect(toIsoMicros('2022-05-19 08:36:38.05+00')).toBe('2022-05-19T08:36:38.050000Z');
  });

  it('adds a zero fraction when PostgreSQL omits it', () => {
    expect(toIsoMicros('2022-05-19 08:36:38+00')).toBe('2022-05-19T08:36:38.000000Z');
  });

  it('accepts the +00:00 and +0000 offset spellings', () => {
    expect(toIsoMicros('2022-05-19 08:36:38.897+00:00')).toBe('2022-05-19T08:36:38.897000Z');
    expect(toIsoMicros('2022-05-19 08:36:38.897123+0000')).toBe('2022-05-19T08:36:38.897123Z');
  });

  it('returns the SQLite ISO form unchanged', () => {
    for (const stored of ['2022-05-19T08:36:38.897000Z', '2022-05-19T08:36:38.897123Z', '2022-05-19T08:36:38.000000Z']) {
      expect(toIsoMicros(stored)).toBe(stored);
    }
  });

  it('converts a Date', () => {
    expect(toIsoMicros(new Date('2022-05-19T08:36:38.897Z'))).toBe('2022-05-19T08:36:38.897000Z');
    expect(toIsoMicros(new Date(Date.UTC(2022, 11, 31, 23, 59, 59)))).toBe('2022-12-31T23:59:59.000000Z');
  });

  it('converts a timestamp with another offset to UTC instead of relabelling it', () => {
    expect(toIsoMicros('2022-05-19T16:36:38.897+08:00')).toBe('2022-05-19T08:36:38.897000Z');
  });
});

describe('nowIso', () => {
  it('is the current time in the API format', () => {
    const before = Date.now();
    const now = nowIso();
    const after = Date.now();
    expect(now).toMatch(TIMESTAMP);
    expect(Date.parse(now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(now)).toBeLessThanOrEqual(after);
  });
});
