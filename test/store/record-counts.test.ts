// Unfiltered list totals come from counts the database keeps itself (triggers), whatever writes the rows.
import { describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { liveCount } from '../../server/store/record-counts.js';
import { useMigratedDatabase } from '../support/store.js';

const store = useMigratedDatabase('counts');

function link(businessId: number) {
  return {
    _id: newId(), business_id: businessId, email: 'a@example.com', currency: 'MYR', amount: 1000, title: 't', status: 'Active', paid: false,
    created_at: '2026-01-01T00:00:00.000000Z', updated_at: '2026-01-01T00:00:00.000000Z',
  };
}

describe('record counts', () => {
  it('follow inserts, soft deletes, restores and hard deletes, per business', async () => {
    const a = (await findOrCreateBusiness(store.db, 'Counted A')).id;
    const b = (await findOrCreateBusiness(store.db, 'Counted B')).id;
    const rows = Array.from({ length: 5 }, () => link(a));
    await store.db('payment_links').insert(rows);
    await store.db('payment_links').insert(link(b));
    expect(await liveCount(store.db, a, 'payment_links')).toBe(5);
    expect(await liveCount(store.db, b, 'payment_links')).toBe(1);

    await store.db('payment_links').where({ _id: rows[0]!._id }).update({ deleted_at: '2026-01-02T00:00:00.000000Z' });
    await store.db('payment_links').where({ _id: rows[0]!._id }).update({ title: 'renamed while deleted' });
    expect(await liveCount(store.db, a, 'payment_links')).toBe(4);
    await store.db('payment_links').where({ _id: rows[0]!._id }).update({ deleted_at: null });
    expect(await liveCount(store.db, a, 'payment_links')).toBe(5);
    await store.db('payment_links').where({ _id: rows[1]!._id }).delete();
    expect(await liveCount(store.db, a, 'payment_links')).toBe(4);
    expect(await liveCount(store.db, a, 'open_payment_links')).toBe(0);
    const live = Number((await store.db('payment_links').where({ business_id: a }).whereNull('deleted_at').count({ n: '*' }).first())!.n);
    expect(await liveCount(store.db, a, 'payment_links')).toBe(live);
  });
});
