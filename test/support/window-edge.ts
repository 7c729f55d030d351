// Limits counted in fixed windows aligned to the epoch (server/rate-limits/backends.ts) start afresh at
// each window's end: a test that runs a limit up and then expects a refusal waits out the last
// moments of a window first, rather than let the counts reset halfway.
import { sleep } from './wait.js';

/**
 * Waits, if the current window of `seconds` ends within `marginSeconds`, until the next one has begun.
 * The margin is as long as the test's counting takes, with room to spare: a longer one waits more
 * often, and longer, for nothing.
 */
export async function clearOfWindowEdge(seconds = 900, marginSeconds = 30): Promise<void> {
  const left = seconds - ((Date.now() / 1000) % seconds);
  if (left < marginSeconds) await sleep(left * 1000 + 100);
}
