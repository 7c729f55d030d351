// Unfiltered list totals come from counts the database keeps itself (triggers), whatever writes the rows.
import { describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { dailyCount, liveCount } from '../../server/store/record-counts.js';
import { useMigratedDatabase } from '../support/store.js';

const store = useMigratedDatabase('counts');

function link(businessId: number) {
  return {
    _id: newId(),
    business_id: businessId,
    email: 'a@example.com',
    currency: 'MYR',
    amount: 1000,
    title: 't',
    status: 'Active',
    paid: false,
    created_at: '2026-01-01T00:00:00.000000Z',
    updated_at: '2026-01-01T00:00:00.000000Z',
  };
}

describe('record counts', () => {
  it('follow inserts, soft deletes, restores and hard deletes, per business', async () => {
    const a = (await findOrCreateBusiness(store.db, 'Counted A')).id;
    const b = (await findOrCreateBusiness(store.db, 'Counted B')).id;
    const rows = Array.from({ length: 5 }, () => link(a));
    await store.sql('payment_links').insert(rows);
    await store.sql('payment_links').insert(link(b));
    expect(await liveCount(store.db, a, 'payment_links')).toBe(5);
    expect(await liveCount(store.db, b, 'payment_links')).toBe(1);

    await store.sql('payment_links').where({ _id: rows[0]!._id }).update({ deleted_at: '2026-01-02T00:00:00.000000Z' });
    await store.sql('payment_links').where({ _id: rows[0]!._id }).update({ title: 'renamed while deleted' });
    expect(await liveCount(store.db, a, 'payment_links')).toBe(4);
    await store.sql('payment_links').where({ _id: rows[0]!._id }).update({ deleted_at: null });
    expect(await liveCount(store.db, a, 'payment_links')).toBe(5);
    await store.sql('payment_links').where({ _id: rows[1]!._id }).delete();
    expect(await liveCount(store.db, a, 'payment_links')).toBe(4);
    expect(await liveCount(store.db, a, 'open_payment_links')).toBe(0);
    const live = Number((await store.sql('payment_links').where({ business_id: a }).whereNull('deleted_at').count({ n: '*' }).first())!.n);
    expect(await liveCount(store.db, a, 'payment_links')).toBe(live);
  });
});

describe('daily counts', () => {
  const at = (day: string) => `${day}T12:00:00.000000Z`;
  it('know the total of any status and day range exactly, through every kind of change', async () => {
    const a = (await findOrCreateBusiness(store.db, 'Daily A')).id;
    const b = (await findOrCreateBusiness(store.db, 'Daily B')).id;
    const rows = [
      { ...link(a), created_at: at('2026-03-01') },
      { ...link(a), created_at: at('2026-03-01'), status: 'Paid', paid: true },
      { ...link(a), created_at: at('2026-03-02') },
      { ...link(a), created_at: at('2026-03-05') },
      { ...link(b), created_at: at('2026-03-01') },
    ];
    await store.sql('payment_links').insert(rows);
    const range = (from: string, to: string) => ({ from, to, start: `${from}T00:00:00.000000Z`, end: `${to}T23:59:59.999999Z` });
    /** What counting the rows says, to compare the kept counts with. */
    const counted = async (business: number, statuses: string[], from?: string, to?: string) => {
      const query = store.sql('payment_links').where({ business_id: business }).whereNull('deleted_at').whereIn('status', statuses);
      if (from && to) query.whereBetween('created_at', [range(from, to).start, range(from, to).end]);
      return Number((await query.count({ n: '*' }).first())!.n);
    };
    const check = async () => {
      for (const statuses of [['Active'], ['Paid'], ['Active', 'Paid']]) {
        for (const [from, to] of [
          [undefined, undefined],
          ['2026-03-01', '2026-03-01'],
          ['2026-03-01', '2026-03-02'],
          ['2026-03-03', '2026-03-31'],
          ['2026-02-01', '2026-04-01'],
        ] as const) {
          const days = from && to ? range(from, to) : undefined;
          for (const business of [a, b])
            expect(await dailyCount(store.db, business, 'payment_links', statuses, days), `${business} ${statuses} ${from}..${to}`).toBe(
              await counted(business, statuses, from, to),
            );
        }
      }
    };
    await check();
    await store.sql('payment_links').where({ _id: rows[0]!._id }).update({ status: 'Paid', paid: true }); // status changes
    await check();
    await store
      .sql('payment_links')
      .where({ _id: rows[2]!._id })
      .update({ deleted_at: at('2026-03-06') }); // soft delete
    await check();
    await store.sql('payment_links').where({ _id: rows[2]!._id }).update({ deleted_at: null }); // restore
    await store
      .sql('payment_links')
      .where({ _id: rows[3]!._id })
      .update({ created_at: at('2026-03-02') }); // moved to another day
    await store.sql('payment_links').where({ _id: rows[1]!._id }).update({ title: 'renamed' }); // no bucket changes
    await check();
    await store.sql('payment_links').where({ _id: rows[1]!._id }).delete(); // hard delete
    await check();
    expect(await dailyCount(store.db, a, 'payment_links', ['Active', 'Paid'], undefined)).toBe(await liveCount(store.db, a, 'payment_links'));
  });
});
