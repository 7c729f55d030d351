import type { Executor } from './executor.js';

/** Counts one request in `bucket` for the window starting at `windowStart` (Unix seconds) and returns the new count. */
export async function countRequest(db: Executor, bucket: string, windowStart: number): Promise<number> {
  const [row] = await db.all<{ count: number | string }>(
    db
      .sql('rate_limit_windows')
      .insert({ bucket, window_start: windowStart, count: 1 })
      .onConflict(['bucket', 'window_start'])
      .merge({ count: db.sql.raw('rate_limit_windows.count + 1') })
      .returning('count'),
  );
  return Number(row!.count);
}

export async function deleteWindowsBefore(db: Executor, windowStart: number): Promise<number> {
  return db.run(db.sql('rate_limit_windows').where('window_start', '<', windowStart).delete());
}
