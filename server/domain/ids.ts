import { randomBytes, randomFillSync } from 'node:crypto';

// Ids are handed to payers in URLs (`/payment/pay?id=...`), so knowing one must tell nothing about
// another: after the creation time, every id has 8 bytes of its own from the CSPRNG (MongoDB's
// ObjectId instead repeats 5 process bytes and counts in the last 3, so neighbours are one apart).
// The CSPRNG is read in blocks, each byte handed out once.
const POOL_BYTES = 8 * 512;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomTail(): string {
  if (poolOffset + 8 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const tail = pool.toString('hex', poolOffset, poolOffset + 8);
  poolOffset += 8;
  return tail;
}

/** 24 lowercase hex characters: the 4-byte big-endian creation time in seconds, then 8 random bytes. */
export function newId(): string {
  const seconds = Math.floor(Date.now() / 1000);
  return seconds.toString(16).padStart(8, '0') + randomTail();
}

const ID_PATTERN = /^[0-9a-f]{24}$/;

/** Path ids that cannot be ours are answered 404 without a query. */
export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/** 32 bytes from the CSPRNG as 64 lowercase hex characters. */
export function newTokenValue(): string {
  return randomBytes(32).toString('hex');
}
