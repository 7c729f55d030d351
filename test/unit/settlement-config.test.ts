// The settlement settings of server/config.ts: the sandbox's fees and availability, the calendar's weekend and
// holidays (a list, a file, the built-in table), each refused with the variable's name and the bad part.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { malaysianCalendar } from '../../server/domain/malaysian-holidays.js';
import { DEFAULT_SANDBOX_FEES, feeFor } from '../../server/domain/settlement-fees.js';

describe('loadConfig: settlement', () => {
  it('defaults to the sandbox schedule, T+2, a Saturday-Sunday weekend, the built-in holidays only and 5 days for a deposit', () => {
    expect(loadConfig({}).settlement).toEqual({
      calendar: { weekend: [6, 0], holidays: [], builtIn: true },
      sandbox: { fees: DEFAULT_SANDBOX_FEES, availableAfterDays: 2 },
      depositGraceDays: 5,
    });
  });

  it('reads PAYOUT_DEPOSIT_GRACE_DAYS, from 1 to 60', () => {
    expect(loadConfig({ PAYOUT_DEPOSIT_GRACE_DAYS: '10' }).settlement.depositGraceDays).toBe(10);
    expect(() => loadConfig({ PAYOUT_DEPOSIT_GRACE_DAYS: '0' })).toThrow(/PAYOUT_DEPOSIT_GRACE_DAYS/);
  });

  it('reads SANDBOX_FEES and SANDBOX_AVAILABLE_AFTER_DAYS', () => {
    const { sandbox } = loadConfig({ SANDBOX_FEES: 'card:3%+20', SANDBOX_AVAILABLE_AFTER_DAYS: '1' }).settlement;
    expect(feeFor('card', 1_000, sandbox.fees)).toBe(50);
    expect(feeFor('fpx', 1_000, sandbox.fees)).toBe(100);
    expect(sandbox.availableAfterDays).toBe(1);
  });

  it.each([
    ['SANDBOX_FEES', 'card:2.5%,paypal:1%', 'SANDBOX_FEES: "paypal:1%": unknown payment method "paypal"'],
    ['SANDBOX_AVAILABLE_AFTER_DAYS', '31', 'SANDBOX_AVAILABLE_AFTER_DAYS must be an integer from 0 to 30'],
    ['SETTLEMENT_WEEKEND', 'sat,sunday', 'SETTLEMENT_WEEKEND: "sunday" is not a day of the week'],
    ['SETTLEMENT_HOLIDAYS', '2026-02-01,2026-02-31', 'SETTLEMENT_HOLIDAYS: entry 2: "2026-02-31"'],
    ['SETTLEMENT_BUILT_IN_HOLIDAYS', 'maybe', 'SETTLEMENT_BUILT_IN_HOLIDAYS must be on or off'],
    ['SETTLEMENT_HOLIDAYS_FILE', '/nonexistent/holidays.txt', 'SETTLEMENT_HOLIDAYS_FILE: cannot read /nonexistent/holidays.txt'],
  ])('refuses %s=%j, naming the variable and the bad part', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('adds the holidays of the list and of the file to the calendar, and can turn the built-in table off', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'holidays-')), 'kuala-lumpur.txt');
    writeFileSync(file, '# Kuala Lumpur\n2026-02-02 Federal Territory Day (replacement)\n2026-03-06 Test day\n');
    const { calendar } = loadConfig({
      SETTLEMENT_HOLIDAYS: '2026-01-01 New Year',
      SETTLEMENT_HOLIDAYS_FILE: file,
      SETTLEMENT_WEEKEND: 'fri,sat',
      SETTLEMENT_BUILT_IN_HOLIDAYS: 'off',
    }).settlement;
    expect(calendar.holidays.map((holiday) => holiday.date)).toEqual(['2026-01-01', '2026-02-02', '2026-03-06']);
    const days = malaysianCalendar(calendar);
    expect(days.isBusinessDay('2026-02-02')).toBe(false);
    expect(days.isBusinessDay('2026-02-17')).toBe(true);
    expect(days.isBusinessDay('2026-03-08')).toBe(true);
    expect(days.addBusinessDays('2026-03-05', 1)).toBe('2026-03-08');
    writeFileSync(file, '2026-02-02 fine\nnot a holiday\n');
    expect(() => loadConfig({ SETTLEMENT_HOLIDAYS_FILE: file })).toThrow('SETTLEMENT_HOLIDAYS_FILE: line 2: "not a holiday"');
  });
});
