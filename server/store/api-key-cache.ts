// Who is behind an API key, looked up once per request. Lookups are kept for a few seconds in a
// bounded cache, so a busy key costs no query per request, while a revoked key stops working within
// the cache's lifetime (API_KEY_CACHE_MS, default 5 s) on every instance.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { findCallerByKey, type Caller } from './api-keys.js';
import type { Executor } from './executor.js';

export const DEFAULT_CALLER_CACHE_MS = 5_000;

export class CallerCache {
  /** Keyed by the key's hash, so keys themselves never outlive their request in memory. `false`: no such key. */
  private readonly cache: LRUCache<string, Caller | false> | undefined;

  /** `ttlMs` 0 turns caching off: every request looks its key up. */
  constructor(
    private readonly db: Executor,
    ttlMs = DEFAULT_CALLER_CACHE_MS,
  ) {
    this.cache = ttlMs > 0 ? new LRUCache({ max: 10_000, ttl: ttlMs }) : undefined;
  }

  async find(key: string): Promise<Caller | undefined> {
    if (!this.cache) return findCallerByKey(this.db, key);
    const id = createHash('sha256').update(key).digest('base64');
    const known = this.cache.get(id);
    if (known !== undefined) return known || undefined;
    const caller = await findCallerByKey(this.db, key);
    this.cache.set(id, caller ?? false);
    return caller;
  }
}
