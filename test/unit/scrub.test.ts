import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger, maskEmails, maskSecrets, scrub } from '../../server/logger.js';

describe('scrub', () => {
  it('masks API keys and webhook secrets', () => {
    expect(scrub('key sk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde rejected')).toBe('key sk_[redacted] rejected');
    expect(scrub('signing with whsec_c2VjcmV0LXNpZ25pbmcta2V5')).toBe('signing with whsec_[redacted]');
  });

  it("masks Stripe's secret and restricted keys, live and test", () => {
    expect(scrub('Invalid API Key provided: rk_live_51H8xYzAbCdEfGhIjKlMnOp')).toBe('Invalid API Key provided: rk_[redacted]');
    expect(scrub('key=rk_test_51H8xYzAbCdEfGhIjKlMnOp;')).toBe('key=rk_[redacted];');
    expect(scrub('redirect key rsec_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg')).toBe('redirect key rsec_[redacted]');
    expect(scrub('sk_live_51H8xYzAbCdEfGhIjKlMnOp')).toBe('sk_[redacted]');
    // Inside a word it is not a key prefix.
    expect(scrub('work_items_queue_length')).toBe('work_items_queue_length');
  });

  it('masks e-mail addresses as the pay page shows them: first character, ***, the domain', () => {
    expect(scrub("Can't send mail - all recipients were rejected: 550 <alice@example.com>: Recipient address rejected")).toBe(
      "Can't send mail - all recipients were rejected: 550 <a***@example.com>: Recipient address rejected",
    );
    expect(scrub('to j.doe+invoices@mail.example.co.uk.')).toBe('to j***@mail.example.co.uk.');
    expect(scrub('"email":"al@example.com","cc":"bob@example.org"')).toBe('"email":"***@example.com","cc":"b***@example.org"');
    expect(scrub('payer zoë@exämple.de')).toBe('payer z***@exämple.de');
    // What is not an address stays: a handle, a bare @, a host without a dot.
    for (const text of ['@scope/package', 'at @ noon', 'user@localhost', 'a@@b.com']) expect(scrub(text)).toBe(text);
  });

  it('masks an address at the end of a long text full of @', () => {
    const text = `${'a@'.repeat(50_000)}x.com ${'b'.repeat(50_000)}@example.com`;
    expect(maskEmails(text).endsWith(' b***@example.com')).toBe(true);
  });

  it('masks card numbers of 13 to 19 digits, grouped or not', () => {
    expect(scrub('card 4242424242424242 declined')).toBe('card [card number redacted] declined');
    expect(scrub('card 4242 4242 4242 4242.')).toBe('card [card number redacted].');
    expect(scrub('amex 3782-822463-10005')).toBe('amex [card number redacted]');
    expect(scrub('19 digits 6011000990139424123')).toBe('19 digits [card number redacted]');
  });

  it('masks a CVC next to its name, in JSON, forms or prose', () => {
    expect(scrub('{"cvc":"123"}')).toBe('{"cvc":"[redacted]"}');
    expect(scrub('cvc=1234&x=1')).toBe('cvc=[redacted]&x=1');
    expect(scrub('CVV: 987')).toBe('CVV: [redacted]');
  });

  it('keeps what is not sensitive: amounts, ids, dates, short numbers', () => {
    for (const text of ['amount 3000000', 'id 6284ff16d4b1c2a3e4f50002', '2026-11-23T12:30:38.123Z', 'took 12.5 ms', 'sk_short', 'order 123456789012']) {
      expect(scrub(text)).toBe(text);
    }
  });

  it('skips only text the masking would leave as it is', () => {
    // Text made of the pieces the patterns look for: digits, separators, key prefixes, CVC names.
    const piece = fc.constantFrom('4', '2', '0', '9', ' ', '-', 'sk_', 'rk_', 'whsec_', 'cvc', 'CVV', '=', ':', '"', 'a', 'Z', '_', 'x', '@', '.', 'com', '<');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        expect(scrub(text)).toBe(maskSecrets(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the service logger', () => {
  it("replaces members' secrets and credentials wherever they are in a line, and keeps the rest", async () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => lines.push(line) } });
    logger.info(
      {
        password: 'hunter2-hunter2',
        body: { current_password: 'old-secret-1', totp_code: '123456', title: 'Kenduri' },
        headers: { authorization: 'Bearer sk_live_abc', cookie: 'session=abc', accept: 'application/json' },
        req: { headers: { authorization: 'Bearer x', cookie: 'c=1' } },
        key: 'anything',
        apiKey: 'anything',
        form: [{ recovery_code: 'abcde-fghij' }],
        status: 200,
      },
      'request',
    );
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({
      password: '[redacted]',
      body: { current_password: '[redacted]', totp_code: '[redacted]', title: 'Kenduri' },
      headers: { authorization: '[redacted]', cookie: '[redacted]', accept: 'application/json' },
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]' } },
      key: '[redacted]',
      apiKey: '[redacted]',
      form: [{ recovery_code: '[redacted]' }],
      status: 200,
      msg: 'request',
    });
    expect(lines[0]).not.toMatch(/hunter2|old-secret|123456|sk_live|session=abc|abcde-fghij/);
  });
});
