// The settlement terms a service runs with, from its configuration: the business calendar (the
// weekend, Malaysia's national holidays and the configured ones), the sandbox's fee schedule and
// delay, and how long a payout's deposit may take to show on a statement.
import { DEFAULT_DEPOSIT_GRACE_DAYS } from '../../domain/deposit-matching.js';
import { DEFAULT_CALENDAR_SETTINGS, malaysianCalendar, type CalendarSettings } from '../../domain/malaysian-holidays.js';
import { DEFAULT_SANDBOX_SETTLEMENT, feeFor, PAYMENT_METHODS, type PaymentMethod, type SandboxSettlementSettings } from '../../domain/settlement-fees.js';
import type { SettlementTerms } from './ledger.js';

export interface SettlementSettings {
  calendar: CalendarSettings;
  sandbox: SandboxSettlementSettings;
  /** PAYOUT_DEPOSIT_GRACE_DAYS. */
  depositGraceDays: number;
}

const isMethod = (method: string): method is PaymentMethod => (PAYMENT_METHODS as readonly string[]).includes(method);

export function settlementTerms(settings: Partial<SettlementSettings> = {}): SettlementTerms {
  const calendar = malaysianCalendar(settings.calendar ?? DEFAULT_CALENDAR_SETTINGS);
  const sandbox = settings.sandbox ?? DEFAULT_SANDBOX_SETTLEMENT;
  return {
    calendar,
    sandboxFee: (method, amount) => (isMethod(method) ? feeFor(method, amount, sandbox.fees) : 0),
    availableOn: (day) => calendar.addBusinessDays(day, sandbox.availableAfterDays),
    isBusinessDay: (day) => calendar.isBusinessDay(day),
    depositGraceDays: settings.depositGraceDays ?? DEFAULT_DEPOSIT_GRACE_DAYS,
  };
}
