// Key lookups are reused for a few seconds: a busy key costs no query, a revoked key stops working
// once its entry expires, and a lifetime of 0 turns the cache off.
import { beforeAll, describe, expect, it } from 'vitest';
import { CallerCache } from '../../server/store/api-key-cache.js';
import { issueKey, revokeKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { useMigratedDatabase } from '../support/store.js';
import { sleep } from '../support/wait.js';

const store = useMigratedDatabase('callers');
let businessId: number;
beforeAll(async () => {
  businessId = (await findOrCreateBusiness(store.db, 'Cached')).id;
});

describe('CallerCache', () => {
  it('answers from memory within its lifetime and sees a revocation after it', async () => {
    const { key } = await issueKey(store.db, businessId);
    const cache = new CallerCache(store.db, 300);
    expect((await cache.find(key))?.business.id).toBe(businessId);
    await revokeKey(store.db, key);
    expect((await cache.find(key))?.business.id).toBe(businessId);
    await sleep(350);
    expect(await cache.find(key)).toBeUndefined();
  });

  it('remembers unknown keys too, for as long', async () => {
    const cache = new CallerCache(store.db, 300);
    const later = `sk_${'A'.repeat(43)}`;
    expect(await cache.find(later)).toBeUndefined();
    expect(await cache.find(later)).toBeUndefined();
  });

  it('with a lifetime of 0, looks every key up', async () => {
    const { key } = await issueKey(store.db, businessId);
    const cache = new CallerCache(store.db, 0);
    expect(await cache.find(key)).toBeDefined();
    await revokeKey(store.db, key);
    expect(await cache.find(key)).toBeUndefined();
  });
});
