// The business's days (domain/local-days.ts) and the report's periods (domain/report-intervals.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDay, offsetMinutes, offsetSpans } from '../../server/domain/local-days.js';
import {
  addDays,
  bucketStart,
  bucketStarts,
  dayNumber,
  dayOfNumber,
  daysIn,
  defaultRange,
  FIRST_DAY,
  INTERVALS,
  periodPosition,
  periodsOf,
  rangeProblem,
  RANGE_LIMITS,
  type Interval,
} from '../../server/domain/report-intervals.js';

describe('localDay', () => {
  it("is the day in the zone: Kuala Lumpur's at UTC+8, New York's on either side of its summer time", () => {
    expect(localDay('2026-01-01T17:00:00.000000Z', 'Asia/Kuala_Lumpur')).toBe('2026-01-02');
    expect(localDay('2026-01-01T15:59:59.999000Z', 'Asia/Kuala_Lumpur')).toBe('2026-01-01');
    expect(localDay('2026-01-01T04:59:59.000000Z', 'America/New_York')).toBe('2025-12-31');
    expect(localDay('2026-07-01T03:59:59.000000Z', 'America/New_York')).toBe('2026-06-30');
    expect(localDay('2026-07-01T04:00:00.000000Z', 'America/New_York')).toBe('2026-07-01');
    expect(localDay(new Date('2026-01-01T10:30:00Z'), 'Pacific/Kiritimati')).toBe('2026-01-02');
  });

  it('reads no zone, or one the platform does not know, as Kuala Lumpur', () => {
    expect(localDay('2026-01-01T17:00:00.000000Z', null)).toBe('2026-01-02');
    expect(localDay('2026-01-01T17:00:00.000000Z', 'Mars/Olympus')).toBe('2026-01-02');
  });
});

describe('offsetSpans', () => {
  it('cuts time where the zone changes its offset, to the second', () => {
    const from = Date.parse('2026-01-01T00:00:00Z');
    const to = Date.parse('2026-12-31T00:00:00Z');
    expect(offsetSpans('America/New_York', from, to)).toEqual([
      { from, to: Date.parse('2026-03-08T07:00:00Z'), offsetMinutes: -300 },
      { from: Date.parse('2026-03-08T07:00:00Z'), to: Date.parse('2026-11-01T06:00:00Z'), offsetMinutes: -240 },
      { from: Date.parse('2026-11-01T06:00:00Z'), to, offsetMinutes: -300 },
    ]);
    expect(offsetSpans('Asia/Kuala_Lumpur', from, to)).toEqual([{ from, to, offsetMinutes: 480 }]);
    expect(offsetMinutes('Asia/Kolkata', from)).toBe(330);
  });

  it('places every instant on the day localDay gives it, half-hour zones included', () => {
    for (const zone of ['America/New_York', 'Australia/Adelaide', 'Asia/Kathmandu', 'Europe/London']) {
      const from = Date.parse('2025-01-01T00:17:00Z');
      const to = Date.parse('2026-12-31T00:00:00Z');
      for (const span of offsetSpans(zone, from, to))
        for (const at of [span.from, span.to - 1000, Math.floor((span.from + span.to) / 2000) * 1000]) {
          const moved = new Date(at + span.offsetMinutes * 60_000).toISOString().slice(0, 10);
          expect(moved, `${zone} ${new Date(at).toISOString()}`).toBe(localDay(new Date(at), zone));
        }
    }
  });
});

describe('day numbers', () => {
  const DAY_MS = 86_400_000;
  const byDate = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

  it('agree with the calendar of Date on every day from 1900 to 2100, and every 37th day of years 1 to 9999', () => {
    const days = (from: string, to: string, step: number) => {
      const out: number[] = [];
      for (let n = Date.parse(`${from}T00:00:00Z`) / DAY_MS; n <= Date.parse(`${to}T00:00:00Z`) / DAY_MS; n += step) out.push(n);
      return out;
    };
    const wrong = [...days('1900-01-01', '2100-12-31', 1), ...days('0001-01-01', '9999-12-31', 37)].filter(
      (n) => dayOfNumber(n) !== byDate(n) || dayNumber(byDate(n)) !== n,
    );
    expect(wrong.map(byDate)).toEqual([]);
    expect(dayNumber('1970-01-01')).toBe(0);
    expect(dayOfNumber(-1)).toBe('1969-12-31');
    expect(dayNumber('0099-03-01')).toBe(Date.parse('0099-03-01T00:00:00Z') / DAY_MS);
  });

  it('add and count days across months, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2023-02-28', 1)).toBe('2023-03-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('1999-12-31', 366)).toBe('2000-12-31');
    expect(daysIn('2024-01-01', '2024-12-31')).toBe(366);
    expect(daysIn('2100-01-01', '2100-12-31')).toBe(365);
  });

  it('start every day of 1900-2100 on the Monday Date names', () => {
    for (let n = Date.parse('1900-01-01T00:00:00Z') / DAY_MS; n <= Date.parse('2100-12-31T00:00:00Z') / DAY_MS; n += 1) {
      const monday = byDate(n - ((new Date(n * DAY_MS).getUTCDay() + 6) % 7));
      if (bucketStart(byDate(n), 'week') !== monday) expect(bucketStart(byDate(n), 'week'), byDate(n)).toBe(monday);
    }
  });
});

describe('report periods', () => {
  it('start buckets on the day, the Monday, the 1st', () => {
    expect(bucketStart('2026-01-01', 'day')).toBe('2026-01-01');
    expect(bucketStart('2026-01-01', 'week')).toBe('2025-12-29');
    expect(bucketStart('2026-01-04', 'week')).toBe('2025-12-29');
    expect(bucketStart('2026-01-05', 'week')).toBe('2026-01-05');
    expect(bucketStart('2026-02-28', 'month')).toBe('2026-02-01');
    expect(bucketStarts('2025-11-15', '2026-02-01', 'month')).toEqual(['2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01']);
    expect(bucketStarts('2026-01-01', '2026-01-12', 'week')).toEqual(['2025-12-29', '2026-01-05', '2026-01-12']);
    expect(bucketStarts('2024-02-28', '2024-03-01', 'day')).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
  });

  it('bound the range per interval', () => {
    expect(rangeProblem('2025-01-01', '2026-02-04', 'day')).toBeUndefined(); // 400 days
    expect(rangeProblem('2025-01-01', '2026-02-05', 'day')).toMatch(/^The filter\.created at between must not span more than 400 days with interval=day\./);
    expect(rangeProblem('2024-01-01', '2026-03-10', 'week')).toBeUndefined(); // 800 days
    expect(rangeProblem('2024-01-01', '2026-03-11', 'week')).toMatch(/800 days with interval=week/);
    expect(rangeProblem('2016-01-01', '2025-12-01', 'month')).toBeUndefined();
    expect(rangeProblem('2015-12-31', '2025-12-01', 'month')).toMatch(/120 months with interval=month/);
  });

  it('default to the last 30 days, 12 weeks or 12 months, ending today', () => {
    expect(defaultRange('2026-03-01', 'day')).toEqual({ from: '2026-01-31', to: '2026-03-01' });
    expect(defaultRange('2026-01-07', 'week')).toEqual({ from: '2025-10-20', to: '2026-01-07' });
    expect(defaultRange('2026-01-07', 'month')).toEqual({ from: '2025-02-01', to: '2026-01-07' });
    expect(bucketStarts('2025-10-20', '2026-01-07', 'week')).toHaveLength(12);
  });
});

describe('report periods at the edges of the days a range can name (years 0001 and 9999)', () => {
  const DAY_MS = 86_400_000;
  const FIRST = dayNumber(FIRST_DAY);
  const LAST = dayNumber('9999-12-31');
  /** Days of the whole type, most of them within a range's reach of either end, where it breaks if it breaks. */
  const day = fc.oneof(
    fc.integer({ min: FIRST, max: FIRST + 900 }),
    fc.integer({ min: LAST - 900, max: LAST }),
    fc.integer({ min: FIRST, max: LAST }),
    fc.constantFrom(FIRST, LAST),
  );
  /** A range the interval takes (rangeProblem finds nothing wrong with it), ending at the latest on 9999-12-31. */
  const range = fc
    .tuple(day, fc.integer({ min: 0, max: RANGE_LIMITS.week.days - 1 }), fc.constantFrom(...INTERVALS))
    .map(([first, length, interval]) => ({ from: dayOfNumber(first), to: dayOfNumber(Math.min(LAST, first + length)), interval }))
    .filter(({ from, to, interval }) => rangeProblem(from, to, interval) === undefined);

  const dateOf = (text: string) => new Date(Date.parse(`${text}T00:00:00Z`));
  /** The start of the bucket after `start`, by the calendar of Date (which has years past 9999), as a number of days. */
  const nextByDate = (start: string, interval: Interval) => {
    const date = dateOf(start);
    if (interval === 'month') date.setUTCMonth(date.getUTCMonth() + 1);
    else date.setUTCDate(date.getUTCDate() + (interval === 'week' ? 7 : 1));
    return date.getTime() / DAY_MS;
  };

  it('are consecutive four-digit days from the bucket of the first day to that of the last, each found again by its position', () => {
    fc.assert(
      fc.property(range, ({ from, to, interval }) => {
        const starts = bucketStarts(from, to, interval);
        const periods = periodsOf(from, to, interval);
        expect(starts).toHaveLength(periods.count);
        expect(starts[0]).toBe(bucketStart(from, interval));
        expect(starts.at(-1)).toBe(bucketStart(to, interval));
        for (const [position, start] of starts.entries()) {
          expect(start).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          expect(dayNumber(start)).toBeGreaterThanOrEqual(FIRST);
          expect(dateOf(start).toISOString().slice(0, 10)).toBe(start);
          if (interval === 'week') expect(dateOf(start).getUTCDay()).toBe(1);
          if (interval === 'month') expect(start.endsWith('-01')).toBe(true);
          if (position > 0) expect(nextByDate(starts[position - 1]!, interval)).toBe(dayNumber(start));
          expect(periodPosition(periods, start)).toBe(position);
        }
        // The bucket after the last starts after the range (in year 10000, past its end).
        expect(nextByDate(starts.at(-1)!, interval)).toBeGreaterThan(dayNumber(to));
        // A day that starts no bucket of the range has no position.
        expect(periodPosition(periods, dayOfNumber(dayNumber(starts[0]!) - 1))).toBeUndefined();
        if (interval !== 'day') expect(periodPosition(periods, addDays(starts[0]!, 1))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('the last days of 9999 and the first of year 1, by each interval', () => {
    expect(bucketStarts('9999-12-31', '9999-12-31', 'day')).toEqual(['9999-12-31']);
    expect(bucketStarts('9999-12-31', '9999-12-31', 'week')).toEqual(['9999-12-27']);
    expect(bucketStarts('9999-12-31', '9999-12-31', 'month')).toEqual(['9999-12-01']);
    expect(bucketStarts('9999-12-20', '9999-12-31', 'week')).toEqual(['9999-12-20', '9999-12-27']);
    expect(bucketStarts('9990-01-01', '9999-12-31', 'month')).toHaveLength(120);
    expect(bucketStarts('0001-01-01', '0001-01-01', 'week')).toEqual(['0001-01-01']);
    expect(bucketStarts('0001-01-01', '0001-02-01', 'month')).toEqual(['0001-01-01', '0001-02-01']);
    expect(rangeProblem('0000-12-31', '0001-01-01', 'day')).toMatch(/must not start before 0001-01-01/);
  });
});
