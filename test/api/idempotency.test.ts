// Idempotency-Key on POST and PUT, with Stripe's semantics.
import { describe, expect, it } from 'vitest';
import { ABANDONED_AFTER_MS, IDEMPOTENCY_TTL_MS, reserveKey } from '../../server/store/idempotency.js';
import { requestHash } from '../../server/usecases/platform/idempotency.js';
import { useService } from '../support/service.js';

const t = useService();

const body = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice' };
const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const total = async () => (await t.a.client.GET('/payment-links', { params: { query: { per_page: 1 } } })).data!.data.total;

describe('Idempotency-Key', () => {
  it('replays the first response to a retry with the same key and body, and creates one record', async () => {
    const before = await total();
    const first = await t.a.client.POST('/payment-links', { body, ...keyed('create-1') });
    const retry = await t.a.client.POST('/payment-links', { body, ...keyed('create-1') });
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.response.status).toBe(200);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data).toEqual(first.data);
    expect(await total()).toBe(before + 1);
  });

  it('refuses the same key with a different body with a 422 naming idempotency_key', async () => {
    await t.a.client.POST('/payment-links', { body, ...keyed('create-2') });
    const reused = await t.a.client.POST('/payment-links', { body: { ...body, amount: 2000 }, ...keyed('create-2') });
    expect(reused.response.status).toBe(422);
    expect(reused.error).toEqual({
      message: 'The given data was invalid.',
      errors: { idempotency_key: ['This idempotency key was already used with a different request.'] },
    });
  });

  it('refuses the same key on another path or method', async () => {
    const created = await t.a.client.POST('/payment-links', { body, ...keyed('create-3') });
    const other = await t.a.client.PUT('/payment-links/{payment_link_id}', {
      params: { path: { payment_link_id: created.data!.data._id } },
      body,
      ...keyed('create-3'),
    });
    expect(other.response.status).toBe(422);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    await reserveKey(t.service.db, t.a.business.id, 'busy', requestHash('POST', '/api/payment-links', body), t.service.secretsKey);
    const retry = await t.a.client.POST('/payment-links', { body, ...keyed('busy') });
    expect(retry.response.status).toBe(409);
    expect(retry.error).toEqual({ message: 'A request with this Idempotency-Key is still being processed. Retry it later.' });
  });

  it('lets a retry take over a key whose first request was abandoned (its process died)', async () => {
    const long = new Date(Date.now() - ABANDONED_AFTER_MS - 1_000);
    await reserveKey(t.service.db, t.a.business.id, 'abandoned', requestHash('POST', '/api/payment-links', body), t.service.secretsKey, long);
    const retry = await t.a.client.POST('/payment-links', { body, ...keyed('abandoned') });
    expect(retry.response.status).toBe(200);
  });

  it('of twelve concurrent requests with one key, exactly one runs', async () => {
    const before = await total();
    const answers = await Promise.all(Array.from({ length: 12 }, () => t.a.client.POST('/payment-links', { body, ...keyed('concurrent') })));
    const statuses = answers.map((a) => a.response.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const executed = answers.filter((a) => a.response.status === 200 && a.response.headers.get('idempotent-replayed') === null);
    expect(executed).toHaveLength(1);
    expect(await total()).toBe(before + 1);
  });

  it('replays errors too: a 409 for a paid link stays the answer to that key', async () => {
    const created = await t.a.client.POST('/payment-links', { body });
    const id = created.data!.data._id;
    await t.sql('payment_links').where({ _id: id }).update({ paid: true, status: 'Paid' });
    const first = await t.a.client.PUT('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } }, body, ...keyed('paid-put') });
    expect(first.response.status).toBe(409);
    await t.sql('payment_links').where({ _id: id }).update({ paid: false, status: 'Active' });
    const retry = await t.a.client.PUT('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } }, body, ...keyed('paid-put') });
    expect(retry.response.status).toBe(409);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.error).toEqual(first.error);
  });

  it('keeps the response sealed, and still replays one an earlier version stored as plain JSON', async () => {
    const first = await t.a.client.POST('/payment-links', { body, ...keyed('plain') });
    const row = await t.sql('idempotency_keys').where({ business_id: t.a.business.id, idempotency_key: 'plain' }).first();
    expect(row.response_body).toMatch(new RegExp(`^v1:${t.service.secretsKey.id}:`));
    expect(row.response_body).not.toContain(first.data!.data._id);
    await t
      .sql('idempotency_keys')
      .where({ id: row.id })
      .update({ response_body: JSON.stringify(first.data) });
    const retry = await t.a.client.POST('/payment-links', { body, ...keyed('plain') });
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data).toEqual(first.data);
  });

  it('stores nothing for a request that fails validation, so the key stays usable', async () => {
    const invalid = await t.a.client.POST('/payment-links', { body: { ...body, amount: 1 }, ...keyed('after-422') });
    expect(invalid.response.status).toBe(422);
    const valid = await t.a.client.POST('/payment-links', { body, ...keyed('after-422') });
    expect(valid.response.status).toBe(200);
    expect(valid.response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps keys per business: another business may use the same key', async () => {
    const a = await t.a.client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: '10', title: 'A' }, ...keyed('shared') });
    const b = await t.b.client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: '10', title: 'B' }, ...keyed('shared') });
    expect([a.response.status, b.response.status]).toEqual([200, 200]);
    expect(b.response.headers.get('idempotent-replayed')).toBeNull();
    expect(b.data!.data.title).toBe('B');
  });

  it('forgets a key after 24 hours', async () => {
    const hash = requestHash('POST', '/api/payment-links', body);
    const then = new Date('2026-01-01T00:00:00Z');
    const reserve = (now: Date) => reserveKey(t.service.db, t.a.business.id, 'day-old', hash, t.service.secretsKey, now);
    expect(await reserve(then)).toMatchObject({ kind: 'reserved' });
    expect(await reserve(new Date(then.getTime() + 1_000))).toEqual({ kind: 'in_flight' });
    expect(await reserve(new Date(then.getTime() + IDEMPOTENCY_TTL_MS))).toMatchObject({ kind: 'reserved' });
  });

  it('applies to PUT and the token endpoint, and is ignored on GET and DELETE', async () => {
    const token = { email: 'p@example.com', title: 'T', description: 'D' };
    const first = await t.a.client.POST('/tokenizations/create-token', { body: token, ...keyed('token') });
    const retry = await t.a.client.POST('/tokenizations/create-token', { body: token, ...keyed('token') });
    expect(retry.data?.data.token).toBe(first.data?.data.token);
    const link = (await t.a.client.POST('/open-payment-links', { body: { currency: 'MYR', minimum_amount: '10', title: 'X' } })).data!.data;
    const put = { currency: 'MYR', minimum_amount: '20', title: 'Y' };
    const p1 = await t.a.client.PUT('/open-payment-links/{open_payment_link_id}', {
      params: { path: { open_payment_link_id: link._id } },
      body: put,
      ...keyed('put'),
    });
    const p2 = await t.a.client.PUT('/open-payment-links/{open_payment_link_id}', {
      params: { path: { open_payment_link_id: link._id } },
      body: put,
      ...keyed('put'),
    });
    expect(p2.response.headers.get('idempotent-replayed')).toBe('true');
    expect(p2.data).toEqual(p1.data);
    const get = await t.a.client.GET('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: link._id } }, ...keyed('put') });
    expect(get.response.status).toBe(200);
    expect(get.response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('rejects a key longer than 255 characters', async () => {
    const long = await t.a.client.POST('/payment-links', { body, ...keyed('k'.repeat(256)) });
    expect(long.response.status).toBe(422);
    expect(long.error).toMatchObject({ errors: { idempotency_key: ['The idempotency key must not be greater than 255 characters.'] } });
  });
});
