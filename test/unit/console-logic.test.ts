// The console's own logic, without a browser: money as merchants read it, business days in the
// business's time zone, the overview's sums and per-day series, list filters, 422s on form fields,
// which events name a payment, the export's progress count, and the team, settings and webhook forms.
import { describe, expect, test } from 'vitest';
import { perDay, summarize, withinDays } from '../../console/src/lib/collections.js';
import { countLines } from '../../console/src/lib/csv-export.js';
import { addDays, dayIn, daysBetween } from '../../console/src/lib/dates.js';
import { fieldErrors, isValidationRefusal } from '../../console/src/lib/errors.js';
import { eventRangeFor, namesPayment } from '../../console/src/lib/events.js';
import { apiQuery, filtersFrom, searchFor } from '../../console/src/lib/filters.js';
import { formatCents, formatUnits, parseAmountToCents } from '../../console/src/lib/money.js';
import {
  assignableRoles,
  base64OfBytes,
  enabledEvents,
  EVENT_TYPES,
  mayManageMember,
  pickedEvents,
  profileChanges,
  profileForm,
} from '../../console/src/lib/team.js';
import { bucket } from '../support/report-buckets.js';

describe('money', () => {
  test('cents and units read as RM 1,250.50', () => {
    expect(formatCents(125050, 'MYR')).toBe('RM 1,250.50');
    expect(formatCents(500, 'MYR')).toBe('RM 5.00');
    expect(formatUnits('30000', 'MYR')).toBe('RM 30,000.00');
    expect(formatUnits(12.5, 'SGD')).toBe('S$ 12.50');
    expect(formatCents(100, 'EUR')).toBe('EUR 1.00');
  });

  test('what a merchant types becomes cents, or nothing', () => {
    expect(parseAmountToCents('12.5')).toBe(1250);
    expect(parseAmountToCents(' 1,250.50 ')).toBe(125050);
    expect(parseAmountToCents('20')).toBe(2000);
    expect(parseAmountToCents('0.07')).toBe(7);
    for (const bad of ['', '12.345', '-5', 'abc', '1e3', '12.']) expect(parseAmountToCents(bad), bad).toBeUndefined();
  });
});

describe('business days', () => {
  test('an instant falls on its Kuala Lumpur day (UTC+8)', () => {
    expect(dayIn('2026-05-19T15:59:59Z', 'Asia/Kuala_Lumpur')).toBe('2026-05-19');
    expect(dayIn('2026-05-19T16:00:00Z', 'Asia/Kuala_Lumpur')).toBe('2026-05-20');
    expect(dayIn('2026-05-19T16:00:00Z', 'UTC')).toBe('2026-05-19');
  });

  test('day arithmetic across months', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(daysBetween('2026-04-29', '2026-05-02')).toEqual(['2026-04-29', '2026-04-30', '2026-05-01', '2026-05-02']);
  });
});

describe('the overview', () => {
  // As GET /api/reports/collections answers: per day and series, every day of a series present.
  const buckets = [
    bucket('2026-05-01', { payments_count: 4, paid_count: 2, failed_count: 1, paid_amount: 8000, refunded_amount: 1000 }),
    bucket('2026-05-01', { currency: 'SGD' }),
    bucket('2026-05-02', { payments_count: 1, paid_count: 1, paid_amount: 2000, refunded_amount: 2000 }),
    bucket('2026-05-02', { currency: 'SGD', payments_count: 1, paid_count: 1, paid_amount: 100 }),
  ];

  test('sums what was collected and refunded per currency; the success rate leaves pending out', () => {
    const summary = summarize(buckets);
    expect(summary.collected).toEqual({ MYR: 10000, SGD: 100 });
    expect(summary.refunded).toEqual({ MYR: 3000 });
    expect(summary).toMatchObject({ collectedCount: 4, failedCount: 1 });
    expect(summary.successRate).toBeCloseTo(4 / 5);
    expect(summarize([bucket('2026-05-01', { payments_count: 1 })]).successRate).toBeNull();
  });

  test('keeps the buckets of the business days asked', () => {
    expect(withinDays(buckets, '2026-05-01', '2026-05-01')).toHaveLength(2);
    expect(withinDays(buckets, '2026-05-02', '2026-05-03')).toHaveLength(2);
  });

  test('per day by method: what was collected in currency units, every day present', () => {
    const byMethod = [
      bucket('2026-05-01', { group: 'card', payments_count: 2, paid_count: 1, paid_amount: 5000 }),
      bucket('2026-05-01', { group: 'fpx', payments_count: 1, paid_count: 1, paid_amount: 3000 }),
      bucket('2026-05-01', { group: 'grabpay', payments_count: 1, failed_count: 1 }),
      bucket('2026-05-03', { group: 'card', payments_count: 1, paid_count: 1, paid_amount: 100 }),
      bucket('2026-05-03', { group: 'fpx' }),
      bucket('2026-05-03', { group: 'grabpay' }),
    ];
    const series = perDay(byMethod, '2026-04-30', '2026-05-03', 'method');
    expect(series.groups).toEqual(['card', 'fpx']);
    expect(series.rows).toEqual([
      { day: '2026-04-30', card: 0, fpx: 0 },
      { day: '2026-05-01', card: 50, fpx: 30 },
      { day: '2026-05-02', card: 0, fpx: 0 },
      { day: '2026-05-03', card: 1, fpx: 0 },
    ]);
  });

  test('per day by status: how many payments ended so; currencies apart when there are several', () => {
    const byStatus = [
      bucket('2026-05-01', { group: 'failed', payments_count: 1, failed_count: 1 }),
      bucket('2026-05-01', { group: 'paid', payments_count: 2, paid_count: 2, paid_amount: 100 }),
      bucket('2026-05-01', { currency: 'SGD', group: 'paid', payments_count: 1, paid_count: 1, paid_amount: 100 }),
    ];
    const series = perDay(byStatus, '2026-05-01', '2026-05-01', 'status');
    expect(series.groups).toEqual(['failed (MYR)', 'paid (MYR)', 'paid (SGD)']);
    expect(series.rows).toEqual([{ day: '2026-05-01', 'failed (MYR)': 1, 'paid (MYR)': 2, 'paid (SGD)': 1 }]);
  });
});

describe('list filters', () => {
  test('from the address, to the API, and back to an address', () => {
    const filters = filtersFrom(new URLSearchParams('status=paid&email=%20a%40b.c%20&method=&page=3&other=x'), ['status', 'email', 'method']);
    expect(filters).toEqual({ status: 'paid', email: 'a@b.c' });
    expect(apiQuery(filters)).toEqual({ 'filter[status]': 'paid', 'filter[email]': 'a@b.c' });
    expect(searchFor({ ...filters, method: ' ' })).toBe('?status=paid&email=a%40b.c');
    expect(searchFor(filters, 2)).toBe('?status=paid&email=a%40b.c&page=2');
    expect(searchFor({})).toBe('');
  });
});

describe("the API's 422s on a form", () => {
  test('each shown field gets its messages; the rest goes in the general message', () => {
    const error = {
      message: 'The email field is required. (and 1 more error)',
      errors: { email: ['The email field is required.'], currency: ['The currency is invalid.'] },
    };
    expect(fieldErrors(error, ['email', 'amount'])).toEqual({ fields: { email: 'The email field is required.' }, general: 'The currency is invalid.' });
    expect(fieldErrors({ message: 'Payment not found.' }, ['email'])).toEqual({ fields: {}, general: 'Payment not found.' });
    expect(fieldErrors({ errors: { email: ['a', 'b'] } }, ['email'])).toEqual({ fields: { email: 'a b' }, general: undefined });
  });

  test('a query the API refused as invalid is not asked again; a failure that may pass is', () => {
    expect(isValidationRefusal({ message: 'The given data was invalid.', errors: { 'filter.card_last4': ['The filter.card last4 must be 4 digits.'] } })).toBe(
      true,
    );
    for (const error of [{ message: 'Server Error.' }, { message: 'Payment not found.' }, new TypeError('Failed to fetch'), null, undefined, 'offline'])
      expect(isValidationRefusal(error)).toBe(false);
  });
});

describe("a payment's events", () => {
  test('the days read run from the payment to a week later, not past today', () => {
    expect(eventRangeFor('2026-05-01T10:00:00Z', '2026-06-01')).toBe('2026-05-01,2026-05-08');
    expect(eventRangeFor('2026-05-01T10:00:00Z', '2026-05-03')).toBe('2026-05-01,2026-05-03');
  });

  test('an event names the payment in its data, or in its payload', () => {
    expect(namesPayment({ payment_id: 'p1' }, 'p1')).toBe(true);
    expect(namesPayment({ event: 'payment.created', data: { payment_id: 'p1' } }, 'p1')).toBe(true);
    expect(namesPayment({ data: { payment_id: 'p2' } }, 'p1')).toBe(false);
    expect(namesPayment(null, 'p1')).toBe(false);
  });
});

test("the export's progress counts line ends", () => {
  expect(countLines(new TextEncoder().encode('line,id\r\npayment,1\r\nrefund,2\r\n'))).toBe(3);
  expect(countLines(new Uint8Array())).toBe(0);
});

describe('the team', () => {
  test('only an owner hands out the owner role', () => {
    expect(assignableRoles('owner')).toEqual(['owner', 'admin', 'developer', 'finance', 'support', 'viewer']);
    expect(assignableRoles('admin')).toEqual(['admin', 'developer', 'finance', 'support', 'viewer']);
  });

  test('a member is managed by others only, an owner by an owner only', () => {
    expect(mayManageMember('admin', 'usr_me', { user_id: 'usr_2', role: 'viewer' })).toBe(true);
    expect(mayManageMember('admin', 'usr_me', { user_id: 'usr_2', role: 'owner' })).toBe(false);
    expect(mayManageMember('owner', 'usr_me', { user_id: 'usr_2', role: 'owner' })).toBe(true);
    expect(mayManageMember('owner', 'usr_me', { user_id: 'usr_me', role: 'owner' })).toBe(false);
  });
});

describe('the business profile form', () => {
  const profile = {
    name: 'Kedai Nur',
    display_name: 'Kedai Nur',
    brand_color: null,
    support_email: 'help@kedai.example.com',
    support_phone: null,
    website_url: 'https://kedai.example.com/',
    time_zone: 'Asia/Kuala_Lumpur',
    default_locale: 'en' as const,
  };

  test('a display name that is the own name shows empty; unset fields are empty', () => {
    expect(profileForm(profile)).toEqual({
      name: 'Kedai Nur',
      display_name: '',
      brand_color: '',
      support_email: 'help@kedai.example.com',
      support_phone: '',
      website_url: 'https://kedai.example.com/',
      time_zone: 'Asia/Kuala_Lumpur',
      default_locale: 'en',
    });
  });

  test('only changed fields are sent, trimmed, an emptied one as null', () => {
    const before = profileForm(profile);
    expect(profileChanges(before, before)).toEqual({});
    expect(profileChanges(before, { ...before, display_name: '  Nur Bakery ', support_email: '', website_url: '', default_locale: 'ms' })).toEqual({
      display_name: 'Nur Bakery',
      support_email: null,
      website_url: null,
      default_locale: 'ms',
    });
    expect(profileChanges(before, { ...before, support_email: 'help@kedai.example.com  ' })).toEqual({});
    expect(profileChanges(before, { ...before, name: ' Kedai Nur Bakery ' })).toEqual({ name: 'Kedai Nur Bakery' });
  });

  test("a logo's bytes in base64, large files included", () => {
    expect(base64OfBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe('iVBORw==');
    const large = new Uint8Array(100_000).map((_, i) => i % 256);
    expect(base64OfBytes(large)).toBe(Buffer.from(large).toString('base64'));
  });
});

describe("a webhook endpoint's events", () => {
  test('all or none ticked is every event; some ticked is those', () => {
    expect(enabledEvents([])).toEqual(['*']);
    expect(enabledEvents([...EVENT_TYPES])).toEqual(['*']);
    expect(enabledEvents(['refund.succeeded', 'payment.created', 'bogus'])).toEqual(['payment.created', 'refund.succeeded']);
  });

  test('`*` ticks every box', () => {
    expect(pickedEvents(['*'])).toEqual([...EVENT_TYPES]);
    expect(pickedEvents(['refund.failed'])).toEqual(['refund.failed']);
  });
});
