// The server's own key for what the payer pages sign: the thank-you page's parameters (so only the
// payer redirected there after paying sees the payment's details) and the card fingerprints the page
// rate limits count by. Every instance serving the same payers must hold the same key: set
// PAGE_SIGNING_SECRET alike on all of them. Without it, the key lives in a file the first start
// creates (mode 0600), which serves one machine.
//
// All key material is read here, by `pageSigningKey`, so a master secrets key, once the service has
// one, can replace both sources in this one place; each use gets its own key derived from it.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const DEFAULT_PAGE_SIGNING_KEY_FILE = './data/page-signing.key';
/** 32 characters: e.g. `openssl rand -hex 32` gives 64. */
export const PAGE_SIGNING_SECRET_MIN_LENGTH = 32;

export interface PageSigningSettings {
  /** PAGE_SIGNING_SECRET, when set. */
  secret?: string | undefined;
  /** Where the key is kept when no secret is set. */
  keyFile?: string | undefined;
}

export interface PageKeys {
  /** Signs the thank-you page's query. */
  thankYou: Buffer;
  /** Keys the HMAC that stands for a card number in rate-limit buckets. */
  cardFingerprint: Buffer;
}

export class PageSigningKeyError extends Error {}

const KEY_FILE_CONTENT = /^[0-9a-f]{64}$/;

function derive(material: Buffer | string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), `payment-collection-service ${purpose}`, 32));
}

/** Reads the key file, or creates it (64 hex characters, mode 0600) when there is none yet. */
function keyFromFile(path: string): Buffer {
  try {
    return parseKeyFile(path, readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Written whole under another name, then linked into place: two processes starting together both
  // end up with whichever file was linked first, and neither can read a half-written one.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return parseKeyFile(path, readFileSync(path, 'utf8'));
}

function parseKeyFile(path: string, content: string): Buffer {
  const hex = content.trim();
  if (!KEY_FILE_CONTENT.test(hex)) throw new PageSigningKeyError(`${path} must hold 64 hexadecimal characters (the page signing key); delete it to have a new one made`);
  return Buffer.from(hex, 'hex');
}

/** The master key of the payer pages: from PAGE_SIGNING_SECRET when set, else from the key file. */
export function pageSigningKey(settings: PageSigningSettings): Buffer {
  if (settings.secret !== undefined) {
    if (settings.secret.length < PAGE_SIGNING_SECRET_MIN_LENGTH) throw new PageSigningKeyError(`PAGE_SIGNING_SECRET must be at least ${PAGE_SIGNING_SECRET_MIN_LENGTH} characters`);
    return derive(settings.secret, 'page signing secret');
  }
  return keyFromFile(settings.keyFile ?? DEFAULT_PAGE_SIGNING_KEY_FILE);
}

export function pageKeys(master: Buffer): PageKeys {
  return { thankYou: derive(master, 'thank-you page'), cardFingerprint: derive(master, 'card fingerprint') };
}

/** What the redirect to the thank-you page carries, all signed together. */
export interface ThankYouParams {
  payment_id: string;
  payment_link_id: string;
  payment_status: string;
}

export function signThankYou(key: Buffer, params: ThankYouParams): string {
  // Ids are hex and the status is digits: a separator that none of them can contain keeps the
  // fields apart, so no two parameter sets sign the same text.
  return createHmac('sha256', key).update(`${params.payment_id}\n${params.payment_link_id}\n${params.payment_status}`).digest('base64url');
}

export function verifyThankYou(key: Buffer, params: ThankYouParams, signature: unknown): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(signThankYou(key, params));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
