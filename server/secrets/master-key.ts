// The master key that protects secrets at rest, and the purpose-specific keys derived from it: one
// configured key never serves two purposes directly (sealing webhook keys, signing page parameters...).
import { hkdfSync } from 'node:crypto';
import { inspect } from 'node:util';

export const MASTER_KEY_BYTES = 32;

export class MasterKeyFormatError extends Error {}

const HEX_KEY = /^[0-9a-f]{64}$/i;
const BASE64_KEY = /^[\w+/-]{43}=?$/;

/**
 * Reads a key written as 64 hexadecimal characters or as base64 / base64url of 32 bytes (43
 * characters, or 44 with the `=` padding). The error never repeats the text: it is a secret.
 */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (BASE64_KEY.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === MASTER_KEY_BYTES) return bytes;
  }
  throw new MasterKeyFormatError(
    `must be ${MASTER_KEY_BYTES} bytes written as 64 hexadecimal characters or in base64 (44 characters), got ${trimmed.length} characters; generate one with: openssl rand -hex 32`,
  );
}

/** HKDF-SHA256 info strings: derived keys and the key id live in separate namespaces, so no purpose can collide with the id. */
const PURPOSE_INFO = 'payment-collection-service/purpose/';
const KEY_ID_INFO = 'payment-collection-service/key-id';

export class MasterKey {
  /** Names the key inside sealed values without revealing anything about it. */
  readonly id: string;
  readonly #bytes: Buffer;

  constructor(bytes: Buffer) {
    if (bytes.length !== MASTER_KEY_BYTES) throw new MasterKeyFormatError(`a master key is ${MASTER_KEY_BYTES} bytes, got ${bytes.length}`);
    this.#bytes = Buffer.from(bytes);
    this.id = Buffer.from(hkdfSync('sha256', this.#bytes, Buffer.alloc(0), KEY_ID_INFO, 6)).toString('base64url');
  }

  /** A key for one purpose (e.g. `page-signing`), independent of the keys for every other purpose. */
  derive(purpose: string, length = MASTER_KEY_BYTES): Buffer {
    if (!purpose) throw new Error('a derived key needs a purpose');
    return Buffer.from(hkdfSync('sha256', this.#bytes, Buffer.alloc(0), PURPOSE_INFO + purpose, length));
  }

  /** Configuration objects get logged; the key must not be. */
  toJSON(): { id: string } {
    return { id: this.id };
  }

  [inspect.custom](): string {
    return `MasterKey(${this.id})`;
  }
}

/** `deriveKey(master, 'page-signing')`: the same as `master.derive('page-signing')`. */
export function deriveKey(master: MasterKey, purpose: string, length = MASTER_KEY_BYTES): Buffer {
  return master.derive(purpose, length);
}
