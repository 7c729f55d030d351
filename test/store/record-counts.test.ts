// Unfiltered list totals come from counts the database keeps itself (triggers), whatever writes the rows;
// totals over a date range sum those kept per year, month and day.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { PAYMENT_FAILED, PAYMENT_METHODS, PAYMENT_PAID, PAYMENT_PENDING, PAYMENT_STATES, REFUND_FULL, REFUND_PARTIAL } from '../../server/domain/statuses.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { coverByPeriods } from '../../server/store/count-periods.js';
import { listPayments, type PaymentFilters } from '../../server/store/payment-lists.js';
import { OPEN_PAYMENT_LINK_COUNTS, PAYMENT_LINK_COUNTS } from '../../server/store/counters/declaration.js';
import { countOf } from '../../server/store/record-counts.js';
import { tokenRow, useMigratedDatabase } from '../support/store.js';

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
    expect(await countOf(store.db, PAYMENT_LINK_COUNTS, a)).toBe(5);
    expect(await countOf(store.db, PAYMENT_LINK_COUNTS, b)).toBe(1);

    await store.sql('payment_links').where({ _id: rows[0]!._id }).update({ deleted_at: '2026-01-02T00:00:00.000000Z' });
    await store.sql('payment_links').where({ _id: rows[0]!._id }).update({ title: 'renamed while deleted' });
    expect(await countOf(store.db, PAYMENT_LINK_COUNTS, a)).toBe(4);
    await store.sql('payment_links').where({ _id: rows[0]!._id }).update({ deleted_at: null });
    expect(await countOf(store.db, PAYMENT_LINK_COUNTS, a)).toBe(5);
    await store.sql('payment_links').where({ _id: rows[1]!._id }).delete();
    expect(await countOf(store.db, PAYMENT_LINK_COUNTS, a)).toBe(4);
    expect(await countOf(store.db, OPEN_PAYMENT_LINK_COUNTS, a)).toBe(0);
    const live = Number((await store.sql('payment_links').where({ business_id: a }).whereNull('deleted_at').count({ n: '*' }).first())!.n);
    expect(await countOf(store.db, PAYMENT_LINK_COUNTS, a)).toBe(live);
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
            expect(await countOf(store.db, PAYMENT_LINK_COUNTS, business, { status: statuses }, days), `${business} ${statuses} ${from}..${to}`).toBe(
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
    expect(await countOf(store.db, PAYMENT_LINK_COUNTS, a, { status: ['Active', 'Paid'] }, undefined)).toBe(await countOf(store.db, PAYMENT_LINK_COUNTS, a));
  });
});

const DAY_MS = 86_400_000;
const dayOf = (epochDay: number) => new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
const epochDayOf = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const rangeOf = (from: string, to: string) => ({ from, to, start: `${from}T00:00:00.000000Z`, end: `${to}T23:59:59.999999Z` });

describe('period cover', () => {
  it('cuts any range into whole years, months and edge days that meet end to end, a bounded number of runs', () => {
    const firstDay = epochDayOf('0000-01-01');
    const lastDay = epochDayOf('9999-12-31');
    const day = fc.oneof(
      fc.integer({ min: firstDay, max: lastDay }),
      fc.integer({ min: epochDayOf('2019-12-25'), max: epochDayOf('2025-01-05') }),
      fc.constantFrom(firstDay, lastDay),
    );
    fc.assert(
      fc.property(day, day, (x, y) => {
        const [from, to] = [dayOf(Math.min(x, y)), dayOf(Math.max(x, y))];
        const cover = coverByPeriods(from, to);
        // Every run as the days it stands for; the next month or year starts the day after the last one's end.
        const runs = [
          ...cover.years.map(([a, b]) => [`${a}-01-01`, `${b}-12-31`]),
          ...cover.months.map(([a, b]) => [`${a}-01`, dayOf(epochDayOf(`${dayOf(epochDayOf(`${b}-01`) + 31).slice(0, 7)}-01`) - 1)]),
          ...cover.days,
        ].sort(([a], [b]) => a!.localeCompare(b!));
        expect(runs[0]![0]).toBe(from);
        expect(runs[runs.length - 1]![1]).toBe(to);
        for (let i = 1; i < runs.length; i++) expect(epochDayOf(runs[i]![0]!), `${from}..${to}`).toBe(epochDayOf(runs[i - 1]![1]!) + 1);
        for (const [a, b] of runs) expect(a! <= b!).toBe(true);
        expect(cover.years.length).toBeLessThanOrEqual(1);
        expect(cover.months.length).toBeLessThanOrEqual(2);
        expect(cover.days.length).toBeLessThanOrEqual(4);
        for (const [a, b] of cover.days) expect(epochDayOf(b) - epochDayOf(a)).toBeLessThan(62);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('period counts', () => {
  it('give payment totals over ranges of several years exactly, through state changes, refunds, moves and deletes', async () => {
    const a = (await findOrCreateBusiness(store.db, 'Periods A')).id;
    const b = (await findOrCreateBusiness(store.db, 'Periods B')).id;
    // Payments from 2023 to 2027 at random instants, and at the first and last instants of every month.
    const instants = fc
      .sample(fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2028, 0, 1) - 1 }), { numRuns: 160, seed: 22 })
      .map((ms) => new Date(ms).toISOString().replace(/Z$/, '000Z'));
    for (let month = 0; month < 60; month += 1) {
      const first = dayOf(epochDayOf(`${2023 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-01`));
      instants.push(`${first}T00:00:00.000000Z`, `${dayOf(epochDayOf(first) - 1)}T23:59:59.999999Z`);
    }
    const payments = instants.map((created_at, i) => {
      const business = i % 7 === 0 ? b : a;
      const target = { ...link(business), created_at };
      return {
        target,
        payment: {
          _id: newId(),
          business_id: business,
          payment_link_id: target._id,
          attempt_id: `period-${i}`,
          amount: 1000,
          currency: 'MYR',
          status_id: [PAYMENT_PAID, PAYMENT_PENDING, PAYMENT_FAILED][i % 3],
          method: PAYMENT_METHODS[i % PAYMENT_METHODS.length],
          provider: 'sandbox',
          created_at,
          updated_at: created_at,
        },
      };
    });
    await store.sql.batchInsert(
      'payment_links',
      payments.map(({ target }) => target),
      100,
    );
    await store.sql.batchInsert(
      'payments',
      payments.map(({ payment }) => payment),
      100,
    );

    const edges = ['2022-12-31', '2023-01-01', '2023-03-15', '2024-02-29', '2024-12-31', '2025-01-01', '2025-06-30', '2026-08-10', '2026-12-31', '2027-12-31'];
    const ranges: ([string, string] | undefined)[] = [
      undefined,
      ['0001-01-01', '9999-12-31'],
      ['2023-03-15', '2026-08-10'],
      ['2023-01-01', '2026-12-31'],
      ['2024-02-01', '2024-02-29'],
      ['2024-12-31', '2025-01-01'],
      ...fc
        .sample(fc.tuple(fc.constantFrom(...edges), fc.constantFrom(...edges)), { numRuns: 12, seed: 7 })
        .map(([x, y]) => (x <= y ? [x, y] : [y, x]) as [string, string]),
      ...fc
        .sample(fc.tuple(fc.integer({ min: epochDayOf('2022-11-01'), max: epochDayOf('2028-02-01') }), fc.nat({ max: 1_500 })), { numRuns: 12, seed: 11 })
        .map(([start, length]) => [dayOf(start), dayOf(start + length)] as [string, string]),
    ];
    const filters: PaymentFilters[] = [
      {},
      ...PAYMENT_STATES.map((status) => ({ status })),
      ...PAYMENT_METHODS.map((method) => ({ method })),
      { status: PAYMENT_STATES[1], method: 'fpx' },
    ];
    /** What counting the rows says. */
    const counted = async (business: number, filter: PaymentFilters) => {
      const query = store.sql('payments').where({ business_id: business });
      if (filter.status) query.where({ status_id: filter.status.statusId, refund_state: filter.status.refundState });
      if (filter.method) query.where({ method: filter.method });
      if (filter.createdBetween) query.whereBetween('created_at', [filter.createdBetween.start, filter.createdBetween.end]);
      return Number((await query.count({ n: '*' }).first())!.n);
    };
    const check = async () => {
      for (const range of ranges)
        for (const filter of filters)
          for (const business of [a, b]) {
            const filtered = { ...filter, createdBetween: range && rangeOf(...range) };
            const page = await listPayments(store.db, business, filtered, { page: 1, perPage: 1, direction: 'desc' });
            expect(page.total, `${business} ${JSON.stringify(filter)} ${range}`).toBe(await counted(business, filtered));
          }
    };
    await check();
    const ids = (status: number) => payments.filter(({ payment }) => payment.status_id === status).map(({ payment }) => payment._id);
    const pending = ids(PAYMENT_PENDING);
    await store.sql('payments').whereIn('_id', pending.slice(0, 20)).update({ status_id: PAYMENT_PAID }); // pending payments succeed
    const paid = ids(PAYMENT_PAID);
    await store.sql('payments').whereIn('_id', paid.slice(0, 30)).update({ amount_refunded: 400, refund_state: REFUND_PARTIAL }); // refunded in part
    await store.sql('payments').whereIn('_id', paid.slice(0, 12)).update({ amount_refunded: 1000, refund_state: REFUND_FULL }); // then in full
    await store.sql('payments').whereIn('_id', paid.slice(40, 45)).update({ amount_refunded: 1000, refund_state: REFUND_FULL }); // at once
    await check();
    await store.sql('payments').where({ _id: pending[30] }).update({ created_at: '2026-07-04T08:00:00.000000Z' }); // to another year
    await store.sql('payments').where({ _id: paid[50] }).update({ method: 'grabpay', created_at: '2023-12-31T23:59:59.999999Z' });
    await store.sql('payments').whereIn('_id', [paid[60]!, paid[61]!, pending[40]!]).delete();
    await check();
  });
});

describe('open link payment counts', () => {
  it('give the total of one open link’s payments, with status, method and range, exactly through state changes, refunds, moves and deletes', async () => {
    const a = (await findOrCreateBusiness(store.db, 'Open links A')).id;
    const b = (await findOrCreateBusiness(store.db, 'Open links B')).id;
    const openLink = (business: number) => ({
      _id: newId(),
      business_id: business,
      currency: 'MYR',
      minimum_amount: 100,
      title: 'open',
      status_id: 1,
      created_at: '2026-01-01T00:00:00.000000Z',
      updated_at: '2026-01-01T00:00:00.000000Z',
    });
    const opens = [openLink(a), openLink(a), openLink(b)];
    await store.sql('open_payment_links').insert(opens);
    const links = Array.from({ length: 60 }, () => link(a)); // one each: a payment link takes one successful payment
    await store.sql('payment_links').insert(links);
    const token = tokenRow(a);
    await store.sql('tokens').insert(token);
    const days = ['2025-12-31', '2026-01-01', '2026-01-31', '2026-02-01', '2026-03-15'];
    const payments = Array.from({ length: 60 }, (_, i) => {
      const created_at = `${days[i % days.length]}T${String(i % 24).padStart(2, '0')}:30:00.000000Z`;
      // Most on open links (one of them business B's), the others on a payment link or a token.
      const open = i % 11 === 0 ? opens[2]! : i % 6 < 4 ? opens[i % 2]! : undefined;
      return {
        _id: newId(),
        business_id: open?.business_id ?? a,
        open_payment_link_id: open?._id ?? null,
        payment_link_id: !open && i % 2 === 0 ? links[i]!._id : null,
        tokenization_id: !open && i % 2 === 1 ? token._id : null,
        attempt_id: `open-${i}`,
        amount: 1000,
        currency: 'MYR',
        status_id: [PAYMENT_PAID, PAYMENT_PENDING, PAYMENT_PAID, PAYMENT_FAILED][i % 4],
        method: PAYMENT_METHODS[i % PAYMENT_METHODS.length],
        provider: 'sandbox',
        created_at,
        updated_at: created_at,
      };
    });
    await store.sql.batchInsert('payments', payments, 50);

    const ranges: ([string, string] | undefined)[] = [
      undefined,
      ['2026-01-01', '2026-01-01'],
      ['2025-12-01', '2026-01-31'],
      ['2026-01-15', '2026-03-31'],
      ['2026-01-01', '2026-12-31'],
    ];
    const filters: PaymentFilters[] = [
      {},
      ...PAYMENT_STATES.map((status) => ({ status })),
      ...PAYMENT_METHODS.map((method) => ({ method })),
      { status: PAYMENT_STATES[0], method: 'card' },
    ];
    /** What counting the rows says. */
    const counted = async (business: number, filter: PaymentFilters) => {
      const query = store.sql('payments').where({ business_id: business, open_payment_link_id: filter.openPaymentLinkId });
      if (filter.status) query.where({ status_id: filter.status.statusId, refund_state: filter.status.refundState });
      if (filter.method) query.where({ method: filter.method });
      if (filter.createdBetween) query.whereBetween('created_at', [filter.createdBetween.start, filter.createdBetween.end]);
      return Number((await query.count({ n: '*' }).first())!.n);
    };
    let nonZero = 0;
    const check = async () => {
      for (const range of ranges)
        for (const filter of filters)
          for (const business of [a, b])
            for (const open of opens) {
              const filtered = { ...filter, openPaymentLinkId: open._id, createdBetween: range && rangeOf(...range) };
              const page = await listPayments(store.db, business, filtered, { page: 1, perPage: 1, direction: 'desc' });
              const expected = await counted(business, filtered);
              if (expected > 0) nonZero += 1;
              expect(page.total, `${business} ${open._id} ${JSON.stringify(filter)} ${range}`).toBe(expected);
            }
    };
    await check();
    const onOpen = payments.filter((payment) => payment.open_payment_link_id !== null);
    const ids = (status: number) => onOpen.filter((payment) => payment.status_id === status).map((payment) => payment._id);
    const [paid, pending] = [ids(PAYMENT_PAID), ids(PAYMENT_PENDING)];
    await store.sql('payments').whereIn('_id', pending.slice(0, 3)).update({ status_id: PAYMENT_PAID }); // pending payments succeed
    await store.sql('payments').whereIn('_id', paid.slice(0, 6)).update({ amount_refunded: 400, refund_state: REFUND_PARTIAL }); // refunded in part
    await store.sql('payments').whereIn('_id', paid.slice(0, 2)).update({ amount_refunded: 1000, refund_state: REFUND_FULL }); // then in full
    await store.sql('payments').whereIn('_id', paid.slice(8, 10)).update({ amount_refunded: 1000, refund_state: REFUND_FULL }); // at once
    await check();
    await store.sql('payments').where({ _id: pending[4] }).update({ created_at: '2026-07-04T08:00:00.000000Z' }); // to another month
    await store.sql('payments').where({ _id: paid[11] }).update({ method: 'grabpay', created_at: '2025-12-31T23:59:59.999999Z' });
    await store.sql('payments').whereIn('_id', [paid[12]!, pending[5]!]).delete();
    await check();
    expect(nonZero).toBeGreaterThan(100); // the checks compared links and filters that match payments, not only empty ones
  });
});
