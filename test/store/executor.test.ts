// The one data path keeps each database's guarantees, the same through the same interface on both:
// a write is acknowledged only once committed (and then seen by everyone), one failing write does not
// sink the others committed with it, a write or read outside an open transaction never lands in it
// or sees it, a failing transaction leaves nothing, nested transactions are savepoints, and rows read
// back exactly as Knex reads them.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { findOrCreateBusiness } from '../../server/store/businesses.js';
import { openDatabase } from '../../server/store/database.js';
import { BACK_ON_THREAD_AFTER_RUNS, SQLITE_PRAGMAS } from '../../server/store/sqlite.js';
import { SqliteReaderThread } from '../../server/store/sqlite-reader-thread.js';
import { tokenRow, useMigratedDatabase } from '../support/store.js';
import { sleep } from '../support/wait.js';

const store = useMigratedDatabase('executor');
let businessId: number;
beforeAll(async () => {
  businessId = (await findOrCreateBusiness(store.db, 'Executor')).id;
});

const token = (id = newId()) => tokenRow(businessId, id);
/** Counted on a connection of its own: what any other process would see. */
const count = async () => Number((await store.sql('tokens').count({ n: '*' }).first())!.n);
const insert = (row: ReturnType<typeof token>) => store.db.run(store.db.sql('tokens').insert(row));

describe('the executor', () => {
  it('commits fifty concurrent writes; each is visible to another connection once acknowledged', async () => {
    const before = await count();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const row = token();
        await insert(row);
        expect(await store.sql('tokens').where({ _id: row._id }).first()).toBeDefined();
      }),
    );
    expect(await count()).toBe(before + 50);
  });

  it('rejects only the write that fails; the writes committed with it stay', async () => {
    const before = await count();
    const duplicate = token();
    await insert(duplicate);
    const results = await Promise.allSettled([insert(token()), insert({ ...token(), _id: duplicate._id }), insert(token())]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await count()).toBe(before + 3);
  });

  it('never writes into an open transaction, and never reads its uncommitted rows; a failing transaction leaves nothing', async () => {
    const inside = token();
    const outside = token();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const opened = new Promise<void>((resolve) => (entered = resolve));
    const transaction = store.db
      .transaction(async (tx) => {
        await tx.run(tx.sql('tokens').insert(inside));
        expect(await tx.first(tx.sql('tokens').where({ _id: inside._id }))).toBeDefined();
        entered();
        await held;
        throw new Error('roll back');
      })
      .catch((error: Error) => error.message);
    await opened;
    const write = insert(outside);
    await sleep(20);
    expect(await store.db.first(store.db.sql('tokens').where({ _id: inside._id }))).toBeUndefined();
    release();
    expect(await transaction).toBe('roll back');
    await write;
    expect(await store.db.all(store.db.sql('tokens').whereIn('_id', [inside._id, outside._id]))).toHaveLength(1);
    expect(await store.db.first(store.db.sql('tokens').where({ _id: outside._id }))).toBeDefined();
  });

  it('nests transactions as savepoints: a failing inner one is undone, the outer one commits', async () => {
    const outer = token();
    const inner = token();
    await store.db.transaction(async (tx) => {
      await tx.run(tx.sql('tokens').insert(outer));
      await expect(
        tx.transaction(async (nested) => {
          await nested.run(nested.sql('tokens').insert(inner));
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
    });
    expect(await store.sql('tokens').where({ _id: outer._id }).first()).toBeDefined();
    expect(await store.sql('tokens').where({ _id: inner._id }).first()).toBeUndefined();
  });

  it('counts the rows a write changed, and returns the rows of a write with RETURNING', async () => {
    const rows = [token(), token()];
    for (const row of rows) await insert(row);
    const ids = rows.map((row) => row._id);
    expect(await store.db.run(store.db.sql('tokens').whereIn('_id', ids).update({ status: 'active' }))).toBe(2);
    expect(await store.db.run(store.db.sql('tokens').where({ _id: 'none' }).update({ status: 'active' }))).toBe(0);
    const returned = await store.db.all<{ _id: string }>(store.db.sql('tokens').whereIn('_id', ids).update({ title: 'u' }).returning(['_id']));
    expect(returned.map((row) => row._id).sort()).toEqual([...ids].sort());
  });

  it('reads rows exactly as Knex does: same columns, values and order, a repeated name keeping its last value', async () => {
    const rows = [token(), token(), token()];
    for (const row of rows) await insert(row);
    const ids = rows.map((row) => row._id);
    const queries = [
      (sql: typeof store.sql) => sql('tokens').whereIn('_id', ids).orderBy('_id', 'desc'),
      (sql: typeof store.sql) =>
        sql('tokens')
          .select('_id', 'status', sql.raw('? as status', ['shadowed']))
          .whereIn('_id', ids)
          .orderBy('_id'),
      (sql: typeof store.sql) => sql('tokens').count({ n: '*' }).whereIn('_id', ids),
    ];
    for (const query of queries) {
      const direct = await query(store.sql);
      expect(direct.length).toBeGreaterThan(0);
      expect(await store.db.all(query(store.db.sql))).toEqual(direct);
      expect(await store.db.first(query(store.db.sql))).toEqual(direct[0]);
    }
    expect(await store.db.first(store.db.sql('tokens').where({ _id: 'none' }))).toBeUndefined();
  });

  it('names the columns a kept `select *` returns after the table changed under it', async () => {
    await store.sql.schema.createTable('executor_scratch', (table) => table.string('a'));
    try {
      await store.sql('executor_scratch').insert({ a: 'x' });
      const all = () => store.db.sql('executor_scratch').select('*');
      expect(await store.db.all(all())).toEqual([{ a: 'x' }]);
      await store.sql.schema.alterTable('executor_scratch', (table) => table.string('b'));
      await store.sql('executor_scratch').update({ b: 'y' });
      expect(await store.db.all(all())).toEqual([{ a: 'x', b: 'y' }]);
      expect(await store.db.first(all())).toEqual({ a: 'x', b: 'y' });
    } finally {
      await store.sql.schema.dropTable('executor_scratch');
    }
  });
});

describe.skipIf(Boolean(process.env.TEST_POSTGRES_URL))('long reads on the embedded database', () => {
  // Counts to n without a table: SQLite's work grows with n, and a blob checks values that cross threads.
  const counting = (sql: typeof store.db.sql, n: number) =>
    sql.raw("with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) as n, x'00ff' as blob from c", [n]);
  /** How long the call held the caller's thread before handing back its promise, and the promise. */
  const held = <T>(call: () => Promise<T>) => {
    const started = performance.now();
    const answer = call();
    return { ms: performance.now() - started, answer };
  };

  it('runs a read on the main thread until it proves long, then in the reader thread, with the same rows', async () => {
    const first = held(() => store.db.all(counting(store.db.sql, 400_000)));
    const second = held(() => store.db.all(counting(store.db.sql, 400_000)));
    const expected = [{ n: 400_000, blob: Buffer.from([0, 255]) }];
    expect(await first.answer).toEqual(expected);
    const rows = await second.answer;
    expect(rows).toEqual(expected);
    expect(Buffer.isBuffer((rows[0] as { blob: unknown }).blob)).toBe(true);
    // The first ran where it was called; the second only posted the statement.
    expect(first.ms).toBeGreaterThan(5);
    expect(second.ms).toBeLessThan(first.ms / 4);
  });

  it('brings a read back to the main thread once it runs short in the reader thread time after time', async () => {
    // A statement of its own whose work depends on its binding: long with 400,000, short with 1.
    const statement = (n: number) =>
      store.db.sql.raw('with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) as counted from c', [n]);
    const run = async (n: number) => {
      const call = held(() => store.db.all(statement(n)));
      expect(await call.answer).toEqual([{ counted: n }]);
      return call.ms;
    };
    const onMain = await run(1_000_000);
    expect(onMain).toBeGreaterThan(5);
    expect(await run(1_000_000)).toBeLessThan(onMain / 4);
    for (let short = 0; short < BACK_ON_THREAD_AFTER_RUNS; short += 1) await run(1);
    // Back where it was called: the long binding holds the caller again, once, and goes back to the worker.
    const back = await run(1_000_000);
    expect(back).toBeGreaterThan(5);
    expect(await run(1_000_000)).toBeLessThan(back / 4);
  });

  it('answers a short read while a long one is under way in the reader thread', async () => {
    await store.db.all(counting(store.db.sql, 300_000));
    const order: string[] = [];
    const long = store.db.all(counting(store.db.sql, 300_000)).then(() => order.push('long'));
    const short = store.db.first(store.db.sql('tokens').where({ _id: 'none' })).then(() => order.push('short'));
    await Promise.all([long, short]);
    expect(order).toEqual(['short', 'long']);
  });

  it("gives SQLite's error and code from the reader thread, and settles what it owed when closed", async () => {
    const thread = new SqliteReaderThread(
      (store.db as { filename?: string }).filename!,
      SQLITE_PRAGMAS.filter((pragma) => !pragma.startsWith('journal_mode')),
    );
    try {
      await expect(thread.read('select * from no_such_table', [])).rejects.toMatchObject({
        message: expect.stringMatching(/no such table/),
        code: 'SQLITE_ERROR',
      });
      expect(await thread.read('select ? as a, ? as b', [1, 'x'])).toEqual({ columns: ['a', 'b'], rows: [[1, 'x']], ms: expect.any(Number) });
    } finally {
      await thread.close();
    }
    const db = openDatabase(store.db.url);
    await db.all(counting(db.sql, 300_000));
    const owed = db.all(counting(db.sql, 300_000)).then(
      () => 'answered',
      () => 'refused',
    );
    await db.close();
    expect(['answered', 'refused']).toContain(await owed);
  });
});
