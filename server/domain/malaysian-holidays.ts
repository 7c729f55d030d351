// Malaysia's national public holidays, the days the country's banks are shut whatever the state, for the years
// settlement needs now. The Islamic, Chinese, Hindu and Buddhist festivals move every year, so this is a table
// by year rather than a rule; a year not in it has no built-in holiday, and its holidays come from the
// configuration (SETTLEMENT_HOLIDAYS, SETTLEMENT_HOLIDAYS_FILE).
//
// What is in it: the federal holidays every state keeps (Deepavali too, which Sarawak alone does not), and
// one-off national holidays the government declared. Replacement holidays follow the Holidays Act 1951 for a
// Saturday-Sunday weekend: a holiday on a Sunday moves to the Monday, or to the next day that is not already a
// holiday. A holiday on a Saturday is not replaced.
// What is not: state holidays (New Year's Day, Thaipusam, Federal Territory Day, Nuzul Al-Quran, the rulers'
// birthdays...), even where the acquirer's bank is (Kuala Lumpur keeps four of them); an operator adds those
// of the state that matters in the holiday file. Kedah, Kelantan and Terengganu, which rest on Friday and
// Saturday, replace holidays differently: a business there sets SETTLEMENT_WEEKEND, turns the built-in table
// off and lists its holidays in full.
//
// 2025 and 2026 are the dates the Prime Minister's Department gazetted. In 2027 the festivals that move, but
// Chinese New Year, are estimates (named so): the Islamic ones from the MABIMS moon-visibility criteria
// Malaysia's calendar uses, Wesak and Deepavali from their lunar calendars. Check them against the year's
// gazetted list; where one differs, turn the built-in table off (SETTLEMENT_BUILT_IN_HOLIDAYS=off) and list
// the year's holidays in the file.
import { BusinessCalendar, DEFAULT_WEEKEND, type Holiday, type Weekday } from './business-days.js';

const table = (entries: [string, string][]): readonly Holiday[] => entries.map(([date, name]) => ({ date, name }));

export const MALAYSIAN_NATIONAL_HOLIDAYS: Readonly<Record<number, readonly Holiday[]>> = {
  2025: table([
    ['2025-01-29', 'Chinese New Year'],
    ['2025-01-30', 'Chinese New Year (second day)'],
    ['2025-03-31', 'Hari Raya Aidilfitri'],
    ['2025-04-01', 'Hari Raya Aidilfitri (second day)'],
    ['2025-05-01', 'Labour Day'],
    ['2025-05-12', 'Wesak Day'],
    ['2025-06-02', "Yang di-Pertuan Agong's Birthday"],
    ['2025-06-07', 'Hari Raya Haji'],
    ['2025-06-27', 'Awal Muharram'],
    ['2025-08-31', 'National Day'],
    ['2025-09-01', 'National Day (replacement)'],
    ['2025-09-05', 'Maulidur Rasul'],
    ['2025-09-15', 'Special public holiday (Cuti Peristiwa)'],
    ['2025-09-16', 'Malaysia Day'],
    ['2025-10-20', 'Deepavali'],
    ['2025-12-25', 'Christmas Day'],
  ]),
  2026: table([
    ['2026-02-17', 'Chinese New Year'],
    ['2026-02-18', 'Chinese New Year (second day)'],
    ['2026-03-21', 'Hari Raya Aidilfitri'],
    ['2026-03-22', 'Hari Raya Aidilfitri (second day)'],
    ['2026-03-23', 'Hari Raya Aidilfitri (replacement)'],
    ['2026-05-01', 'Labour Day'],
    ['2026-05-27', 'Hari Raya Haji'],
    ['2026-05-31', 'Wesak Day'],
    ['2026-06-01', "Yang di-Pertuan Agong's Birthday"],
    ['2026-06-02', 'Wesak Day (replacement)'],
    ['2026-06-17', 'Awal Muharram'],
    ['2026-08-25', 'Maulidur Rasul'],
    ['2026-08-31', 'National Day'],
    ['2026-09-16', 'Malaysia Day'],
    ['2026-11-08', 'Deepavali'],
    ['2026-11-09', 'Deepavali (replacement)'],
    ['2026-12-25', 'Christmas Day'],
  ]),
  2027: table([
    ['2027-02-06', 'Chinese New Year'],
    ['2027-02-07', 'Chinese New Year (second day)'],
    ['2027-02-08', 'Chinese New Year (replacement)'],
    ['2027-03-10', 'Hari Raya Aidilfitri (estimated)'],
    ['2027-03-11', 'Hari Raya Aidilfitri (second day, estimated)'],
    ['2027-05-01', 'Labour Day'],
    ['2027-05-17', 'Hari Raya Haji (estimated)'],
    ['2027-05-20', 'Wesak Day (estimated)'],
    ['2027-06-06', 'Awal Muharram (estimated)'],
    ['2027-06-07', "Yang di-Pertuan Agong's Birthday"],
    ['2027-06-08', 'Awal Muharram (replacement, estimated)'],
    ['2027-08-15', 'Maulidur Rasul (estimated)'],
    ['2027-08-16', 'Maulidur Rasul (replacement, estimated)'],
    ['2027-08-31', 'National Day'],
    ['2027-09-16', 'Malaysia Day'],
    ['2027-10-28', 'Deepavali (estimated)'],
    ['2027-12-25', 'Christmas Day'],
  ]),
};

export interface CalendarSettings {
  weekend: readonly Weekday[];
  /** Holidays from the configuration, added to the built-in ones. */
  holidays: readonly Holiday[];
  /** Off: only the configured holidays count, for a state or a year the built-in table does not fit. */
  builtIn: boolean;
}

export const DEFAULT_CALENDAR_SETTINGS: CalendarSettings = { weekend: DEFAULT_WEEKEND, holidays: [], builtIn: true };

/** The calendar settlement counts business days in: the national holidays (unless turned off) and the configured ones. */
export function malaysianCalendar(settings: CalendarSettings = DEFAULT_CALENDAR_SETTINGS): BusinessCalendar {
  const builtIn = settings.builtIn ? Object.values(MALAYSIAN_NATIONAL_HOLIDAYS).flat() : [];
  return new BusinessCalendar(settings.weekend, [...builtIn, ...settings.holidays]);
}
