// Business days (domain/business-days.ts) in Malaysia's calendar (domain/malaysian-holidays.ts): the built-in
// table, T+n across weekends and holidays, the distance between days, the settings that change the calendar,
// and a property: adding n business days and counting them back agree, at the edges of the years too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BusinessCalendar,
  DEFAULT_WEEKEND,
  checkedDayNumber,
  dayNumberOf,
  parseHolidayFile,
  parseHolidayList,
  parseWeekend,
} from '../../server/domain/business-days.js';
import { MALAYSIAN_NATIONAL_HOLIDAYS, malaysianCalendar } from '../../server/domain/malaysian-holidays.js';
import { dayOfNumber } from '../../server/domain/report-intervals.js';
import { SettingError } from '../../server/domain/setting-error.js';

const calendar = malaysianCalendar();
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

describe('the built-in national holidays', () => {
  const years = Object.entries(MALAYSIAN_NATIONAL_HOLIDAYS);

  it('cover 2025, 2026 and 2027, each date a real day of its year, in order, each with a name', () => {
    expect(years.map(([year]) => year)).toEqual(['2025', '2026', '2027']);
    for (const [year, holidays] of years) {
      const dates = holidays.map((holiday) => holiday.date);
      for (const holiday of holidays) {
        expect(dayNumberOf(holiday.date), holiday.date).toBeDefined();
        expect(holiday.date.startsWith(`${year}-`)).toBe(true);
        expect(holiday.name).not.toBe('');
      }
      expect(dates).toEqual([...dates].sort());
      expect(new Set(dates).size).toBe(dates.length);
    }
  });

  it('keep the fixed dates and the Agong on the first Monday of June', () => {
    for (const [year, holidays] of years) {
      const on = (date: string) => holidays.find((holiday) => holiday.date === `${year}-${date}`)?.name;
      expect(on('05-01')).toBe('Labour Day');
      expect(on('08-31')).toBe('National Day');
      expect(on('09-16')).toBe('Malaysia Day');
      expect(on('12-25')).toBe('Christmas Day');
      const agong = holidays.find((holiday) => holiday.name === "Yang di-Pertuan Agong's Birthday")!;
      expect(weekday(agong.date)).toBe(1);
      expect(Number(agong.date.slice(8))).toBeLessThanOrEqual(7);
    }
  });

  it('replace every holiday on a Sunday with the next day that is not one already, and replace nothing else', () => {
    for (const [, holidays] of years) {
      const dates = new Set(holidays.map((holiday) => holiday.date));
      const replacements = holidays.filter((holiday) => holiday.name.includes('replacement')).map((holiday) => holiday.date);
      const expected: string[] = [];
      for (const holiday of holidays.filter((h) => weekday(h.date) === 0)) {
        let day = checkedDayNumber(holiday.date) + 1;
        while (dates.has(dayOfNumber(day)) && !replacements.includes(dayOfNumber(day))) day += 1;
        expected.push(dayOfNumber(day));
      }
      expect(replacements.sort()).toEqual(expected.sort());
    }
  });

  it('name the moving festivals of each year', () => {
    expect(calendar.holidayName('2025-03-31')).toBe('Hari Raya Aidilfitri');
    expect(calendar.holidayName('2025-10-20')).toBe('Deepavali');
    expect(calendar.holidayName('2026-02-17')).toBe('Chinese New Year');
    expect(calendar.holidayName('2026-05-31')).toBe('Wesak Day');
    expect(calendar.holidayName('2027-03-10')).toBe('Hari Raya Aidilfitri (estimated)');
    expect(calendar.holidayName('2026-03-24')).toBeUndefined();
  });
});

describe('addBusinessDays', () => {
  it('counts T+2 from a Friday to the Tuesday', () => {
    expect(calendar.addBusinessDays('2025-07-04', 2)).toBe('2025-07-08');
    expect(calendar.addBusinessDays('2025-07-04', 1)).toBe('2025-07-07');
  });

  it('with 0 answers the day itself when it is a business day, else the next business day', () => {
    expect(calendar.addBusinessDays('2025-07-08', 0)).toBe('2025-07-08');
    expect(calendar.addBusinessDays('2025-07-05', 0)).toBe('2025-07-07');
    expect(calendar.addBusinessDays('2025-12-25', 0)).toBe('2025-12-26');
  });

  it('counts from the business day a weekend belongs to: T+1 from a Saturday is the Tuesday', () => {
    expect(calendar.addBusinessDays('2025-07-05', 1)).toBe('2025-07-08');
    expect(calendar.addBusinessDays('2025-07-06', 2)).toBe('2025-07-09');
  });

  it('steps over Hari Raya Aidilfitri after a weekend (2025: Monday and Tuesday)', () => {
    expect(calendar.addBusinessDays('2025-03-28', 1)).toBe('2025-04-02');
    expect(calendar.addBusinessDays('2025-03-28', 2)).toBe('2025-04-03');
  });

  it('steps over a festival on a Sunday and its replacement Monday (Hari Raya 2026)', () => {
    expect(calendar.addBusinessDays('2026-03-20', 1)).toBe('2026-03-24');
  });

  it("steps over Deepavali, Christmas, and the Agong's birthday beside Wesak's replacement", () => {
    expect(calendar.addBusinessDays('2025-10-17', 2)).toBe('2025-10-22');
    expect(calendar.addBusinessDays('2025-12-24', 2)).toBe('2025-12-29');
    expect(calendar.addBusinessDays('2026-05-29', 1)).toBe('2026-06-03');
    expect(calendar.addBusinessDays('2026-05-26', 1)).toBe('2026-05-28');
  });

  it('refuses a count that is not a whole number from 0, a malformed date, and a result after 9999-12-31', () => {
    expect(() => calendar.addBusinessDays('2025-07-04', -1)).toThrow(RangeError);
    expect(() => calendar.addBusinessDays('2025-07-04', 1.5)).toThrow(RangeError);
    expect(() => calendar.addBusinessDays('2025-02-30', 1)).toThrow('2025-02-30');
    expect(() => calendar.addBusinessDays('04/07/2025', 1)).toThrow(RangeError);
    expect(calendar.addBusinessDays('9999-12-30', 1)).toBe('9999-12-31');
    expect(() => calendar.addBusinessDays('9999-12-31', 1)).toThrow('after 9999-12-31');
  });
});

describe('businessDaysBetween and withinBusinessDays', () => {
  it('count the business days from the first day included to the second excluded, negative backwards', () => {
    expect(calendar.businessDaysBetween('2025-07-04', '2025-07-08')).toBe(2);
    expect(calendar.businessDaysBetween('2025-07-08', '2025-07-04')).toBe(-2);
    expect(calendar.businessDaysBetween('2025-07-05', '2025-07-07')).toBe(0);
    expect(calendar.businessDaysBetween('2025-07-04', '2025-07-05')).toBe(1);
    expect(calendar.businessDaysBetween('2025-07-07', '2025-07-07')).toBe(0);
  });

  it('leave holidays out: a week apart across Hari Raya 2025 is three business days', () => {
    expect(calendar.businessDaysBetween('2025-03-27', '2025-04-03')).toBe(3);
    expect(calendar.withinBusinessDays('2025-04-03', '2025-03-27', 3)).toBe(true);
    expect(calendar.withinBusinessDays('2025-04-03', '2025-03-26', 3)).toBe(false);
    expect(calendar.withinBusinessDays('2025-03-26', '2025-04-03', 3)).toBe(false);
  });

  it('count a year of business days: 2025 has 261 weekdays less the national holidays on weekdays', () => {
    const weekdayHolidays = MALAYSIAN_NATIONAL_HOLIDAYS[2025]!.filter((holiday) => ![0, 6].includes(weekday(holiday.date))).length;
    expect(calendar.businessDaysBetween('2025-01-01', '2026-01-01')).toBe(261 - weekdayHolidays);
  });
});

describe('the settings of a calendar', () => {
  it('a Friday-Saturday weekend: T+1 from a Thursday is the Sunday', () => {
    const northEast = malaysianCalendar({ weekend: parseWeekend('fri,sat'), holidays: [], builtIn: true });
    expect(northEast.addBusinessDays('2025-07-03', 1)).toBe('2025-07-06');
    expect(northEast.isBusinessDay('2025-07-04')).toBe(false);
    expect(northEast.isBusinessDay('2025-07-06')).toBe(true);
  });

  it('configured holidays add to the built-in ones; turned off, only they count', () => {
    const holidays = parseHolidayList('2026-02-01 Federal Territory Day,2026-03-06');
    const kualaLumpur = malaysianCalendar({ weekend: DEFAULT_WEEKEND, holidays, builtIn: true });
    expect(kualaLumpur.holidayName('2026-03-06')).toBe('Holiday');
    expect(kualaLumpur.addBusinessDays('2026-03-05', 1)).toBe('2026-03-09');
    expect(kualaLumpur.isBusinessDay('2026-02-17')).toBe(false);
    const own = malaysianCalendar({ weekend: DEFAULT_WEEKEND, holidays, builtIn: false });
    expect(own.isBusinessDay('2026-02-17')).toBe(true);
    expect(own.isBusinessDay('2026-03-06')).toBe(false);
  });

  it('a year outside the table has weekends and configured holidays only', () => {
    expect(calendar.businessDaysBetween('2028-01-03', '2028-01-10')).toBe(5);
  });

  it('two names for one day are both kept', () => {
    const both = new BusinessCalendar(DEFAULT_WEEKEND, parseHolidayList('2026-06-01 Gawai Dayak,2026-06-01 Extra'));
    expect(both.holidayName('2026-06-01')).toBe('Gawai Dayak; Extra');
  });

  it('reads a holiday file of `YYYY-MM-DD name` lines with comments and blank lines, naming a bad line by its number', () => {
    const file = "# Kuala Lumpur, 2026\n2026-01-01 New Year's Day\r\n\n2026-02-01 Federal Territory Day\n  2026-03-07   Nuzul Al-Quran  \n";
    expect(parseHolidayFile(file)).toEqual([
      { date: '2026-01-01', name: "New Year's Day" },
      { date: '2026-02-01', name: 'Federal Territory Day' },
      { date: '2026-03-07', name: 'Nuzul Al-Quran' },
    ]);
    expect(() => parseHolidayFile('2026-01-01 New Year\n2026-02-30 Nonsense\n')).toThrow('line 2: "2026-02-30 Nonsense"');
    expect(() => parseHolidayFile('2026-01-01New Year')).toThrow(SettingError);
    expect(() => parseHolidayList('2026-01-01,01/02/2026')).toThrow('entry 2: "01/02/2026"');
  });

  it('reads a weekend by the days’ first three letters and refuses anything else', () => {
    expect(parseWeekend('Sat, sun')).toEqual([6, 0]);
    expect(() => parseWeekend('sat,saturday')).toThrow('"saturday" is not a day of the week');
    expect(() => parseWeekend('sat,sat')).toThrow('sat is named twice');
    expect(() => parseWeekend('sun,mon,tue,wed,thu,fri,sat')).toThrow('no business day');
  });

  it('finds the local day of an instant in the business time zone before counting', () => {
    // 01:00 on Friday 28 March 2025 in Kuala Lumpur, still Thursday in UTC.
    expect(calendar.businessDaysAfterInstant('2025-03-27T17:00:00Z', 'Asia/Kuala_Lumpur', 2)).toBe('2025-04-03');
    expect(calendar.businessDaysAfterInstant('2025-03-27T17:00:00Z', 'UTC', 2)).toBe('2025-04-02');
  });
});

describe('property: adding business days and counting them back agree', () => {
  const FIRST = checkedDayNumber('0001-01-01');
  const LAST = checkedDayNumber('9999-12-31');
  const calendars = [calendar, malaysianCalendar({ weekend: [5, 6], holidays: parseHolidayList('2026-02-01,2026-03-07'), builtIn: true })];
  /** Mostly days near the holiday table, some at the ends of the years a date can have. */
  const day = fc.oneof(
    fc.integer({ min: checkedDayNumber('2024-12-01'), max: checkedDayNumber('2028-01-31') }),
    fc.integer({ min: FIRST, max: FIRST + 400 }),
    fc.integer({ min: LAST - 400, max: LAST - 120 }),
    fc.integer({ min: FIRST, max: LAST - 120 }),
  );

  /** The oracle: business days in [a, b) counted one day at a time. */
  const countByDays = (on: BusinessCalendar, a: number, b: number) => {
    let count = 0;
    for (let at = Math.min(a, b); at < Math.max(a, b); at += 1) if (on.isBusinessDay(dayOfNumber(at))) count += 1;
    return a <= b ? count : 0 - count;
  };

  it('businessDaysBetween(a, addBusinessDays(a, n)) is n, and the result is a business day no earlier than a', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 60 }), fc.constantFrom(0, 1), (a, n, which) => {
        const on = calendars[which]!;
        const start = dayOfNumber(a);
        const end = on.addBusinessDays(start, n);
        expect(on.isBusinessDay(end)).toBe(true);
        expect(checkedDayNumber(end)).toBeGreaterThanOrEqual(a);
        expect(on.businessDaysBetween(start, end)).toBe(n);
        if (n > 0) expect(on.businessDaysBetween(start, on.addBusinessDays(start, n - 1))).toBe(n - 1);
      }),
      { numRuns: 300 },
    );
  });

  it('businessDaysBetween counts what a day-by-day walk counts, and adding it back lands on the first business day from b', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: -100, max: 100 }), fc.constantFrom(0, 1), (a, length, which) => {
        const on = calendars[which]!;
        const b = Math.max(FIRST, a + length);
        const between = on.businessDaysBetween(dayOfNumber(a), dayOfNumber(b));
        expect(between).toBe(countByDays(on, a, b));
        if (between >= 0) expect(on.addBusinessDays(dayOfNumber(a), between)).toBe(on.addBusinessDays(dayOfNumber(b), 0));
      }),
      { numRuns: 300 },
    );
  });
});
