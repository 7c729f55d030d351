// The SQLite fast paths keep SQLite's guarantees: a batched write is acknowledged only once
// committed, one failing write does not sink the others, a batch never lands inside a Knex
// transaction, and fast reads never see uncommitted data. On PostgreSQL there is no fast path.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { batchedWrite, fastPathOf, selectFirst, selectRows } from '../../server/store/sqlite-fast.js';
import { useMigratedDatabase } from '../support/store.js';
import { sleep } from '../support/wait.js';

const store = useMigratedDatabase('fast');
let businessId: number;
beforeAll(async () => {
  businessId = (await findOrCreateBusiness(store.db, 'Fast')).id;
});

const token = (id = newId()) => ({
  _id: id, business_id: businessId, email: 'a@example.com', phone_no: null, redirect_url: null, title: 't', description: 'd',
  token: newId() + newId() + newId().slice(0, 16), status: 'pending', created_at: '2026-01-01T00:00:00.000000Z', updated_at: '2026-01-01T00:00:00.000000Z',
});
const count = async () => Number((await store.db('tokens').count({ n: '*' }).first())!.n);

describe('batched writes and fast reads', () => {
  it('commits fifty concurrent writes, all visible afterwards', async () => {
    const before = await count();
    await Promise.all(Array.from({ length: 50 }, () => batchedWrite(store.db, store.db('tokens').insert(token()))));
    expect(await count()).toBe(before + 50);
  });

  it('rejects only the write that fails; the rest of its batch commits', async () => {
    const before = await count();
    const duplicate = token();
    await batchedWrite(store.db, store.db('tokens').insert(duplicate));
    const results = await Promise.allSettled([
      batchedWrite(store.db, store.db('tokens').insert(token())),
      batchedWrite(store.db, store.db('tokens').insert({ ...token(), _id: duplicate._id })),
      batchedWrite(store.db, store.db('tokens').insert(token())),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await count()).toBe(before + 3);
  });

  it('never writes into an open Knex transaction, and never reads its uncommitted rows', async () => {
    const inside = token();
    const outside = token();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = store.db
      .transaction(async (trx) => {
        await trx('tokens').insert(inside);
        await held;
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await sleep(20);
    let written = false;
    const write = batchedWrite(store.db, store.db('tokens').insert(outside)).then(() => (written = true));
    await sleep(20);
    if (fastPathOf(store.db)) expect(written).toBe(false);
    expect(await selectFirst(store.db, store.db('tokens').where({ _id: inside._id }))).toBeUndefined();
    release();
    await transaction;
    await write;
    expect(await selectRows(store.db, store.db('tokens').whereIn('_id', [inside._id, outside._id]))).toHaveLength(1);
    expect(await selectFirst(store.db, store.db('tokens').where({ _id: outside._id }))).toBeDefined();
  });

  it('reads rows exactly as Knex does: same columns, values and order, a repeated name keeping its last value', async () => {
    const rows = [token(), token(), token()];
    await store.db('tokens').insert(rows);
    const ids = rows.map((row) => row._id);
    const queries = [
      () => store.db('tokens').whereIn('_id', ids).orderBy('_id', 'desc'),
      () => store.db('tokens').select('_id', 'status', store.db.raw('? as status', ['shadowed'])).whereIn('_id', ids).orderBy('_id'),
      () => store.db('tokens').count({ n: '*' }).whereIn('_id', ids),
    ];
    for (const query of queries) {
      const direct = await query();
      expect(direct.length).toBeGreaterThan(0);
      expect(await selectRows(store.db, query())).toEqual(direct);
      expect(await selectFirst(store.db, query())).toEqual(direct[0]);
    }
    expect(await selectFirst(store.db, store.db('tokens').where({ _id: 'none' }))).toBeUndefined();
  });

  it('names the columns a cached `select *` returns after the table changed under it', async () => {
    await store.db.schema.createTable('fast_path_scratch', (table) => table.string('a'));
    try {
      await store.db('fast_path_scratch').insert({ a: 'x' });
      const all = () => store.db('fast_path_scratch').select('*');
      expect(await selectRows(store.db, all())).toEqual([{ a: 'x' }]);
      await store.db.schema.alterTable('fast_path_scratch', (table) => table.string('b'));
      await store.db('fast_path_scratch').update({ b: 'y' });
      expect(await selectRows(store.db, all())).toEqual([{ a: 'x', b: 'y' }]);
      expect(await selectFirst(store.db, all())).toEqual({ a: 'x', b: 'y' });
    } finally {
      await store.db.schema.dropTable('fast_path_scratch');
    }
  });

  it('exists on SQLite only, and never inside a transaction', async () => {
    expect(Boolean(fastPathOf(store.db))).toBe(store.db.client.config.client === 'better-sqlite3');
    await store.db.transaction(async (trx) => expect(fastPathOf(trx)).toBeUndefined());
  });
});
