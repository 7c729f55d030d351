// Reading the payer forms: every field is capped before anything parses it, so text a visitor sends
// cannot reach a regular expression at any length (the expiry pattern of old took over a second on
// "1" + 16,000 spaces + "x"). Asserted by what the patterns were given, never by time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIELD_MAX_LENGTH, checkName, readCard, readField, readFields, type FieldName, type FormErrors } from '../../server/pages/form.js';
import { parseExpiry } from '../../server/acquirers/cards.js';

const FIELDS = Object.keys(FIELD_MAX_LENGTH) as FieldName[];
const VALID: Record<FieldName, string> = {
  name: 'Aisyah',
  email: 'aisyah@example.com',
  amount: '25.00',
  card_number: '4242 4242 4242 4242',
  expiry: '12/39',
  cvc: '123',
};

/** Payloads that make backtracking patterns slow: long runs with a rejecting end. */
const PAYLOADS = ['1' + ' '.repeat(16_000) + 'x', '1'.repeat(16_000) + 'x', 'a@' + 'a'.repeat(16_000) + '!', '0'.repeat(16_000) + '.' + '0'.repeat(100) + ','];

/** Every string a regular expression was run on while `work` ran (test, exec, match, replace and split all go through exec). */
function regexInputs(work: () => void): string[] {
  const exec = vi.spyOn(RegExp.prototype, 'exec');
  try {
    work();
    return exec.mock.calls.map(([input]) => String(input));
  } finally {
    exec.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('readField: capped before it is parsed', () => {
  it.each(FIELDS)('%s: an over-long value is a form error and reads as empty', (name) => {
    for (const payload of PAYLOADS) {
      const errors: FormErrors = {};
      const inputs = regexInputs(() => expect(readField({ [name]: payload }, name, errors)).toBe(''));
      expect(errors[name], `${name} with ${payload.length} characters`).toBeTruthy();
      // The message catalog's own lookups run patterns on its keys, never on what the visitor sent.
      expect(inputs.filter((input) => input.includes(payload.slice(0, 30)))).toEqual([]);
    }
  });

  it.each(FIELDS)('%s: a value at the maximum is read, trimmed', (name) => {
    const errors: FormErrors = {};
    const atMaximum = ` ${'7'.repeat(FIELD_MAX_LENGTH[name] - 2)} `;
    expect(readField({ [name]: atMaximum }, name, errors)).toBe(atMaximum.trim());
    expect(errors).toEqual({});
  });

  it('reads a missing field or one sent twice (an array) as empty, without an error', () => {
    const errors: FormErrors = {};
    expect(readFields({ name: ['a', 'b'] }, ['name', 'email'], errors)).toEqual({ name: '', email: '' });
    expect(errors).toEqual({});
  });
});

describe('the whole card form with one attack payload in each field', () => {
  it.each(FIELDS)('%s: refused with a field error, and no pattern ever sees the payload', (name) => {
    for (const payload of PAYLOADS) {
      const body: Record<string, unknown> = { ...VALID, [name]: payload };
      const errors: FormErrors = {};
      let card: unknown;
      const inputs = regexInputs(() => {
        const values = readFields(body, ['name', 'email', 'amount'], errors);
        checkName(values.name, errors);
        card = readCard(body, errors);
      });
      expect(Object.keys(errors)).toEqual([name]);
      expect(card === undefined).toBe(['card_number', 'expiry', 'cvc'].includes(name));
      const longest = Math.max(0, ...inputs.map((input) => input.length));
      expect(longest, `a pattern ran on ${longest} characters`).toBeLessThanOrEqual(Math.max(...Object.values(FIELD_MAX_LENGTH)));
    }
  });

  it('reads a valid form', () => {
    const errors: FormErrors = {};
    const values = readFields(VALID, ['name', 'email', 'amount'], errors);
    expect(checkName(values.name, errors)).toBe('Aisyah');
    expect(readCard(VALID, errors)).toMatchObject({ number: '4242424242424242', expMonth: 12, expYear: 2039, last4: '4242' });
    expect(errors).toEqual({});
  });
});

describe('parseExpiry on its own', () => {
  const now = new Date('2026-11-23T10:00:00Z');

  it('refuses text longer than an expiry before matching it', () => {
    const inputs = regexInputs(() => expect(parseExpiry('1' + ' '.repeat(16_000) + 'x', now)).toBe('malformed'));
    expect(inputs).toEqual([]);
  });

  it('still reads expiries typed with spaces around the slash', () => {
    for (const typed of ['12/30', ' 12 / 30 ', '12 /2030', '1230', '12 30']) expect(parseExpiry(typed, now)).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry('1/30', now)).toEqual({ month: 1, year: 2030 });
  });
});
