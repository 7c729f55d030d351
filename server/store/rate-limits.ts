import type { Executor } from './executor.js';

/**
 * Counts one request in `bucket` for the window starting at `windowStart` (Unix seconds) and lasting
 * `windowSeconds`, and returns the new count.
 */
export async function countRequest(db: Executor, bucket: string, windowStart: number, windowSeconds = 1): Promise<number> {
  const [row] = await db.all<{ count: number | string }>(
    db
      .sql('rate_limit_windows')
      .insert({ bucket, window_start: windowStart, window_seconds: windowSeconds, count: 1 })
      .onConflict(['bucket', 'window_start'])
      .merge({ count: db.sql.raw('rate_limit_windows.count + 1') })
      .returning('count'),
  );
  return Number(row!.count);
}

/** Takes one back from `bucket`'s count in the window starting at `windowStart`, never below zero. */
export async function uncountRequest(db: Executor, bucket: string, windowStart: number): Promise<void> {
  await db.run(
    db
      .sql('rate_limit_windows')
      .update({ count: db.sql.raw('count - 1') })
      .where({ bucket, window_start: windowStart })
      .where('count', '>', 0),
  );
}

/** The count of `bucket` in the window starting at `windowStart`; 0 when nothing was counted there. */
export async function readCount(db: Executor, bucket: string, windowStart: number): Promise<number> {
  const row = await db.first<{ count: number | string }>(db.sql('rate_limit_windows').select('count').where({ bucket, window_start: windowStart }));
  return Number(row?.count ?? 0);
}

/** Deletes the windows that ended before `end` (Unix seconds). */
export async function deleteWindowsEndedBefore(db: Executor, end: number): Promise<number> {
  return db.run(db.sql('rate_limit_windows').whereRaw('window_start + window_seconds < ?', [end]).delete());
}
