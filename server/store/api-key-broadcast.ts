// Tells the other instances that what some API keys may do has changed (a key revoked, its maker's
// role changed or removed), so that they forget their cached lookups at once rather than within
// API_KEY_CACHE_MS. Through Redis pub/sub where REDIS_URL is set; without Redis there is nobody to
// tell at once, and each instance's cache lifetime bounds the delay.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

const CHANNEL = 'payment-collection:api-keys-changed';

export interface KeyChangeBroadcast {
  announce(): void;
  close(): Promise<void>;
}

/** Announces through Redis, and calls `heard` for every announcement, this instance's own included. */
export function redisKeyChangeBroadcast(redisUrl: string, heard: () => void, onError: (error: unknown) => void): KeyChangeBroadcast {
  // Loaded only when Redis is configured, as the rate limiter's client is.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const options = { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false };
  const publisher: Redis = new RedisClient(redisUrl, options);
  const subscriber: Redis = new RedisClient(redisUrl, options);
  publisher.on('error', onError);
  subscriber.on('error', onError);
  subscriber.on('message', (channel) => {
    if (channel === CHANNEL) heard();
  });
  subscriber.subscribe(CHANNEL).catch(onError);
  return {
    announce() {
      publisher.publish(CHANNEL, String(Date.now())).catch(onError);
    },
    async close() {
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}

export const NO_BROADCAST: KeyChangeBroadcast = { announce() {}, close: async () => {} };
