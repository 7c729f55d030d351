// Secrets kept in the database (webhook and acquirer keys, the responses kept under an Idempotency-Key)
// are sealed with AES-256-GCM under a key derived from the master key for their purpose, with a
// random 96-bit IV per value. A sealed value reads
// `v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url parts): the version and the key id say how to
// open it, so the format and the key can change later without guessing. The caller's context (e.g.
// the column and row) is authenticated too, so a sealed value copied to another row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from './master-key.js';

const VERSION = 'v1';
/** The purpose of the key that seals webhook and acquirer keys; other kinds of value name their own. */
const SECRETS_PURPOSE = 'sealed-secrets/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PART = /^[\w-]*$/;

/** A sealed value that cannot be opened with the keys at hand; the message says why, never the value. */
export class SecretUnreadableError extends Error {}

/** One key, or several when older keys must still open what they sealed. */
export type OpeningKeys = MasterKey | readonly MasterKey[];

function additionalData(keyId: string, context: string): Buffer {
  return Buffer.from(`${VERSION}:${keyId}:${context}`, 'utf8');
}

export function isSealed(value: string): boolean {
  return value.startsWith(`${VERSION}:`);
}

export function sealSecret(key: MasterKey, plaintext: string, context: string, purpose = SECRETS_PURPOSE): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.derive(purpose), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(key.id, context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, key.id, ...[iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url'))].join(':');
}

export function openSecret(keys: OpeningKeys, sealed: string, context: string, purpose = SECRETS_PURPOSE): string {
  const parts = sealed.split(':');
  if (parts.length !== 5 || parts[0] !== VERSION || !parts.every((part) => PART.test(part))) {
    throw new SecretUnreadableError(`the stored value is not a sealed secret (${VERSION}:...)`);
  }
  const [, keyId, ivText, ciphertextText, tagText] = parts as [string, string, string, string, string];
  const candidates: readonly MasterKey[] = Array.isArray(keys) ? keys : [keys as MasterKey];
  const key = candidates.find((candidate) => candidate.id === keyId);
  if (!key) {
    throw new SecretUnreadableError(
      `it was sealed with key ${keyId}, but the configured key is ${candidates.map((candidate) => candidate.id).join(', ')} (SECRETS_KEY or the key file is not the one it was sealed with)`,
    );
  }
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretUnreadableError('the sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key.derive(purpose), iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(keyId, context));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError(`it does not authenticate under the configured key ${keyId}: it was altered, or sealed for another record`);
  }
}
