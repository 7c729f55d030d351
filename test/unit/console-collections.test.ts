// The overview chart's pure pieces: the count axis's ticks, the date labels and their steps, the
// periods a range holds, what each range preset asks the collections report for, and the series'
// colours and names.
import { describe, expect, test } from 'vitest';
import {
  axisAmount,
  countTicks,
  customRange,
  highestStack,
  labelStep,
  mondayOf,
  perDay,
  periodLabel,
  periodName,
  periodsBetween,
  presetRange,
  RANGE_PRESETS,
  reportQuery,
  seriesStyles,
} from '../../console/src/lib/collections.js';
import { bucket } from '../support/report-buckets.js';

describe('the count axis', () => {
  test('has whole-number ticks from 0 up to the highest count, in steps of 1, 2 or 5 times a power of ten', () => {
    expect(countTicks(0)).toEqual([0, 1]);
    expect(countTicks(1)).toEqual([0, 1]);
    // What the review saw with three payments: 0, 0.75, 1.5, 2.25, 3.
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
    expect(countTicks(5)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(countTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(23)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(countTicks(999)).toEqual([0, 200, 400, 600, 800, 1000]);
    for (let max = 0; max <= 5000; max += 17) {
      const ticks = countTicks(max);
      expect(ticks.every(Number.isInteger), `ticks for ${max}`).toBe(true);
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(6);
    }
  });

  test('reaches the highest stack of a day, not the highest series', () => {
    const rows = [
      { day: '2026-11-01', paid: 2, failed: 1 },
      { day: '2026-11-02', paid: 1, failed: 0 },
    ];
    expect(highestStack(rows, ['paid', 'failed'])).toBe(3);
    expect(highestStack([], ['paid'])).toBe(0);
  });

  test('amounts on their axis stay short', () => {
    expect(axisAmount(1600)).toBe('1.6K');
    expect(axisAmount(250)).toBe('250');
    expect(axisAmount(0.5)).toBe('0.5');
  });
});

describe('dates in words', () => {
  test('a day or a week by its first day ("3 Nov"), a month with its year, in full for the tooltip', () => {
    expect(periodLabel('2026-11-03', 'day')).toBe('3 Nov');
    expect(periodLabel('2026-11-02', 'week')).toBe('2 Nov');
    expect(periodLabel('2026-11-01', 'month')).toBe('Nov 2026');
    expect(periodName('2026-11-03', 'day')).toBe('3 Nov 2026');
    expect(periodName('2026-11-02', 'week')).toBe('Week of 2 Nov 2026');
    expect(periodName('2026-11-01', 'month')).toBe('November 2026');
  });

  test('labels sit an even number of periods apart, as many as fit', () => {
    expect(labelStep(7, 10)).toBe(1);
    expect(labelStep(30, 10)).toBe(3);
    expect(labelStep(30, 4)).toBe(8);
    expect(labelStep(14, 0)).toBe(14);
  });
});

describe('periods', () => {
  test("a range's days, Mondays or 1sts, counted across month and year ends", () => {
    expect(periodsBetween('2026-12-30', '2027-01-02', 'day')).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(periodsBetween('2026-11-04', '2026-11-20', 'week')).toEqual(['2026-11-02', '2026-11-09', '2026-11-16']);
    expect(periodsBetween('2025-12-15', '2026-02-03', 'month')).toEqual(['2025-12-01', '2026-01-01', '2026-02-01']);
    expect(periodsBetween('2026-11-05', '2026-11-04', 'day')).toEqual([]);
    expect(mondayOf('2026-11-29')).toBe('2026-11-23');
    expect(mondayOf('2026-11-23')).toBe('2026-11-23');
  });

  test('per week: a bucket dated on its Monday before the range still shows', () => {
    const series = perDay(
      [bucket('2026-11-02', { group: 'paid', payments_count: 2 }), bucket('2026-11-09', { group: 'paid', payments_count: 1 })],
      '2026-11-04',
      '2026-11-10',
      'status',
      'week',
    );
    expect(series.rows).toEqual([
      { day: '2026-11-02', paid: 2 },
      { day: '2026-11-09', paid: 1 },
    ]);
  });
});

describe('range presets', () => {
  // A Sunday: the week started on Monday the 23rd.
  const today = '2026-11-29';

  test('each asks the report for its days and the interval that suits them', () => {
    expect(RANGE_PRESETS.map((preset) => preset.label)).toEqual(['7 days', '30 days', '90 days', '12 months']);
    expect(reportQuery(presetRange('7d', today))).toEqual({ interval: 'day', 'filter[created_at_between]': '2026-11-23,2026-11-29' });
    expect(reportQuery(presetRange('30d', today), 'status')).toEqual({
      interval: 'day',
      'filter[created_at_between]': '2026-10-31,2026-11-29',
      group_by: 'status',
    });
    // 13 whole weeks, this one included, from a Monday.
    expect(reportQuery(presetRange('90d', today))).toEqual({ interval: 'week', 'filter[created_at_between]': '2026-08-31,2026-11-29' });
    expect(periodsBetween('2026-08-31', today, 'week')).toHaveLength(13);
    // 12 whole months, this one included, from a 1st (across a year's end).
    expect(reportQuery(presetRange('12m', today), 'method')).toEqual({
      interval: 'month',
      'filter[created_at_between]': '2025-12-01,2026-11-29',
      group_by: 'method',
    });
    expect(presetRange('12m', '2026-01-15').from).toBe('2025-02-01');
  });

  test('a custom range is read by day up to two months, by week up to half a year, by month beyond', () => {
    expect(customRange('2026-10-01', '2026-11-29').interval).toBe('day');
    expect(customRange('2026-06-01', '2026-11-29').interval).toBe('week');
    expect(customRange('2025-01-01', '2026-11-29').interval).toBe('month');
  });
});

describe('series', () => {
  test('states coloured by what they mean: paid green, failed red (never blue), pending neutral; paid at the bottom', () => {
    const series = perDay(
      [
        bucket('2026-11-01', { group: 'failed', payments_count: 1 }),
        bucket('2026-11-01', { group: 'paid', payments_count: 2 }),
        bucket('2026-11-01', { group: 'pending', payments_count: 1 }),
      ],
      '2026-11-01',
      '2026-11-01',
      'status',
    );
    expect(seriesStyles(series, 'status')).toEqual([
      { name: 'paid', label: 'Paid', color: 'green.7' },
      { name: 'pending', label: 'Pending', color: 'gray.5' },
      { name: 'failed', label: 'Failed', color: 'red.7' },
    ]);
  });

  test('named in words, the currency kept when there are several; methods in hues that say nothing of success', () => {
    const series = perDay(
      [
        bucket('2026-11-01', { group: 'fpx', paid_count: 1, paid_amount: 100 }),
        bucket('2026-11-01', { group: 'card', currency: 'SGD', paid_count: 1, paid_amount: 100 }),
        bucket('2026-11-01', { group: 'card', paid_count: 1, paid_amount: 100 }),
      ],
      '2026-11-01',
      '2026-11-01',
      'method',
    );
    const styles = seriesStyles(series, 'method');
    expect(styles.map((style) => style.label)).toEqual(['Card (MYR)', 'Card (SGD)', 'FPX (MYR)']);
    expect(styles.map((style) => style.color.split('.')[0])).not.toContain('green');
    expect(styles.map((style) => style.color.split('.')[0])).not.toContain('red');
  });
});
