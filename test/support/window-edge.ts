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

/**
 * For a limit whose window length the test sets (the payer pages', the acquirer notifications'): a length
 * from `atLeast` seconds up whose current window has `leftSeconds` to run at least, so the counts cannot
 * start afresh halfway and nothing waits. Lengths a second apart end their current windows far apart.
 */
export function windowWithTimeLeft(atLeast = 3_600, leftSeconds = 600): number {
  const now = Date.now() / 1000;
  for (let seconds = atLeast; ; seconds += 1) if (seconds - (now % seconds) >= leftSeconds) return seconds;
}
