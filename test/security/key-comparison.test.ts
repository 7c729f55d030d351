// API keys are compared in constant time. Timing itself is not measured (a shared machine is too
// noisy to prove anything); the structure is: the key is looked up by its SHA-256 (so the database
// compares digests, never the secret), and the decision rests on crypto.timingSafeEqual over two
// equal-length digests. node:crypto is wrapped so each call is seen, and can be overridden to show
// the decision really depends on it.
import { createHash } from 'node:crypto';
import * as crypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { findCallerByKey, hashKey, issueKey } from '../../server/store/api-keys.js';
import type { Executor } from '../../server/store/executor.js';
import { GOOD_CARD, Payer } from '../support/payer.js';
import { raw, useService } from '../support/service.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const timingSafeEqual = vi.mocked(crypto.timingSafeEqual);
const sha256 = (value: string) => createHash('sha256').update(value).digest();

const t = useService();
beforeEach(() => {
  timingSafeEqual.mockClear();
});

describe('API key lookup', () => {
  it('a request with a live key is decided by timingSafeEqual over two 32-byte digests, one of them SHA-256 of the key', async () => {
    const response = await raw(`${t.apiUrl}/payment-links`, { key: t.a.key });
    expect(response.status).toBe(200);
    expect(timingSafeEqual).toHaveBeenCalled();
    const digest = sha256(t.a.key);
    const call = timingSafeEqual.mock.calls.find(([x, y]) => Buffer.from(x as Uint8Array).equals(digest) || Buffer.from(y as Uint8Array).equals(digest));
    expect(call, 'no timingSafeEqual call compared the key digest').toBeDefined();
    const [x, y] = call! as [Uint8Array, Uint8Array];
    expect(x.byteLength).toBe(32);
    expect(y.byteLength).toBe(32);
    expect(Buffer.from(x).equals(Buffer.from(y))).toBe(true);
  });

  it('the decision rests on that comparison: when it says "different", the live key is refused', async () => {
    timingSafeEqual.mockReturnValueOnce(false);
    const refused = await raw(`${t.apiUrl}/payment-links`, { key: t.a.key });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: 'Unauthenticated.' });
    expect(timingSafeEqual).toHaveBeenCalledTimes(1);
    // And nothing else was holding the door: the next request, compared for real, gets in.
    expect((await raw(`${t.apiUrl}/payment-links`, { key: t.a.key })).status).toBe(200);
  });

  it('findCallerByKey itself: same key -> caller, comparison forced false -> no caller', async () => {
    const { key } = await issueKey(t.service.db, t.b.business.id);
    expect((await findCallerByKey(t.service.db, key))?.business.id).toBe(t.b.business.id);
    timingSafeEqual.mockReturnValueOnce(false);
    expect(await findCallerByKey(t.service.db, key)).toBeUndefined();
  });

  it('a wrong key of the right shape never reaches a comparison of secrets: its digest matches no row', async () => {
    const wrong = `${t.a.key.slice(0, -1)}${t.a.key.endsWith('A') ? 'B' : 'A'}`;
    expect(await findCallerByKey(t.service.db, wrong)).toBeUndefined();
    // The only comparisons made are between digests (32 bytes), never between key texts.
    for (const [x, y] of timingSafeEqual.mock.calls as [Uint8Array, Uint8Array][]) expect([x.byteLength, y.byteLength]).toEqual([32, 32]);
  });

  it('a malformed key is refused before any database work', async () => {
    const noDatabase = new Proxy(() => {}, {
      get: () => {
        throw new Error('the database was consulted for a malformed key');
      },
      apply: () => {
        throw new Error('the database was consulted for a malformed key');
      },
    }) as unknown as Executor;
    for (const key of ['', 'sk_', `sk_${'A'.repeat(42)}`, `sk_${'A'.repeat(44)}`, `pk_${'A'.repeat(43)}`, `sk_${'é'.repeat(43)}`, `sk_${'A'.repeat(10_000)}`]) {
      expect(await findCallerByKey(noDatabase, key)).toBeUndefined();
    }
  });

  it('the database holds only the digest: no column of api_keys contains the key, and key_hash is its SHA-256', async () => {
    const rows = (await t.sql('api_keys').select()) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) for (const value of Object.values(row)) for (const key of [t.a.key, t.b.key]) expect(String(value)).not.toContain(key.slice(10));
    const row = rows.find((r) => r.key_hash === hashKey(t.a.key));
    expect(row?.key_hash).toBe(sha256(t.a.key).toString('hex'));
  });
});

describe('CSRF token of the payer forms', () => {
  it('is compared with timingSafeEqual too, and a forced mismatch refuses the form', async () => {
    const link = await raw(`${t.apiUrl}/open-payment-links`, {
      key: t.a.key,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ currency: 'MYR', minimum_amount: '10.00', title: 'Donations' }),
    });
    const url = new URL((link.body as { data: { payment_url: string } }).data.payment_url);
    const payer = new Payer(t.url);
    const form = await payer.open(url.pathname + url.search);
    timingSafeEqual.mockClear();
    timingSafeEqual.mockReturnValueOnce(false);
    const refused = await payer.submit(form, { amount: '10.00', name: 'Payer', email: 'payer@example.com', ...GOOD_CARD });
    expect(refused.status).toBe(403);
    const [x, y] = timingSafeEqual.mock.calls[0] as [Uint8Array, Uint8Array];
    expect(Buffer.from(x).toString()).toBe(form.csrf);
    expect(Buffer.from(y).toString()).toBe(form.csrf);
    const paid = await payer.submit(form, { amount: '10.00', name: 'Payer', email: 'payer@example.com', ...GOOD_CARD });
    expect(paid.status).toBe(303);
  });
});
