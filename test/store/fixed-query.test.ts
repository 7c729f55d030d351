// A fixed query (store/executor.ts) is compiled once per dialect and shape and bound per call: it must
// run exactly the statement Knex builds for the same values, bind each call's own values (never the
// first call's), and refuse a parameter Knex wrote into the SQL instead of binding it.
import { beforeAll, describe, expect, it } from 'vitest';
import type { PageRequest } from '../../server/domain/paging.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { compile, fixedQuery } from '../../server/store/executor.js';
import { findPaymentLink, insertPaymentLink, listPaymentLinks, type PaymentLinkFields } from '../../server/store/payment-links.js';
import { useMigratedDatabase } from '../support/store.js';

const store = useMigratedDatabase('fixed-query');
let businessId: number;
let otherBusinessId: number;
beforeAll(async () => {
  businessId = (await findOrCreateBusiness(store.db, 'Fixed queries')).id;
  otherBusinessId = (await findOrCreateBusiness(store.db, 'Fixed queries, another')).id;
});

const FIELDS: PaymentLinkFields = {
  email: 'payer@example.com',
  phone_no: null,
  currency: 'MYR',
  amount: 1000,
  title: 'Invoice',
  description: null,
  redirect_url: null,
  reference: null,
  reference_2: null,
  expires_at: null,
  locale: null,
};
const FIRST_PAGE: PageRequest = { page: 1, perPage: 15, direction: 'desc' };

describe('a fixed query', () => {
  it('is the statement Knex builds for the same values, with each call bound to its own values', () => {
    const byReference = (reference: string) =>
      fixedQuery(
        store.db,
        'test payment_links by reference',
        (sql, param) =>
          sql('payment_links')
            .select('_id')
            .where({ business_id: param('business'), reference: param('reference') })
            .whereNull('deleted_at')
            .limit(1),
        { business: businessId, reference },
      );
    const built = (reference: string) =>
      compile(store.db.sql('payment_links').select('_id').where({ business_id: businessId, reference }).whereNull('deleted_at').limit(1));
    expect(byReference('INV-1')).toEqual(built('INV-1'));
    expect(byReference('INV-2')).toEqual(built('INV-2'));
  });

  it('refuses a parameter that Knex wrote into the SQL rather than binding it', () => {
    expect(() =>
      fixedQuery(
        store.db,
        'test limit written into the SQL',
        (sql, param) =>
          sql('payment_links')
            .select('_id')
            .limit(param('limit') as number, { skipBinding: true }),
        {
          limit: 5,
        },
      ),
    ).toThrow(/limit/);
  });

  it("reads, writes and lists each call's own records", async () => {
    const mine = await insertPaymentLink(store.db, businessId, { ...FIELDS, reference: 'MINE' });
    const theirs = await insertPaymentLink(store.db, otherBusinessId, { ...FIELDS, title: 'Theirs', reference: 'THEIRS' });
    expect(await findPaymentLink(store.db, businessId, mine._id)).toEqual(mine);
    expect(await findPaymentLink(store.db, otherBusinessId, theirs._id)).toEqual(theirs);
    expect(await findPaymentLink(store.db, businessId, theirs._id)).toBeUndefined();

    const listed = await listPaymentLinks(store.db, businessId, {}, FIRST_PAGE);
    expect(listed.rows.map((row) => row._id)).toEqual([mine._id]);
    expect((await listPaymentLinks(store.db, otherBusinessId, {}, FIRST_PAGE)).rows.map((row) => row._id)).toEqual([theirs._id]);
    expect((await listPaymentLinks(store.db, otherBusinessId, { reference: 'THEIRS' }, FIRST_PAGE)).rows.map((row) => row._id)).toEqual([theirs._id]);
    expect((await listPaymentLinks(store.db, otherBusinessId, { reference: 'MINE' }, FIRST_PAGE)).rows).toEqual([]);
    expect((await listPaymentLinks(store.db, businessId, {}, { ...FIRST_PAGE, page: 2 })).rows).toEqual([]);
  });
});
