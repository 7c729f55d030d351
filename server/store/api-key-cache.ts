// Who is behind an API key, looked up once per request. Lookups are kept for a few seconds in a
// bounded cache, so a busy key costs no query per request. A change to what keys may do (a key
// revoked, its maker's role changed, its maker removed) empties the cache of the instance that made
// it at once (`forget`), and of the others at once through Redis where it is configured
// (api-key-broadcast.ts), else within the cache's lifetime (API_KEY_CACHE_MS, default 5 s); an
// expiring key stops at its expiry, cached or not. A key's last use is written at most once a minute per key and instance,
// after the lookup and without waiting for it.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { findCallerByKey, markKeyUsed, type Caller } from './api-keys.js';
import type { Executor } from './executor.js';

export const DEFAULT_CALLER_CACHE_MS = 5_000;
/** How stale a key's `last_used_at` may be. */
export const LAST_USED_EVERY_MS = 60_000;

export class CallerCache {
  /** Keyed by the key's hash, so keys themselves never outlive their request in memory. `false`: no such key. */
  private readonly cache: LRUCache<string, Caller | false> | undefined;
  /** When each key's use was last written from here. */
  private readonly usageWritten = new LRUCache<number, number>({ max: 10_000 });
  /** Bumped by `forget`: a lookup that began before it must not keep what it read. */
  private generation = 0;

  /** `ttlMs` 0 turns caching off: every request looks its key up. */
  constructor(
    private readonly db: Executor,
    ttlMs = DEFAULT_CALLER_CACHE_MS,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.cache = ttlMs > 0 ? new LRUCache({ max: 10_000, ttl: ttlMs }) : undefined;
  }

  async find(key: string): Promise<Caller | undefined> {
    const caller = await this.lookUp(key);
    if (!caller) return undefined;
    if (caller.key.expiresAtMs !== undefined && caller.key.expiresAtMs <= Date.now()) return undefined;
    this.noteUse(caller.key.rowId);
    return caller;
  }

  /** Forgets every lookup: the next request of each key reads it again. */
  forget(): void {
    this.generation += 1;
    this.cache?.clear();
  }

  private async lookUp(key: string): Promise<Caller | undefined> {
    if (!this.cache) return findCallerByKey(this.db, key);
    const id = createHash('sha256').update(key).digest('base64');
    const known = this.cache.get(id);
    if (known !== undefined) return known || undefined;
    const generation = this.generation;
    const caller = await findCallerByKey(this.db, key);
    if (generation === this.generation) this.cache.set(id, caller ?? false);
    return caller;
  }

  private noteUse(keyId: number): void {
    const now = Date.now();
    const last = this.usageWritten.get(keyId);
    if (last !== undefined && now - last < LAST_USED_EVERY_MS) return;
    this.usageWritten.set(keyId, now);
    void markKeyUsed(this.db, keyId, LAST_USED_EVERY_MS, new Date(now)).catch(this.onError);
  }
}
