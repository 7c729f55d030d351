// Sealing secrets at rest (AES-256-GCM under a key derived from the master key) and deriving
// purpose keys: what goes in comes out, and anything altered, misplaced or opened with another key
// is refused with a reason, never turned into a wrong secret.
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MasterKey, MasterKeyFormatError, deriveKey, parseMasterKey } from '../../server/secrets/master-key.js';
import { isSealed, openSecret, sealSecret, SecretUnreadableError } from '../../server/secrets/seal.js';

const key = new MasterKey(randomBytes(32));
const other = new MasterKey(randomBytes(32));
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CONTEXT = 'businesses.webhook_secret:1';

/** Flips one bit of the `index`-th part (0 version, 1 key id, 2 iv, 3 ciphertext, 4 tag) of a sealed value. */
function flip(sealed: string, index: number): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0]! ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join(':');
}

describe('sealSecret / openSecret', () => {
  it('round-trips, in the versioned v1:<key id>:<iv>:<ciphertext>:<tag> format, without the secret in it', () => {
    const sealed = sealSecret(key, SECRET, CONTEXT);
    expect(sealed).toMatch(/^v1:[\w-]{8}:[\w-]{16}:[\w-]+:[\w-]{22}$/);
    expect(sealed.split(':')[1]).toBe(key.id);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(SECRET.slice('whsec_'.length));
    expect(Buffer.from(sealed.split(':')[3]!, 'base64url').length).toBe(Buffer.byteLength(SECRET));
    expect(openSecret(key, sealed, CONTEXT)).toBe(SECRET);
  });

  it('round-trips any text, including the empty string and non-ASCII', () => {
    for (const text of ['', 'x', 'ключ🔑', 'a'.repeat(10_000)]) expect(openSecret(key, sealSecret(key, text, CONTEXT), CONTEXT)).toBe(text);
  });

  it('uses a fresh IV per value: sealing the same secret twice gives two different values', () => {
    const values = new Set(Array.from({ length: 50 }, () => sealSecret(key, SECRET, CONTEXT)));
    expect(values.size).toBe(50);
    expect(new Set([...values].map((value) => value.split(':')[2])).size).toBe(50);
  });

  it('refuses a value whose ciphertext, IV or tag was altered (the GCM tag does not match)', () => {
    const sealed = sealSecret(key, SECRET, CONTEXT);
    for (const part of [2, 3, 4]) {
      expect(() => openSecret(key, flip(sealed, part), CONTEXT), `part ${part}`).toThrow(SecretUnreadableError);
      expect(() => openSecret(key, flip(sealed, part), CONTEXT)).toThrow(/does not authenticate under the configured key/);
    }
  });

  it('refuses a value sealed for another record (the context is authenticated)', () => {
    const sealed = sealSecret(key, SECRET, CONTEXT);
    expect(() => openSecret(key, sealed, 'businesses.webhook_secret:2')).toThrow(/does not authenticate/);
  });

  it('seals each purpose under a key of its own: a value sealed for one purpose does not open for another', () => {
    const sealed = sealSecret(key, SECRET, CONTEXT, 'idempotent-responses/v1');
    expect(openSecret(key, sealed, CONTEXT, 'idempotent-responses/v1')).toBe(SECRET);
    expect(() => openSecret(key, sealed, CONTEXT)).toThrow(/does not authenticate/);
    expect(() => openSecret(key, sealSecret(key, SECRET, CONTEXT), CONTEXT, 'idempotent-responses/v1')).toThrow(/does not authenticate/);
  });

  it('refuses a value sealed with another key, naming both key ids', () => {
    const sealed = sealSecret(other, SECRET, CONTEXT);
    expect(() => openSecret(key, sealed, CONTEXT)).toThrow(SecretUnreadableError);
    expect(() => openSecret(key, sealed, CONTEXT)).toThrow(`it was sealed with key ${other.id}, but the configured key is ${key.id}`);
  });

  it('refuses a value relabelled with the configured key id', () => {
    const parts = sealSecret(other, SECRET, CONTEXT).split(':');
    parts[1] = key.id;
    expect(() => openSecret(key, parts.join(':'), CONTEXT)).toThrow(/does not authenticate/);
  });

  it('opens with whichever of several keys sealed the value (room for rotation)', () => {
    expect(openSecret([key, other], sealSecret(other, SECRET, CONTEXT), CONTEXT)).toBe(SECRET);
  });

  it('refuses text that is not a sealed value, such as a key stored in clear, or a truncated one', () => {
    const sealed = sealSecret(key, SECRET, CONTEXT);
    const cases = [
      SECRET,
      '',
      'v2:' + sealed.slice(3),
      sealed.split(':').slice(0, 4).join(':'),
      `${sealed}:extra`,
      sealed.replace(/:[\w-]{16}:/, ':not base64!:'),
    ];
    for (const value of cases) expect(() => openSecret(key, value, CONTEXT), value).toThrow(SecretUnreadableError);
    expect(() => openSecret(key, SECRET, CONTEXT)).toThrow('the stored value is not a sealed secret (v1:...)');
    const shortIv = sealed.split(':');
    shortIv[2] = shortIv[2]!.slice(0, 8);
    expect(() => openSecret(key, shortIv.join(':'), CONTEXT)).toThrow('the sealed value is truncated');
    expect(isSealed(SECRET)).toBe(false);
  });
});

describe('MasterKey and deriveKey', () => {
  it('derives a 32-byte key per purpose: the same for the same key and purpose, unrelated otherwise', () => {
    const bytes = randomBytes(32);
    const a = new MasterKey(bytes);
    const b = new MasterKey(Buffer.from(bytes));
    expect(deriveKey(a, 'page-signing')).toEqual(deriveKey(b, 'page-signing'));
    expect(deriveKey(a, 'page-signing')).toHaveLength(32);
    expect(deriveKey(a, 'page-signing')).not.toEqual(deriveKey(a, 'stripe'));
    expect(deriveKey(a, 'page-signing')).not.toEqual(bytes);
    expect(deriveKey(other, 'page-signing')).not.toEqual(deriveKey(a, 'page-signing'));
    expect(a.derive('page-signing', 64)).toHaveLength(64);
    expect(() => deriveKey(a, '')).toThrow('a derived key needs a purpose');
  });

  it('has an id that is stable for the key and differs between keys', () => {
    const bytes = randomBytes(32);
    expect(new MasterKey(bytes).id).toBe(new MasterKey(Buffer.from(bytes)).id);
    expect(new MasterKey(bytes).id).not.toBe(other.id);
    expect(new MasterKey(bytes).id).toMatch(/^[\w-]{8}$/);
  });

  it('keeps its bytes out of JSON and of inspection (configurations get logged)', () => {
    const bytes = randomBytes(32);
    const k = new MasterKey(bytes);
    const shown = JSON.stringify({ k }) + inspect({ k }) + inspect(k, { showHidden: true });
    for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(shown).not.toContain(bytes.toString(encoding).slice(0, 12));
    expect(JSON.parse(JSON.stringify(k))).toEqual({ id: k.id });
  });

  it('is 32 bytes, no more, no less', () => {
    expect(() => new MasterKey(randomBytes(16))).toThrow(MasterKeyFormatError);
    expect(() => new MasterKey(randomBytes(33))).toThrow('a master key is 32 bytes, got 33');
  });
});

describe('parseMasterKey', () => {
  const bytes = randomBytes(32);

  it('reads 64 hexadecimal characters, base64 (44 with padding, 43 without) and base64url, ignoring surrounding whitespace', () => {
    for (const text of [
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=$/, ''),
      bytes.toString('base64url'),
      ` ${bytes.toString('hex')}\n`,
    ]) {
      expect(parseMasterKey(text), text).toEqual(bytes);
    }
  });

  it.each([
    ['empty', ''],
    ['a passphrase', 'correct horse battery staple'],
    ['63 hex characters', 'a'.repeat(63)],
    ['65 hex characters', 'a'.repeat(65)],
    ['hex of 16 bytes', randomBytes(16).toString('hex')],
    ['base64 of 31 bytes', randomBytes(31).toString('base64')],
    ['base64 of 33 bytes', randomBytes(33).toString('base64')],
    ['non-hex characters', 'g'.repeat(64)],
  ])('refuses %s, saying what it expects and never the value', (_name, text) => {
    expect(() => parseMasterKey(text)).toThrow(MasterKeyFormatError);
    expect(() => parseMasterKey(text)).toThrow(
      `must be 32 bytes written as 64 hexadecimal characters or in base64 (44 characters), got ${text.trim().length} characters; generate one with: openssl rand -hex 32`,
    );
  });
});
