// The console's decisions on where a member stands, without a browser: which pages a role opens (and
// the refusal's words), a member whose business requires two-factor sign-in sent to set it up, the
// API's limits on amounts read as money, a link's expiry typed in the business's time zone, and the
// character counter of the link forms' limited fields.
import { describe, expect, test } from 'vitest';
import { accessTo, PAGES } from '../../console/src/lib/access.js';
import { fieldErrors, isFinalRefusal, moneyMessage } from '../../console/src/lib/errors.js';
import { characterCount, expiryInstant, linkOptionsBody } from '../../console/src/lib/link-form.js';

const viewer = { role: 'viewer' as const, permissions: ['payments:read', 'team:read'], two_factor_setup_required: false };

describe('which pages a member opens', () => {
  test('a page the role lacks is refused by name and role', () => {
    expect(accessTo(viewer, { page: PAGES.payouts })).toEqual({ kind: 'refused', message: 'Your role, Viewer, cannot see Payouts.' });
    expect(accessTo({ ...viewer, role: 'support' }, { page: PAGES.newOpenLink })).toEqual({
      kind: 'refused',
      message: 'Your role, Support, cannot create open payment links.',
    });
  });

  test('a page the role holds, the member’s own pages and a page without a handle open', () => {
    expect(accessTo(viewer, { page: PAGES.payments })).toEqual({ kind: 'open' });
    expect(accessTo(viewer, { account: true })).toEqual({ kind: 'open' });
    expect(accessTo(viewer, undefined)).toEqual({ kind: 'open' });
  });

  test('a member who must set up two-factor sign-in is sent to do it, not told of a permission', () => {
    const forced = { ...viewer, permissions: [], two_factor_setup_required: true };
    expect(accessTo(forced, { page: PAGES.overview })).toEqual({ kind: 'set-up-two-factor' });
    expect(accessTo(forced, { account: true })).toEqual({ kind: 'open' });
  });
});

describe('the API’s limits on amounts', () => {
  test('cents read as money on a money field', () => {
    expect(moneyMessage('The amount must not be greater than 3000000.', { currency: 'MYR', unit: 'cents' })).toBe('The amount must be at most RM 30,000.00.');
    expect(moneyMessage('The amount must be at least 500.', { currency: 'MYR', unit: 'cents' })).toBe('The amount must be at least RM 5.00.');
    expect(moneyMessage('The minimum amount must not be greater than 30000.', { currency: 'MYR', unit: 'units' })).toBe(
      'The minimum amount must be at most RM 30,000.00.',
    );
    expect(moneyMessage('The amount must not be greater than 150050, what is left to refund of this payment.', { currency: 'MYR', unit: 'cents' })).toBe(
      'The amount must be at most RM 1,500.50, what is left to refund of this payment.',
    );
  });

  test('a length limit, and any other field, keep their words', () => {
    expect(moneyMessage('The amount must not be greater than 50 characters.', { currency: 'MYR', unit: 'cents' })).toBe(
      'The amount must not be greater than 50 characters.',
    );
    const error = {
      message: 'The given data was invalid.',
      errors: { amount: ['The amount must not be greater than 3000000.'], title: ['The title must not be greater than 50 characters.'] },
    };
    expect(fieldErrors(error, ['amount', 'title'], { amount: { currency: 'MYR', unit: 'cents' } }).fields).toEqual({
      amount: 'The amount must be at most RM 30,000.00.',
      title: 'The title must not be greater than 50 characters.',
    });
    expect(fieldErrors(error, ['amount']).fields.amount).toBe('The amount must not be greater than 3000000.');
  });

  test('a 403 is final: the console does not ask again', () => {
    expect(isFinalRefusal({ message: 'This key or role lacks the payouts:read permission.', required_permission: 'payouts:read' })).toBe(true);
    expect(isFinalRefusal({ message: 'The given data was invalid.', errors: {} })).toBe(true);
    expect(isFinalRefusal({ message: 'Server Error' })).toBe(false);
  });
});

describe('the link forms', () => {
  test('an expiry is the wall time in the business’s zone, with its offset', () => {
    expect(expiryInstant('2026-12-31T23:59', 'Asia/Kuala_Lumpur')).toBe('2026-12-31T23:59:00+08:00');
    expect(expiryInstant('2026-07-01T09:30', 'Europe/London')).toBe('2026-07-01T09:30:00+01:00');
    expect(expiryInstant('2026-01-15T09:30', 'America/New_York')).toBe('2026-01-15T09:30:00-05:00');
    expect(expiryInstant('', 'Asia/Kuala_Lumpur')).toBeUndefined();
    expect(expiryInstant('31/12/2026', 'Asia/Kuala_Lumpur')).toBeNull();
  });

  test('empty options are left out; a set one is sent as the API names it', () => {
    expect(linkOptionsBody({ expires_at: '', redirect_url: ' ', locale: '' }, 'Asia/Kuala_Lumpur')).toEqual({ body: {} });
    expect(linkOptionsBody({ expires_at: '2026-12-31T23:59', redirect_url: 'https://shop.example/thanks', locale: 'ms' }, 'Asia/Kuala_Lumpur')).toEqual({
      body: { expires_at: '2026-12-31T23:59:00+08:00', redirect_url: 'https://shop.example/thanks', locale: 'ms' },
    });
    expect(linkOptionsBody({ expires_at: 'tomorrow', redirect_url: '', locale: '' }, 'Asia/Kuala_Lumpur')).toHaveProperty('error');
  });

  test('the counter counts characters as the API does, and says when a field is over', () => {
    expect(characterCount('Kenduri', 'title')).toEqual({ text: '7 of 50 characters', over: undefined });
    expect(characterCount('😀'.repeat(50), 'title').over).toBeUndefined();
    expect(characterCount('x'.repeat(51), 'title').over).toBe('At most 50 characters.');
  });
});
