import { describe, expect, it } from 'vitest';
import { isoMicros, metaTimestamp, metaTimestampNow, parseDateRange } from '../../server/domain/time.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('isoMicros: ISO 8601 UTC with exactly six fractional digits and Z', () => {
  it('pads milliseconds to microseconds', () => {
    expect(isoMicros(new Date('2022-05-19T08:36:38.897Z'))).toBe('2022-05-19T08:36:38.897000Z');
    expect(isoMicros(new Date('2022-05-19T08:36:38Z'))).toBe('2022-05-19T08:36:38.000000Z');
    expect(isoMicros(new Date('2022-05-19T08:36:38.001Z'))).toBe('2022-05-19T08:36:38.001000Z');
  });

  it('shows the UTC time whatever offset the date was written with', () => {
    expect(isoMicros(new Date('2022-05-19T16:36:38.897+08:00'))).toBe('2022-05-19T08:36:38.897000Z');
  });

  it('matches the Timestamp pattern of openapi.yaml for the current time', () => {
    expect(isoMicros(new Date())).toMatch(TIMESTAMP);
  });
});

describe('metaTimestampNow: the same text within a second, the next second at once', () => {
  it('follows the clock it is given', () => {
    const at = Date.parse('2022-05-19T08:36:38.000Z');
    expect(metaTimestampNow(at)).toBe('2022-05-19 08:36:38 UTC');
    expect(metaTimestampNow(at + 999)).toBe('2022-05-19 08:36:38 UTC');
    expect(metaTimestampNow(at + 1_000)).toBe('2022-05-19 08:36:39 UTC');
    // Back in time (a test's clock, a leap second smeared the other way): the earlier second again.
    expect(metaTimestampNow(at - 1)).toBe('2022-05-19 08:36:37 UTC');
  });
});

describe('metaTimestamp: YYYY-MM-DD HH:MM:SS UTC', () => {
  it('drops the fraction and names the zone', () => {
    expect(metaTimestamp(new Date('2022-05-19T08:36:38.897Z'))).toBe('2022-05-19 08:36:38 UTC');
    expect(metaTimestamp(new Date('2022-12-31T23:59:59.999Z'))).toBe('2022-12-31 23:59:59 UTC');
  });

  it('shows the UTC time whatever offset the date was written with', () => {
    expect(metaTimestamp(new Date('2022-05-20T00:30:00+08:00'))).toBe('2022-05-19 16:30:00 UTC');
  });
});

describe('parseDateRange: YYYY-MM-DD,YYYY-MM-DD as inclusive UTC days', () => {
  it('reads a range: start is midnight of the first day, end is the last microsecond of the last day', () => {
    expect(parseDateRange('2022-05-01,2022-05-31')).toEqual({
      from: '2022-05-01',
      to: '2022-05-31',
      start: '2022-05-01T00:00:00.000000Z',
      end: '2022-05-31T23:59:59.999999Z',
    });
  });

  it('accepts a single day and covers all of it', () => {
    expect(parseDateRange('2022-05-19,2022-05-19')).toEqual({
      from: '2022-05-19',
      to: '2022-05-19',
      start: '2022-05-19T00:00:00.000000Z',
      end: '2022-05-19T23:59:59.999999Z',
    });
  });

  it('ends a range at the turn of the month and of the year', () => {
    expect(parseDateRange('2022-01-01,2022-12-31')?.end).toBe('2022-12-31T23:59:59.999999Z');
    expect(parseDateRange('2022-02-01,2022-02-28')?.end).toBe('2022-02-28T23:59:59.999999Z');
  });

  it('puts timestamps of the first and last day inside [start, end] and the next day outside, as the stores compare them', () => {
    const range = parseDateRange('2022-05-01,2022-05-31')!;
    const inside = (timestamp: string) => timestamp >= range.start && timestamp <= range.end;
    expect(inside('2022-05-01T00:00:00.000000Z')).toBe(true);
    expect(inside('2022-05-31T23:59:59.999999Z')).toBe(true);
    expect(inside('2022-04-30T23:59:59.999999Z')).toBe(false);
    expect(inside('2022-06-01T00:00:00.000000Z')).toBe(false);
  });

  it('rejects a range whose first day is after the second', () => {
    expect(parseDateRange('2022-05-31,2022-05-01')).toBeNull();
  });

  it('reads days of the year 0000 (ISO 8601 has it) with their bounds moved to the first instant PostgreSQL has', () => {
    expect(parseDateRange('0000-01-01,2022-05-31')).toEqual({
      from: '0000-01-01',
      to: '2022-05-31',
      start: '0001-01-01T00:00:00.000000Z',
      end: '2022-05-31T23:59:59.999999Z',
    });
    expect(parseDateRange('0000-02-29,0000-12-31')).toMatchObject({ start: '0001-01-01T00:00:00.000000Z', end: '0001-01-01T00:00:00.000000Z' });
  });

  it('rejects days that do not exist instead of rolling them over', () => {
    expect(parseDateRange('2022-02-30,2022-03-01')).toBeNull();
    expect(parseDateRange('2022-01-01,2022-04-31')).toBeNull();
    expect(parseDateRange('2022-13-01,2022-13-02')).toBeNull();
    expect(parseDateRange('2022-00-10,2022-01-10')).toBeNull();
    expect(parseDateRange('2022-01-00,2022-01-10')).toBeNull();
  });

  it('knows leap years: 2024-02-29 exists, 2023-02-29 does not', () => {
    expect(parseDateRange('2024-02-29,2024-02-29')).toEqual({
      from: '2024-02-29',
      to: '2024-02-29',
      start: '2024-02-29T00:00:00.000000Z',
      end: '2024-02-29T23:59:59.999999Z',
    });
    expect(parseDateRange('2023-02-29,2023-03-01')).toBeNull();
    expect(parseDateRange('2023-02-01,2023-02-29')).toBeNull();
  });

  it('rejects anything but exactly two dates separated by one comma', () => {
    expect(parseDateRange('2022-05-01')).toBeNull();
    expect(parseDateRange('2022-05-01 2022-05-31')).toBeNull();
    expect(parseDateRange('2022-05-01,2022-05-15,2022-05-31')).toBeNull();
    expect(parseDateRange('2022-05-01,')).toBeNull();
    expect(parseDateRange(',2022-05-31')).toBeNull();
    expect(parseDateRange('')).toBeNull();
  });

  it('rejects spaces and other date spellings', () => {
    expect(parseDateRange('2022-05-01, 2022-05-31')).toBeNull();
    expect(parseDateRange(' 2022-05-01,2022-05-31')).toBeNull();
    expect(parseDateRange('2022-05-01,2022-05-31 ')).toBeNull();
    expect(parseDateRange('2022-5-1,2022-5-31')).toBeNull();
    expect(parseDateRange('22-05-01,22-05-31')).toBeNull();
    expect(parseDateRange('2022/05/01,2022/05/31')).toBeNull();
    expect(parseDateRange('2022-05-01T00:00:00Z,2022-05-31T00:00:00Z')).toBeNull();
    expect(parseDateRange('2022-05-01\n,2022-05-31')).toBeNull();
  });

  it('reads a four-digit year below 100 as that year, never as 19xx', () => {
    // Date.UTC maps years 0..99 to 1900..1999; 0022-05-01 is a well-formed YYYY-MM-DD day of year 22.
    expect(parseDateRange('0022-05-01,0022-05-31')).toEqual({
      from: '0022-05-01',
      to: '0022-05-31',
      start: '0022-05-01T00:00:00.000000Z',
      end: '0022-05-31T23:59:59.999999Z',
    });
  });

  it('never takes year 0022 for 1922', () => {
    expect(parseDateRange('0022-05-01,0022-05-31')?.start).not.toBe('1922-05-01T00:00:00.000000Z');
    expect(parseDateRange('1922-05-01,1922-05-31')?.start).toBe('1922-05-01T00:00:00.000000Z');
  });

  it('accepts a range ending on 9999-12-31 with an end bound after every timestamp it covers', () => {
    const range = parseDateRange('2022-01-01,9999-12-31');
    expect(range).not.toBeNull();
    expect(range!.start).toBe('2022-01-01T00:00:00.000000Z');
    // Stores compare created_at with these bounds as text (SQLite) or as timestamptz (PostgreSQL).
    expect(range!.end >= '9999-12-31T23:59:59.999999Z').toBe(true);
    expect(range!.end > '2022-05-19T08:36:38.897000Z').toBe(true);
  });
});
