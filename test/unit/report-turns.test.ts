// The reports of one business asked of one instance at once wait their turn there, in order, up to a
// bound (usecases/merchant/reports.ts, waitForTurn): past it the next is busy at once, and another business or
// another database never waits on them.
import { describe, expect, it } from 'vitest';
import type { Executor } from '../../server/store/executor.js';
import { waitForTurn } from '../../server/usecases/merchant/reports.js';

const database = () => ({}) as Executor;
const settled = async <T>(promise: Promise<T>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('report turns', () => {
  it('take turns in order; the fifth at once is busy; another business or database goes at once', async () => {
    const db = database();
    const first = (await waitForTurn(db, 1))!;
    const second = waitForTurn(db, 1);
    const third = waitForTurn(db, 1);
    const fourth = waitForTurn(db, 1);
    expect(await waitForTurn(db, 1)).toBeUndefined();
    expect(await settled(second)).toBe(false);
    expect(await waitForTurn(db, 2)).toBeTypeOf('function');
    expect(await waitForTurn(database(), 1)).toBeTypeOf('function');
    first();
    const secondEnds = (await second)!;
    expect(await settled(third)).toBe(false);
    secondEnds();
    (await third)!();
    (await fourth)!();
    // All ended: the business's queue is empty again, and a new report goes at once.
    expect(await settled(waitForTurn(db, 1))).toBe(true);
  });
});
