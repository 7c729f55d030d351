// One Idempotency-Key per money action the merchant means to take: the same key for every send of
// the same request (a double click, a second try after an answer that never arrived), so the API does
// it once; a new key once the request changes or has been done, so the next refund is a new one.
import { useState } from 'react';

/** 128 random bits in hex; crypto.randomUUID exists only on secure origins, and the console may be served over plain HTTP. */
function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function useIdempotencyKey(request: unknown): { key: string; done(): void } {
  const fingerprint = JSON.stringify(request);
  const [held, setHeld] = useState(() => ({ fingerprint, key: newKey() }));
  // A changed request gets its key as it renders (React's pattern for state derived from props).
  const current = held.fingerprint === fingerprint ? held : { fingerprint, key: newKey() };
  if (current !== held) setHeld(current);
  return { key: current.key, done: () => setHeld({ fingerprint, key: newKey() }) };
}
