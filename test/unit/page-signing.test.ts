import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maskEmail } from '../../server/domain/email.js';
import { pageKeys, signThankYou, verifyThankYou } from '../../server/pages/signing.js';

/** The pages' own key, as the secrets key derives it (server/secrets). */
const pagesKey = () => randomBytes(32);

describe('pageKeys', () => {
  it('derives a different key for each use, and the same keys from the same key', () => {
    const master = pagesKey();
    const keys = pageKeys(master);
    expect(keys.thankYou.equals(keys.cardFingerprint)).toBe(false);
    expect(pageKeys(Buffer.from(master)).thankYou.equals(keys.thankYou)).toBe(true);
    expect(pageKeys(pagesKey()).thankYou.equals(keys.thankYou)).toBe(false);
  });
});

describe('thank-you signatures', () => {
  const key = pageKeys(pagesKey()).thankYou;
  const params = { payment_id: '6284ff16d4b1c2a3e4f50003', payment_link_id: '6284ff16d4b1c2a3e4f50001', payment_status: '1' };

  it('verifies its own signature and nothing else', () => {
    const signature = signThankYou(key, params);
    expect(verifyThankYou(key, params, signature)).toBe(true);
    for (const changed of [{ payment_id: '6284ff16d4b1c2a3e4f50004' }, { payment_link_id: '6284ff16d4b1c2a3e4f50002' }, { payment_status: '3' }]) {
      expect(verifyThankYou(key, { ...params, ...changed }, signature)).toBe(false);
    }
    for (const given of [undefined, '', signature.slice(1), `${signature}A`, [signature], signature.toUpperCase()])
      expect(verifyThankYou(key, params, given)).toBe(false);
    expect(verifyThankYou(pageKeys(pagesKey()).thankYou, params, signature)).toBe(false);
  });

  it('keeps the three fields apart: moving text between them breaks the signature', () => {
    const signature = signThankYou(key, { payment_id: 'ab', payment_link_id: 'c', payment_status: '1' });
    expect(verifyThankYou(key, { payment_id: 'a', payment_link_id: 'bc', payment_status: '1' }, signature)).toBe(false);
  });
});

describe('maskEmail', () => {
  it.each([
    ['payer@example.com', 'p***@example.com'],
    ['siti.aminah@mail.example.my', 's***@mail.example.my'],
    ['abc@example.com', 'a***@example.com'],
    ['ab@example.com', '***@example.com'],
    ['a@example.com', '***@example.com'],
    ['not-an-email', '***'],
  ])('%s -> %s', (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });
});
