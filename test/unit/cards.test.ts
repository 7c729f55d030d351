import { describe, expect, it } from 'vitest';
import { brandOf, checkCard, parseExpiry, passesLuhn } from '../../server/acquirers/cards.js';
import { SANDBOX_TEST_CARDS, SandboxAcquirer } from '../../server/acquirers/sandbox.js';

const now = new Date('2026-11-23T10:00:00Z');

describe('card checks', () => {
  it('accepts numbers that pass Luhn and rejects those that do not', () => {
    for (const number of Object.keys(SANDBOX_TEST_CARDS)) expect(passesLuhn(number)).toBe(true);
    expect(passesLuhn('4242424242424241')).toBe(false);
    expect(passesLuhn('42424242')).toBe(false);
    expect(passesLuhn('4242a24242424242')).toBe(false);
  });

  it('names the brand from the number', () => {
    expect(brandOf('4242424242424242')).toBe('visa');
    expect(brandOf('5555555555554444')).toBe('mastercard');
    expect(brandOf('2221000000000009')).toBe('mastercard');
    expect(brandOf('378282246310005')).toBe('amex');
    expect(brandOf('6011111111111117')).toBe('unknown');
  });

  it('treats a card as valid through the last day of its expiry month', () => {
    expect(parseExpiry('11/26', now)).toEqual({ month: 11, year: 2026 });
    expect(parseExpiry('10/26', now)).toBe('expired');
    expect(parseExpiry('12/2030', now)).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry('1230', now)).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry('13/30', now)).toBe('malformed');
    expect(parseExpiry('00/30', now)).toBe('malformed');
    expect(parseExpiry('12-30', now)).toBe('malformed');
    expect(parseExpiry('12/99', now)).toBe('malformed');
  });

  it('wants a 3-digit CVC, or 4 digits for American Express', () => {
    expect(checkCard({ number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' }, now)).toMatchObject({
      ok: true,
      card: { last4: '4242', brand: 'visa', expMonth: 12, expYear: 2030 },
    });
    expect(checkCard({ number: '4242424242424242', expiry: '12/30', cvc: '1234' }, now)).toEqual({ ok: false, errors: { cvc: 'The CVC must be 3 digits.' } });
    expect(checkCard({ number: '378282246310005', expiry: '12/30', cvc: '123' }, now)).toEqual({ ok: false, errors: { cvc: 'The CVC must be 4 digits.' } });
  });

  it('reports every bad field at once', () => {
    const checked = checkCard({ number: '1234', expiry: 'soon', cvc: '' }, now);
    expect(checked).toEqual({
      ok: false,
      errors: { number: 'The card number is not valid.', expiry: 'Enter the expiry date as MM/YY.', cvc: 'The CVC must be 3 digits.' },
    });
  });
});

describe('sandbox acquirer', () => {
  const provider = new SandboxAcquirer();
  const card = (number: string) => {
    const checked = checkCard({ number, expiry: '12/30', cvc: number.startsWith('3') ? '1234' : '123' }, now);
    if (!checked.ok) throw new Error(`bad test card ${number}`);
    return checked.card;
  };
  const authorize = (number: string) => provider.authorize({ reference: 'p1', amount: 1000, currency: 'MYR', card: card(number), description: 'test' });

  it('authorizes the documented success cards', async () => {
    for (const number of ['4242424242424242', '5555555555554444', '378282246310005']) {
      expect(await authorize(number)).toMatchObject({ outcome: 'authorized', authorizationId: expect.stringMatching(/^sbx_auth_/), last4: number.slice(-4) });
    }
  });

  it('declines the documented decline cards with their codes', async () => {
    expect(await authorize('4000000000000002')).toMatchObject({ outcome: 'declined', code: 'card_declined' });
    expect(await authorize('4000000000009995')).toMatchObject({ outcome: 'declined', code: 'insufficient_funds' });
    expect(await authorize('4000000000000119')).toMatchObject({ outcome: 'declined', code: 'processing_error' });
  });

  it('declines any other valid number: the sandbox never pretends to charge a real card', async () => {
    expect(await authorize('6011111111111117')).toMatchObject({ outcome: 'declined', code: 'test_card_required' });
  });

  it('saves cards with brand, last four and expiry only', async () => {
    const saved = await provider.saveCard(card('5555555555554444'));
    expect(saved).toEqual({
      outcome: 'saved',
      card: { acquirerToken: expect.stringMatching(/^sbx_card_/), brand: 'mastercard', last4: '4444', expMonth: 12, expYear: 2030 },
    });
    expect(await provider.saveCard(card('4000000000000002'))).toMatchObject({ outcome: 'declined', code: 'card_declined' });
  });
});
