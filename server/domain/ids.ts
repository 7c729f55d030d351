import { randomBytes } from 'node:crypto';
import { ObjectId } from 'bson';

/** 24 lowercase hex characters: 4-byte seconds timestamp, 5 random bytes, 3-byte counter (MongoDB's ObjectId). */
export function newId(): string {
  return new ObjectId().toHexString();
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
