// The sandbox acquirer's fee schedule: per payment method a percentage of the amount, a flat amount in sen, or
// both, set by one setting (SANDBOX_FEES), and how many business days after a payment its money is available
// (SANDBOX_AVAILABLE_AFTER_DAYS).
//
// Rounding: the percentage part is rounded half up to the sen (2.5% of RM 0.10 is 0.25 sen: 0 sen; of RM 0.30,
// 0.75 sen: 1 sen), then the flat part is added, and the fee is never more than the amount: a RM 0.50 payment
// by FPX at RM 1.00 flat costs RM 0.50 and nets nothing. Percentages are kept as millionths (2.5% is 25,000)
// and multiplied in BigInt, so no amount is too large and no binary fraction creeps in.
import { SettingError } from './setting-error.js';

export const PAYMENT_METHODS = ['card', 'fpx', 'grabpay'] as const;

export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface Fee {
  /** The percentage part in millionths of the amount: 2.5% is 25_000. */
  millionths: number;
  /** The flat part, in sen. */
  flatSen: number;
}

export type FeeSchedule = Readonly<Record<PaymentMethod, Fee>>;

/** The default, as SANDBOX_FEES writes it. */
export const DEFAULT_SANDBOX_FEES_TEXT = 'card:2.5%,fpx:100,grabpay:1.5%';

/** Cards 2.5%, FPX RM 1.00 flat, GrabPay 1.5%. */
export const DEFAULT_SANDBOX_FEES: FeeSchedule = {
  card: { millionths: 25_000, flatSen: 0 },
  fpx: { millionths: 0, flatSen: 100 },
  grabpay: { millionths: 15_000, flatSen: 0 },
};

/** Business days after the local day of a payment on which its net is available (T+2). */
export const DEFAULT_AVAILABLE_AFTER_DAYS = 2;

export interface SandboxSettlementSettings {
  fees: FeeSchedule;
  availableAfterDays: number;
}

export const DEFAULT_SANDBOX_SETTLEMENT: SandboxSettlementSettings = { fees: DEFAULT_SANDBOX_FEES, availableAfterDays: DEFAULT_AVAILABLE_AFTER_DAYS };

const MILLION = 1_000_000n;
/** A percentage with at most four decimals is a whole number of millionths. */
const PERCENT = /^(\d{1,3})(?:\.(\d{1,4}))?%$/;
const SEN = /^\d{1,9}$/;

function percentPart(text: string, where: string): number {
  const match = PERCENT.exec(text);
  if (!match) throw new SettingError(`${where}: ${JSON.stringify(text)} is not a percentage with at most four decimals (2.5%)`);
  const millionths = Number(match[1]) * 10_000 + Number((match[2] ?? '').padEnd(4, '0'));
  if (millionths > 1_000_000) throw new SettingError(`${where}: ${text} is more than 100%`);
  return millionths;
}

function feeOf(text: string, where: string): Fee {
  const parts = text.split('+').map((part) => part.trim());
  if (parts.length > 2 || parts.some((part) => part === ''))
    throw new SettingError(`${where}: a fee is a percentage (2.5%), a flat amount in sen (100) or both (2.5%+100), got ${JSON.stringify(text)}`);
  const percentages = parts.filter((part) => part.endsWith('%'));
  const flats = parts.filter((part) => !part.endsWith('%'));
  if (percentages.length > 1 || flats.length > 1)
    throw new SettingError(`${where}: ${JSON.stringify(text)} has two ${flats.length > 1 ? 'flat amounts' : 'percentages'}`);
  const flat = flats[0] ?? '0';
  if (!SEN.test(flat)) throw new SettingError(`${where}: ${JSON.stringify(flat)} is neither a percentage (2.5%) nor a whole number of sen (100)`);
  return { millionths: percentages[0] === undefined ? 0 : percentPart(percentages[0], where), flatSen: Number(flat) };
}

/**
 * `card:2.5%,fpx:100,grabpay:1.5%`: each method's fee as a percentage, a flat amount in sen, or both
 * (`card:2.5%+50`). A method the text does not name keeps its default fee; `fpx:0` charges none.
 */
export function parseFeeSchedule(text: string, defaults: FeeSchedule = DEFAULT_SANDBOX_FEES): FeeSchedule {
  const schedule: Record<PaymentMethod, Fee> = { ...defaults };
  const named = new Set<string>();
  for (const entry of text.split(',')) {
    const trimmed = entry.trim();
    const colon = trimmed.indexOf(':');
    if (colon < 0) throw new SettingError(`${JSON.stringify(trimmed)} is not method:fee (card:2.5%)`);
    const method = trimmed.slice(0, colon).trim().toLowerCase();
    if (!(PAYMENT_METHODS as readonly string[]).includes(method))
      throw new SettingError(`${JSON.stringify(trimmed)}: unknown payment method ${JSON.stringify(method)} (${PAYMENT_METHODS.join(', ')})`);
    if (named.has(method)) throw new SettingError(`${method} is named twice`);
    named.add(method);
    schedule[method as PaymentMethod] = feeOf(trimmed.slice(colon + 1).trim(), method);
  }
  return schedule;
}

/** The fee in sen on a payment of `amountInSen` (a whole number from 0) by `method`; see the rounding rule at the top. */
export function feeFor(method: PaymentMethod, amountInSen: number, schedule: FeeSchedule = DEFAULT_SANDBOX_FEES): number {
  if (!Number.isSafeInteger(amountInSen) || amountInSen < 0) throw new RangeError(`an amount is a whole number of sen from 0, got ${amountInSen}`);
  const fee = schedule[method];
  const amount = BigInt(amountInSen);
  const percentage = (amount * BigInt(fee.millionths) + MILLION / 2n) / MILLION;
  const total = percentage + BigInt(fee.flatSen);
  return Number(total < amount ? total : amount);
}

/** The amount less its fee: what the payment adds to the balance. */
export function netOf(method: PaymentMethod, amountInSen: number, schedule: FeeSchedule = DEFAULT_SANDBOX_FEES): number {
  return amountInSen - feeFor(method, amountInSen, schedule);
}
