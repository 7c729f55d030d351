import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { maskEmail } from '../../server/domain/email.js';
import { PageSigningKeyError, pageKeys, pageSigningKey, signThankYou, verifyThankYou } from '../../server/pages/signing.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'page-signing-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('pageSigningKey', () => {
  it('without a secret, creates the key file on first use with mode 0600 and reads the same key after', () => {
    const file = join(tempDir(), 'data', 'page-signing.key');
    const first = pageSigningKey({ keyFile: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(first).toHaveLength(32);
    expect(pageSigningKey({ keyFile: file }).equals(first)).toBe(true);
  });

  it('two key files are two keys', () => {
    expect(pageSigningKey({ keyFile: join(tempDir(), 'k') }).equals(pageSigningKey({ keyFile: join(tempDir(), 'k') }))).toBe(false);
  });

  it('refuses a key file that is not 64 hex characters, rather than sign with it', () => {
    const file = join(tempDir(), 'page-signing.key');
    writeFileSync(file, 'not a key\n');
    expect(() => pageSigningKey({ keyFile: file })).toThrow(PageSigningKeyError);
  });

  it('with PAGE_SIGNING_SECRET: the same secret gives the same key on every instance, and no file is written', () => {
    const dir = tempDir();
    const secret = 'a'.repeat(32);
    expect(pageSigningKey({ secret, keyFile: join(dir, 'k') }).equals(pageSigningKey({ secret }))).toBe(true);
    expect(() => statSync(join(dir, 'k'))).toThrow();
    expect(pageSigningKey({ secret: 'b'.repeat(32) }).equals(pageSigningKey({ secret }))).toBe(false);
  });

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => pageSigningKey({ secret: 'short' })).toThrow('PAGE_SIGNING_SECRET must be at least 32 characters');
  });

  it('derives a different key for each use', () => {
    const keys = pageKeys(pageSigningKey({ secret: 'c'.repeat(40) }));
    expect(keys.thankYou.equals(keys.cardFingerprint)).toBe(false);
  });
});

describe('thank-you signatures', () => {
  const key = pageKeys(pageSigningKey({ secret: 'd'.repeat(40) })).thankYou;
  const params = { payment_id: '6284ff16d4b1c2a3e4f50003', payment_link_id: '6284ff16d4b1c2a3e4f50001', payment_status: '1' };

  it('verifies its own signature and nothing else', () => {
    const signature = signThankYou(key, params);
    expect(verifyThankYou(key, params, signature)).toBe(true);
    for (const changed of [{ payment_id: '6284ff16d4b1c2a3e4f50004' }, { payment_link_id: '6284ff16d4b1c2a3e4f50002' }, { payment_status: '3' }]) {
      expect(verifyThankYou(key, { ...params, ...changed }, signature)).toBe(false);
    }
    for (const given of [undefined, '', signature.slice(1), `${signature}A`, [signature], signature.toUpperCase()]) expect(verifyThankYou(key, params, given)).toBe(false);
    expect(verifyThankYou(pageKeys(pageSigningKey({ secret: 'e'.repeat(40) })).thankYou, params, signature)).toBe(false);
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
