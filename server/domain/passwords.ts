// Members' passwords: what is accepted (at least 12 characters, and not guessable from the common and
// breached passwords zxcvbn-ts ships, offline), and how one is kept: scrypt with a salt of its own,
// its cost parameters written beside the hash so a stronger setting later still reads older hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

let strength: ZxcvbnFactory | undefined;

/** zxcvbn's 0-4 guessability score: 3 resists an offline attack on a slow hash. */
function score(password: string, hints: string[]): number {
  if (!strength) {
    // Loaded by the first password checked, not at start-up: the dictionaries are a large module graph.
    const load = createRequire(import.meta.url);
    const { ZxcvbnFactory } = load('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
    const common = load('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    strength = new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs });
  }
  return strength.check(password, hints).score;
}

/** Why a password is refused, in Laravel's manner, or undefined when it is good. `hints` (e-mail, name) count as guessable. */
export function passwordProblem(password: string, hints: string[] = []): string | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password must not be greater than ${PASSWORD_MAX_LENGTH} characters.`;
  const words = hints.flatMap((hint) => hint.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((word) => word.length >= 3);
  if (score(password, words) < 3) return 'The given password is too common or too easy to guess. Please choose a different password.';
  return undefined;
}

interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt setting (2^17 would be its first choice; 2^15 keeps a sign-in near 100 ms on a small machine). */
const COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const DUMMY = hashPassword(randomBytes(16).toString('hex'));

/**
 * Whether `password` matches `stored`. Without a stored hash (no such user, or no password set yet) it
 * still derives one, so that an unknown e-mail takes as long as a wrong password.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? (await DUMMY)).split('$');
  const [kind, n, r, p, salt, hash] = parts;
  if (parts.length !== 6 || kind !== 'scrypt') return false;
  const expected = Buffer.from(hash!, 'base64url');
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return Boolean(stored) && expected.length === actual.length && timingSafeEqual(expected, actual);
}
